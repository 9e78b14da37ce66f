//! SORT and SORT_RO, as Redis's `sort.c` does them: the elements of a list, set or sorted set,
//! weighed by themselves or by other keys (`BY weight_*`, `BY h_*->field`), numerically or
//! as bytes (ALPHA), cut by LIMIT, mapped through GET patterns (`#` is the element itself),
//! and answered or stored as a list (STORE, SORT only).
//!
//! BY and GET patterns name keys the command's key spec cannot know, so both commands lock
//! every shard (the table's `ALL_SHARDS` flag) and look those keys up through `ctx.db`.
//!
//! Order, as Redis gives it: numerically, equal weights fall back to comparing the elements'
//! bytes; with ALPHA and BY, a missing weight sorts first and equal weights keep the input's
//! order (glibc's `qsort` is a stable merge sort; this sort is stable too). A BY pattern
//! without `*` (`BY nosort`) skips sorting: a list or sorted set keeps its own order (DESC
//! reverses it), a set its iteration order, except that a set being STOREd is sorted as
//! ALPHA so the stored list does not depend on the set's layout.

use std::cmp::Ordering;

use crate::args::Args;
use crate::cmd::zset::strtod;
use crate::engine::Ctx;
use crate::error::{c_str, CmdError};
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::entry::ValueRef;
use crate::store::list::ListValue;

const NOT_DOUBLE: &str = "One or more scores can't be converted into double";

/// Sorts a list, set or sorted set, and answers or stores the result.
///
/// ```text
/// SORT key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]]
///     [ASC | DESC] [ALPHA] [STORE destination]
/// ```
pub fn sort(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    sort_generic(ctx, args, false)
}

/// SORT without STORE, for replicas and read-only scripts.
///
/// ```text
/// SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]]
///     [ASC | DESC] [ALPHA]
/// ```
pub fn sort_ro(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    sort_generic(ctx, args, true)
}

/// SORT's options, as `sortCommandGeneric` parses them.
struct Options<'a> {
    desc: bool,
    alpha: bool,
    limit: Option<(i64, i64)>,
    by: Option<&'a [u8]>,
    /// A BY pattern without `*` was given (it sticks, even if a later BY has one).
    dontsort: bool,
    gets: Vec<&'a [u8]>,
    store: Option<&'a [u8]>,
}

fn parse<'a>(args: &mut Args<'a>, readonly: bool) -> Result<Options<'a>, CmdError> {
    let mut o =
        Options { desc: false, alpha: false, limit: None, by: None, dontsort: false, gets: Vec::new(), store: None };
    let rest = args.rest();
    let mut j = 0;
    while j < rest.len() {
        let left = rest.len() - j - 1;
        let is = |name: &str| rest[j].eq_ignore_ascii_case(name.as_bytes());
        if is("ASC") {
            o.desc = false;
        } else if is("DESC") {
            o.desc = true;
        } else if is("ALPHA") {
            o.alpha = true;
        } else if is("LIMIT") && left >= 2 {
            let start = parse_i64(rest[j + 1]).ok_or(CmdError::NotInteger)?;
            let count = parse_i64(rest[j + 2]).ok_or(CmdError::NotInteger)?;
            o.limit = Some((start, count));
            j += 2;
        } else if !readonly && is("STORE") && left >= 1 {
            o.store = Some(rest[j + 1]);
            j += 1;
        } else if is("BY") && left >= 1 {
            o.by = Some(rest[j + 1]);
            if !rest[j + 1].contains(&b'*') {
                o.dontsort = true;
            }
            j += 1;
        } else if is("GET") && left >= 1 {
            o.gets.push(rest[j + 1]);
            j += 1;
        } else {
            return Err(CmdError::Syntax);
        }
        j += 1;
    }
    Ok(o)
}

/// The type of the value being sorted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    List,
    Set,
    ZSet,
}

/// One element and what it is sorted by.
struct Item {
    elem: Vec<u8>,
    score: f64,
    /// ALPHA with BY: the weight (`None` when its key or field is missing).
    weight: Option<Vec<u8>>,
}

fn sort_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, readonly: bool) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let mut o = parse(args, readonly)?;
    let now = ctx.now;
    // Sorting only reads the source: a WATCH on it survives (SORT is a write for STORE).
    ctx.leave_unchanged(0);

    // The elements, as Redis loads its vector (a missing key sorts as an empty list).
    let (kind, mut elems): (Kind, Vec<Vec<u8>>) = match ctx.db.read(key, now) {
        None => (Kind::List, Vec::new()),
        Some(entry) => match entry.value {
            ValueRef::List(l) => (Kind::List, l.iter().map(<[u8]>::to_vec).collect()),
            ValueRef::Set(s) => (Kind::Set, s.iter().map(<[u8]>::to_vec).collect()),
            ValueRef::ZSet(z) => (Kind::ZSet, z.iter().map(|(m, _)| m.to_vec()).collect()),
            _ => return Err(CmdError::WrongType),
        },
    };
    if o.dontsort && kind == Kind::Set && o.store.is_some() {
        o.dontsort = false;
        o.alpha = true;
        o.by = None;
    }

    // LIMIT, clamped as Redis clamps it; `start..=end` may be empty (end < start).
    let len = elems.len() as i64;
    let (limit_start, limit_count) = o.limit.unwrap_or((0, -1));
    let mut start = limit_start.max(0).min(len);
    let count = limit_count.max(-1).min(len);
    let mut end = if count < 0 { len - 1 } else { start + count - 1 };
    if start >= len {
        start = len - 1;
        end = len - 2;
    }
    end = end.min(len - 1);

    let mut items: Vec<Item>;
    if o.dontsort && kind != Kind::Set {
        // A list or sorted set in its own order (reversed for DESC), only the LIMIT range.
        if o.desc {
            elems.reverse();
        }
        let range = if end >= start { start as usize..end as usize + 1 } else { 0..0 };
        items = elems.drain(range).map(|elem| Item { elem, score: 0.0, weight: None }).collect();
        (start, end) = (0, items.len() as i64 - 1);
    } else {
        items = elems.into_iter().map(|elem| Item { elem, score: 0.0, weight: None }).collect();
    }

    if !o.dontsort {
        let mut not_double = false;
        for item in &mut items {
            let by_value = match o.by {
                Some(pattern) => match lookup_by_pattern(ctx, pattern, &item.elem) {
                    Some(v) => v,
                    None => continue,
                },
                None => item.elem.clone(),
            };
            if o.alpha {
                if o.by.is_some() {
                    item.weight = Some(by_value);
                }
            } else {
                // `strtod` over the value as a C string, nothing left over, no NaN, no
                // overflow (or underflow), as Redis checks it.
                let s = c_str(&by_value, usize::MAX);
                let n = strtod(s);
                item.score = n.value;
                if n.used != s.len() || n.out_of_range || n.value.is_nan() {
                    not_double = true;
                }
            }
        }
        if not_double {
            return Err(CmdError::err(NOT_DOUBLE));
        }
        let (alpha, by, desc) = (o.alpha, o.by.is_some(), o.desc);
        items.sort_by(|a, b| {
            let c = if !alpha {
                a.score.partial_cmp(&b.score).unwrap_or(Ordering::Equal).then_with(|| a.elem.cmp(&b.elem))
            } else if by {
                // A missing weight first; equal weights keep their order.
                a.weight.cmp(&b.weight)
            } else {
                a.elem.cmp(&b.elem)
            };
            if desc {
                c.reverse()
            } else {
                c
            }
        });
    }

    let range = if end >= start { &items[start as usize..end as usize + 1] } else { &[][..] };
    match o.store {
        None => {
            let mut out = Vec::with_capacity(range.len() * o.gets.len().max(1));
            for item in range {
                if o.gets.is_empty() {
                    out.push(Reply::bulk(&item.elem));
                }
                for &pattern in &o.gets {
                    out.push(Reply::opt_bulk(lookup_by_pattern(ctx, pattern, &item.elem).as_deref()));
                }
            }
            Ok(Reply::Array(out))
        }
        Some(dest) => {
            let mut stored: Vec<Vec<u8>> = Vec::with_capacity(range.len() * o.gets.len().max(1));
            for item in range {
                if o.gets.is_empty() {
                    stored.push(item.elem.clone());
                }
                for &pattern in &o.gets {
                    // A missing GET stores an empty string, as Redis does.
                    stored.push(lookup_by_pattern(ctx, pattern, &item.elem).unwrap_or_default());
                }
            }
            let n = stored.len() as i64;
            let changed = if stored.is_empty() {
                ctx.db.lookup(dest, now).is_some() && ctx.db.shard(dest).remove(dest).is_some()
            } else {
                // Replaces whatever `dest` held, TTL included (Redis's `setKey`).
                crate::cmd::collection::create(ctx.engine, &mut ctx.db, dest, ListValue::from_elems(&stored), now);
                true
            };
            if !stored.is_empty() {
                ctx.notify(class::LIST, "sortstore", dest);
            } else if changed {
                ctx.notify(class::GENERIC, "del", dest);
            }
            // `dest` is not in the key spec (Redis's is a movable key), so dispatch does not
            // see the write: tell the watchers here.
            let watches = &ctx.engine.store.watches;
            let db = ctx.db.db();
            if changed && watches.any() && watches.is_watched(db, dest) {
                watches.touch(db, dest);
            }
            Ok(Reply::Int(n))
        }
    }
}

/// Redis's `lookupKeyByPattern`: `#` is the element itself; otherwise the first `*` of the
/// pattern is replaced by the element, and the key read as a string, or, when a `->field`
/// follows the `*`, that field of the key's hash. `None` for no `*`, a missing key or
/// field, or a key of another type.
fn lookup_by_pattern(ctx: &mut Ctx<'_>, pattern: &[u8], subst: &[u8]) -> Option<Vec<u8>> {
    if pattern == b"#" {
        return Some(subst.to_vec());
    }
    let star = pattern.iter().position(|&b| b == b'*')?;
    let after = &pattern[star + 1..];
    let (postfix, field) = match after.windows(2).position(|w| w == b"->") {
        Some(arrow) if arrow + 2 < after.len() => (&after[..arrow], Some(&after[arrow + 2..])),
        _ => (after, None),
    };
    let mut key = Vec::with_capacity(pattern.len() + subst.len());
    key.extend_from_slice(&pattern[..star]);
    key.extend_from_slice(subst);
    key.extend_from_slice(postfix);
    let entry = ctx.db.read(&key, ctx.now)?;
    match (entry.value, field) {
        (ValueRef::Hash(h), Some(field)) => h.get(field).map(<[u8]>::to_vec),
        (ValueRef::Str(s), None) => Some(s.to_vec()),
        _ => None,
    }
}
