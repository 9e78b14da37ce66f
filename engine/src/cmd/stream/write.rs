//! The stream writes: XADD, XTRIM, XDEL and XSETID, with the trimming options XADD and XTRIM
//! share. A write whose effect its arguments do not fix (XADD's `*` ID, an approximate or
//! limited trim) is logged as what it did: the ID it assigned and an exact trim to the length
//! it left (`Session::log_as`), so a replay gives the same stream.

use std::mem::size_of;

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::entry::alloc_size;
use crate::store::stream::block::Block;
use crate::store::stream::{default_trim_limit, AddError, AddId, Stream, StreamId, Trim};

use super::stream_of;

/// XADD's and XTRIM's options, as Redis's `streamParseAddOrTrimArgsOrReply` reads them.
#[derive(Debug, Clone, Copy, PartialEq)]
struct AddTrim {
    rule: Option<Trim>,
    approx: bool,
    /// Entries a trim may remove with whole blocks (0 = no limit).
    limit: u64,
    no_mkstream: bool,
    id: AddId,
    /// XADD: where the ID is among the arguments after the key (the fields follow it).
    id_at: usize,
}

fn parse_add_trim(argv: &[&[u8]], xadd: bool) -> Result<AddTrim, CmdError> {
    let mut p = AddTrim { rule: None, approx: false, limit: 0, no_mkstream: false, id: AddId::Auto, id_at: 0 };
    let mut limit_given = false;
    let mut i = 0;
    while i < argv.len() {
        let more = argv.len() - 1 - i;
        let opt = argv[i];
        let is = |name: &str| opt.eq_ignore_ascii_case(name.as_bytes());
        if xadd && opt == b"*" {
            break;
        } else if (is("MAXLEN") || is("MINID")) && more > 0 {
            if p.rule.is_some() {
                return Err(CmdError::err(
                    "syntax error, MAXLEN and MINID options at the same time are not compatible",
                ));
            }
            let maxlen = is("MAXLEN");
            p.approx = false;
            let next = argv[i + 1];
            if more >= 2 && next == b"~" {
                p.approx = true;
                i += 1;
            } else if more >= 2 && next == b"=" {
                i += 1;
            }
            let arg = argv[i + 1];
            p.rule = Some(if maxlen {
                let n = parse_i64(arg).ok_or(CmdError::NotInteger)?;
                if n < 0 {
                    return Err(CmdError::err("The MAXLEN argument must be >= 0."));
                }
                Trim::MaxLen(n as u64)
            } else {
                Trim::MinId(StreamId::parse(arg, 0, true)?)
            });
            i += 1;
        } else if is("LIMIT") && more > 0 {
            let n = parse_i64(argv[i + 1]).ok_or(CmdError::NotInteger)?;
            if n < 0 {
                return Err(CmdError::err("The LIMIT argument must be >= 0."));
            }
            p.limit = n as u64;
            limit_given = true;
            i += 1;
        } else if xadd && is("NOMKSTREAM") {
            p.no_mkstream = true;
        } else if xadd {
            p.id = StreamId::parse_for_add(opt)?;
            break;
        } else {
            return Err(CmdError::Syntax);
        }
        i += 1;
    }
    p.id_at = i;
    if p.limit != 0 && p.rule.is_none() {
        return Err(CmdError::err("syntax error, LIMIT cannot be used without specifying a trimming strategy"));
    }
    if !xadd && p.rule.is_none() {
        return Err(CmdError::err("syntax error, XTRIM must be called with a trimming strategy"));
    }
    if limit_given && !p.approx {
        return Err(CmdError::err("syntax error, LIMIT cannot be used without the special ~ option"));
    }
    if !limit_given {
        // Redis bounds an approximate trim's work to 100 blocks; an exact one has no bound.
        p.limit = if p.approx { default_trim_limit() } else { 0 };
    }
    Ok(p)
}

/// XADD: appends an entry with the given ID (`*` picks one from the clock, `ms-*` the next
/// sequence in that millisecond), creating the stream unless NOMKSTREAM, then trims as asked.
/// Answers the ID, or nil when NOMKSTREAM found no stream.
///
/// ```text
/// XADD key [NOMKSTREAM] [<MAXLEN | MINID> [= | ~] threshold [LIMIT count]] <* | id> field value [field value ...]
/// ```
pub fn xadd(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let rest = args.rest();
    let p = parse_add_trim(rest, true)?;
    let fields = rest.get(p.id_at + 1..).unwrap_or_default();
    if fields.is_empty() || fields.len() % 2 == 1 {
        return Err(CmdError::WrongArity("xadd".into()));
    }
    if p.id == AddId::Explicit(StreamId::new(0, 0)) {
        return Err(CmdError::err("The ID specified in XADD must be greater than 0-0"));
    }
    let now = ctx.now;
    let exists = match ctx.db.lookup(key, now) {
        Some(entry) => {
            stream_of(entry)?;
            true
        }
        None => false,
    };
    if !exists {
        if p.no_mkstream {
            return Ok(Reply::Nil);
        }
        crate::cmd::collection::create(ctx.engine, &mut ctx.db, key, Stream::new(), now);
    }
    let added = crate::cmd::collection::modify(&mut ctx.db, key, now, |s: &mut Stream| {
        let id = s.next_id(p.id, now).map_err(|e| match e {
            AddError::Exhausted => {
                CmdError::err("The stream has exhausted the last possible ID, unable to add more items")
            }
            AddError::TooSmall => {
                CmdError::err("The ID specified in XADD is equal or smaller than the target stream top item")
            }
        })?;
        s.append(id, fields);
        let trimmed = p.rule.map_or(0, |rule| s.trim(rule, p.approx, p.limit));
        Ok::<_, CmdError>((id, trimmed, s.len()))
    })?;
    let Some(added) = added else { return Ok(Reply::Nil) };
    let (id, trimmed, len) = added?;
    // The waiting readers (XREAD BLOCK) may now be served, though the key existed before.
    ctx.db.shard(key).signal_ready(key);
    if ctx.engine.propagation().enabled() {
        let id = id.to_bytes();
        let mut add: Vec<Vec<u8>> = vec![b"XADD".to_vec(), key.to_vec(), id];
        add.extend(fields.iter().map(|f| f.to_vec()));
        let mut log = vec![add];
        if trimmed > 0 {
            log.push(exact_trim(key, len));
        }
        ctx.session.log_as = Some(log);
    }
    ctx.notify(class::STREAM, "xadd", key);
    if trimmed > 0 {
        ctx.notify(class::STREAM, "xtrim", key);
    }
    Ok(Reply::Bulk(id.to_bytes()))
}

/// The exact trim that leaves `len` entries: how a trim is logged, whatever its options.
fn exact_trim(key: &[u8], len: u64) -> Vec<Vec<u8>> {
    vec![b"XTRIM".to_vec(), key.to_vec(), b"MAXLEN".to_vec(), b"=".to_vec(), len.to_string().into_bytes()]
}

/// Bytes an XADD may add beyond its arguments: the stream when it is new, a new block's slot,
/// and the growth of the block's buffer (which may double, up to its 4 KB).
pub fn add_growth(argv: &[&[u8]]) -> usize {
    let data: usize = argv.iter().skip(2).map(|a| a.len() + 2).sum();
    alloc_size(size_of::<Stream>()) + 2 * size_of::<Block>() + 2 * data
}

/// XTRIM: trims the stream to MAXLEN entries or to the entries from MINID on (`~`: only whole
/// blocks, so maybe fewer); answers how many were removed (0 when there is no stream).
///
/// ```text
/// XTRIM key <MAXLEN | MINID> [= | ~] threshold [LIMIT count]
/// ```
pub fn xtrim(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let p = parse_add_trim(args.rest(), false)?;
    let Some(rule) = p.rule else { return Err(CmdError::Syntax) };
    let now = ctx.now;
    let done = crate::cmd::collection::modify(&mut ctx.db, key, now, |s: &mut Stream| {
        (s.trim(rule, p.approx, p.limit), s.len())
    })?;
    let Some((trimmed, len)) = done else { return Ok(Reply::Int(0)) };
    if trimmed == 0 {
        ctx.leave_unchanged(0);
    }
    if ctx.engine.propagation().enabled() {
        ctx.session.log_as = Some(if trimmed > 0 { vec![exact_trim(key, len)] } else { vec![] });
    }
    if trimmed > 0 {
        ctx.notify(class::STREAM, "xtrim", key);
    }
    Ok(Reply::Int(trimmed as i64))
}

/// XDEL: deletes the entries with the given IDs; answers how many there were. Every ID is
/// checked before any entry goes.
///
/// ```text
/// XDEL key id [id ...]
/// ```
pub fn xdel(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let now = ctx.now;
    match ctx.db.lookup(key, now) {
        None => return Ok(Reply::Int(0)),
        Some(entry) => stream_of(entry)?,
    };
    let ids = args.rest().iter().map(|a| StreamId::parse(a, 0, true)).collect::<Result<Vec<_>, _>>()?;
    let deleted = crate::cmd::collection::modify(&mut ctx.db, key, now, |s: &mut Stream| {
        ids.iter().filter(|&&id| s.delete(id)).count()
    })?
    .unwrap_or(0);
    if deleted == 0 {
        ctx.leave_unchanged(0);
        // Nothing changed, so nothing is logged (as Redis propagates no such XDEL).
        if ctx.engine.propagation().enabled() {
            ctx.session.log_as = Some(vec![]);
        }
    } else {
        ctx.notify(class::STREAM, "xdel", key);
    }
    Ok(Reply::Int(deleted as i64))
}

/// XSETID: sets the stream's last ID and, optionally, its entries-added count and largest
/// deleted ID (what a replica or an AOF needs to recreate the stream exactly).
///
/// ```text
/// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
/// ```
pub fn xsetid(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let id = StreamId::parse(args.bytes()?, 0, true)?;
    let (mut added, mut max_deleted) = (None, None);
    let rest = args.rest();
    let mut i = 0;
    while i < rest.len() {
        let more = rest.len() - 1 - i;
        let opt = rest[i];
        if opt.eq_ignore_ascii_case(b"ENTRIESADDED") && more > 0 {
            let n = parse_i64(rest[i + 1]).ok_or(CmdError::NotInteger)?;
            if n < 0 {
                return Err(CmdError::err("entries_added must be positive"));
            }
            added = Some(n as u64);
        } else if opt.eq_ignore_ascii_case(b"MAXDELETEDID") && more > 0 {
            let max = StreamId::parse(rest[i + 1], 0, true)?;
            if id < max {
                return Err(CmdError::err(
                    "The ID specified in XSETID is smaller than the provided max_deleted_entry_id",
                ));
            }
            max_deleted = Some(max);
        } else {
            return Err(CmdError::Syntax);
        }
        i += 2;
    }
    let now = ctx.now;
    let stream = match ctx.db.lookup(key, now) {
        None => return Err(CmdError::NoSuchKey),
        Some(entry) => stream_of(entry)?,
    };
    if !stream.is_empty() {
        let top = stream.last().map_or(id, |(top, _)| top);
        if id < top {
            return Err(CmdError::err("The ID specified in XSETID is smaller than the target stream top item"));
        }
        if added.is_some_and(|n| stream.len() > n) {
            return Err(CmdError::err(
                "The entries_added specified in XSETID is smaller than the target stream length",
            ));
        }
    }
    // Redis leaves the largest deleted ID alone when given 0-0.
    let max_deleted = max_deleted.filter(|&m| m != StreamId::new(0, 0));
    crate::cmd::collection::modify(&mut ctx.db, key, now, |s: &mut Stream| s.set_id(id, added, max_deleted))?;
    ctx.notify(class::STREAM, "xsetid", key);
    Ok(Reply::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str], xadd: bool) -> Result<AddTrim, CmdError> {
        let argv: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        parse_add_trim(&argv, xadd)
    }

    #[test]
    fn options_parse_as_redis_reads_them() {
        let p = parse(&["MAXLEN", "~", "10", "*", "f", "v"], true).unwrap();
        assert_eq!((p.rule, p.approx, p.limit, p.id_at), (Some(Trim::MaxLen(10)), true, 10_000, 3));
        let p = parse(&["NOMKSTREAM", "MINID", "=", "5", "LIMIT", "0", "7-*", "f", "v"], true);
        assert_eq!(p, Err(CmdError::err("syntax error, LIMIT cannot be used without the special ~ option")));
        let p = parse(&["minid", "5", "1-2", "f"], true).unwrap();
        assert_eq!(
            (p.rule, p.id, p.id_at),
            (Some(Trim::MinId(StreamId::new(5, 0))), AddId::Explicit(StreamId::new(1, 2)), 2)
        );
        assert!(parse(&["MAXLEN", "1", "MINID", "2", "*"], true).is_err());
        assert_eq!(
            parse(&["LIMIT", "5"], false),
            Err(CmdError::err("syntax error, LIMIT cannot be used without specifying a trimming strategy"))
        );
        assert_eq!(parse(&["FOO"], false), Err(CmdError::Syntax));
        assert_eq!(parse(&["MAXLEN", "-1"], false), Err(CmdError::err("The MAXLEN argument must be >= 0.")));
        // A MAXLEN with no number after it is the ID (and not a valid one).
        assert!(parse(&["MAXLEN"], true).is_err());
    }
}
