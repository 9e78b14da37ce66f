//! HyperLogLog commands: PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST, on strings holding
//! Redis's HLL encoding (`crate::hll`). Events, propagation and the cached cardinality follow
//! Redis 7.0: PFADD and PFMERGE publish `pfadd`; a PFCOUNT that refreshes the cache writes it
//! into the value and is logged as itself; a PFDEBUG that converts to dense is logged.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::hll::{self, HllError, REGISTERS};
use crate::notify::class;
use crate::reply::Reply;
use crate::store::entry::{Entry, Value, ValueRef};

use super::string::default_expiry;

#[cfg(test)]
mod tests;

fn hll_error(e: HllError) -> CmdError {
    CmdError::Other(
        match e {
            HllError::NotHll => "WRONGTYPE Key is not a valid HyperLogLog string value.",
            HllError::Corrupt => "INVALIDOBJ Corrupted HLL object detected",
        }
        .into(),
    )
}

/// The HLL string an entry holds: WRONGTYPE for another type, Redis's HLL WRONGTYPE text for
/// a string that is not an HLL.
#[allow(unreachable_patterns)]
fn hll_of(entry: Entry<'_>) -> Result<&[u8], CmdError> {
    match entry.value {
        ValueRef::Str(s) => hll::validate(s).map(|()| s).map_err(hll_error),
        _ => Err(CmdError::WrongType),
    }
}

/// `hll_of` for a value being changed in place.
#[allow(unreachable_patterns)]
fn hll_mut(value: &mut Value) -> Result<&mut Vec<u8>, CmdError> {
    match value {
        Value::Str(s) => hll::validate(s).map(|()| s).map_err(hll_error),
        _ => Err(CmdError::WrongType),
    }
}

/// `hll-sparse-max-bytes`, as the running command sees it.
fn sparse_max() -> usize {
    crate::store::encodings::current().hll_sparse_max_bytes
}

/// PFADD: adds elements to the HLL at a key (creating it); 1 if any register rose.
///
/// ```text
/// PFADD key [element [element ...]]
/// ```
pub fn pfadd(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let elements = args.rest();
    let max = sparse_max();
    let add_all = |s: &mut Vec<u8>| -> Result<bool, CmdError> {
        let mut updated = false;
        for ele in elements {
            updated |= hll::add(s, ele, max).map_err(hll_error)?;
        }
        if updated {
            hll::invalidate(s);
        }
        Ok(updated)
    };
    let updated = match ctx.db.shard(key).update(key, ctx.now, |v| add_all(hll_mut(v)?)) {
        Some(result) => result?,
        None => {
            let mut s = hll::new_sparse();
            add_all(&mut s)?;
            hll::invalidate(&mut s);
            let expire_at = default_expiry(ctx);
            ctx.db.shard(key).insert_str(key, &s, expire_at, ctx.now);
            true
        }
    };
    if !updated {
        // Redis neither signals nor propagates a PFADD that changed nothing.
        ctx.leave_unchanged(0);
        ctx.session.log_as = Some(vec![]);
        return Ok(Reply::Int(0));
    }
    ctx.notify(class::STRING, "pfadd", key);
    Ok(Reply::Int(1))
}

/// PFCOUNT: the estimated cardinality of one HLL (cached in its header, refreshed when
/// stale), or of the union of several (computed, nothing written).
///
/// ```text
/// PFCOUNT key [key ...]
/// ```
pub fn pfcount(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let keys = args.rest();
    if keys.len() > 1 {
        let mut max = Box::new([0u8; REGISTERS]);
        for key in keys {
            if let Some(entry) = ctx.db.read(key, ctx.now) {
                hll::merge_into(&mut max, hll_of(entry)?).map_err(hll_error)?;
            }
        }
        return Ok(Reply::Int(hll::count_raw(&max) as i64));
    }
    let Some(&key) = keys.first() else { return Err(CmdError::WrongArity("pfcount".into())) };
    let Some(entry) = ctx.db.read(key, ctx.now) else { return Ok(Reply::Int(0)) };
    let s = hll_of(entry)?;
    if let Some(card) = hll::cached(s) {
        return Ok(Reply::Int(card as i64));
    }
    let card = hll::count(s).map_err(hll_error)?;
    ctx.db.shard(key).update(key, ctx.now, |v| {
        if let Value::Str(s) = v {
            hll::set_cached(s, card);
        }
    });
    // The value changed: Redis signals the key (WATCH, client tracking) and propagates this
    // PFCOUNT, though the command is a read.
    ctx.engine.store.watches.touch(ctx.db.db(), key);
    if ctx.engine.tracking.any() {
        let send = ctx.engine.tracking_sender(ctx.now);
        let session = &mut *ctx.session;
        ctx.engine.tracking.invalidate(std::iter::once(key), Some(session.id()), &mut session.tracking.deferred, &send);
    }
    ctx.session.log_as = Some(vec![ctx.argv.iter().map(|a| a.to_vec()).collect()]);
    Ok(Reply::Int(card as i64))
}

/// PFMERGE: merges HLLs into a destination (created if missing, itself among the sources).
/// The result is dense when any input is; otherwise sparse while it fits.
///
/// ```text
/// PFMERGE destkey [sourcekey [sourcekey ...]]
/// ```
pub fn pfmerge(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let dest = args.key()?;
    let sources = args.rest();
    let mut max = Box::new([0u8; REGISTERS]);
    let mut use_dense = false;
    for key in std::iter::once(&dest).chain(sources) {
        if let Some(entry) = ctx.db.read(key, ctx.now) {
            let s = hll_of(entry)?;
            use_dense |= hll::is_dense(s);
            hll::merge_into(&mut max, s).map_err(hll_error)?;
        }
    }
    let limit = sparse_max();
    let write = |s: &mut Vec<u8>| -> Result<(), CmdError> {
        if use_dense {
            hll::to_dense(s).map_err(hll_error)?;
        }
        for (i, &m) in max.iter().enumerate().filter(|(_, m)| **m != 0) {
            if hll::is_dense(s) {
                hll::dense_set(&mut s[hll::HDR..], i, m);
            } else {
                // Redis ignores a failure here: the destination was validated as a source.
                let _ = hll::sparse_set(s, i, m, limit);
            }
        }
        hll::invalidate(s);
        Ok(())
    };
    match ctx.db.shard(dest).update(dest, ctx.now, |v| write(hll_mut(v)?)) {
        Some(result) => result?,
        None => {
            let mut s = hll::new_sparse();
            write(&mut s)?;
            let expire_at = default_expiry(ctx);
            ctx.db.shard(dest).insert_str(dest, &s, expire_at, ctx.now);
        }
    }
    // Redis publishes `pfadd` for a merge: in effect a mass add.
    ctx.notify(class::STRING, "pfadd", dest);
    Ok(Reply::Ok)
}

/// PFDEBUG: inspects or converts the HLL at a key (GETREG, DECODE, ENCODING, TODENSE).
///
/// ```text
/// PFDEBUG subcommand key
/// ```
pub fn pfdebug(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let sub = args.bytes()?;
    let key = args.key()?;
    let sub_name = String::from_utf8_lossy(sub).into_owned();
    let sub = sub_name.to_ascii_lowercase();
    // Redis neither signals the key nor propagates unless the encoding changed.
    ctx.leave_unchanged(0);
    let outcome = ctx.db.shard(key).update(key, ctx.now, |v| -> Result<(Reply, bool), CmdError> {
        let s = hll_mut(v)?;
        match sub.as_str() {
            "getreg" => {
                let converted = hll::to_dense(s).map_err(hll_error)?;
                let regs = (0..REGISTERS).map(|i| Reply::Int(i64::from(hll::dense_get(&s[hll::HDR..], i))));
                Ok((Reply::Array(regs.collect()), converted))
            }
            "decode" if hll::is_dense(s) => Err(CmdError::err("HLL encoding is not sparse")),
            "decode" => Ok((Reply::bulk(hll::decode(s)), false)),
            "encoding" => Ok((Reply::status(if hll::is_dense(s) { "dense" } else { "sparse" }), false)),
            "todense" => {
                let converted = hll::to_dense(s).map_err(hll_error)?;
                Ok((Reply::Int(i64::from(converted)), converted))
            }
            _ => Err(CmdError::err(format!("Unknown PFDEBUG subcommand '{sub_name}'"))),
        }
    });
    let (reply, converted) = outcome.ok_or_else(|| CmdError::err("The specified key does not exist"))??;
    if !converted {
        ctx.session.log_as = Some(vec![]);
    }
    Ok(reply)
}

/// PFSELFTEST: checks the register packing and the estimator (Redis's self test, with fewer
/// register rounds and elements, so it answers quickly in the playground too).
///
/// ```text
/// PFSELFTEST
/// ```
pub fn pfselftest(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    args.finish()?;
    let seed = ctx.now ^ ctx.session.id();
    match hll::selftest(seed, 10, 100_000, sparse_max()) {
        Ok(()) => Ok(Reply::Ok),
        Err(text) => Err(CmdError::Other(text)),
    }
}
