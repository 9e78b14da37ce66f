//! Bytes → [`Value`]: every value type code Redis 2.6 to 7.2 writes for the types Vitrine
//! has, validated as `sanitize-dump-payload yes` does (collections are never empty, members
//! and fields are distinct, scores are numbers, compact encodings are well formed).

use std::collections::HashSet;

use super::primitives::Reader;
use super::{intset, listpack, stream, types, ziplist, Error, Value};

/// Redis 7.4's bound on a field's expiry (`EB_EXPIRE_TIME_MAX`, 2^48 - 1 ms).
const MAX_FIELD_EXPIRY: u64 = (1 << 48) - 1;

/// What a value of type `kind` needs to be refused with.
fn bad<T>(r: &Reader<'_>, what: &str) -> Result<T, Error> {
    r.err(format!("a damaged {what}"))
}

fn strings(r: &mut Reader<'_>) -> Result<Vec<Vec<u8>>, Error> {
    let n = r.count(1)?;
    (0..n).map(|_| r.string()).collect()
}

/// Refuses repeats (Redis: duplicate members or fields are a corrupt payload).
fn distinct<'a>(r: &Reader<'_>, items: impl Iterator<Item = &'a [u8]>, what: &str) -> Result<(), Error> {
    let mut seen = HashSet::new();
    for i in items {
        if !seen.insert(i) {
            return r.err(format!("a repeated {what}"));
        }
    }
    Ok(())
}

/// Pairs from a flat list (a listpack or ziplist of a hash or sorted set).
fn pairs(r: &Reader<'_>, items: Option<Vec<Vec<u8>>>, what: &str) -> Result<Vec<(Vec<u8>, Vec<u8>)>, Error> {
    let Some(items) = items.filter(|i| !i.is_empty() && i.len() % 2 == 0) else { return bad(r, what) };
    let mut out = Vec::with_capacity(items.len() / 2);
    let mut it = items.into_iter();
    while let (Some(a), Some(b)) = (it.next(), it.next()) {
        out.push((a, b));
    }
    Ok(out)
}

/// A score as a compact encoding holds it (its text).
fn score(r: &Reader<'_>, s: &[u8]) -> Result<f64, Error> {
    match std::str::from_utf8(s).ok().and_then(|t| t.parse::<f64>().ok()).filter(|f| !f.is_nan()) {
        Some(f) => Ok(f),
        None => r.err("a score that is not a number"),
    }
}

fn zset_from_pairs(r: &Reader<'_>, items: Option<Vec<Vec<u8>>>) -> Result<Value, Error> {
    let mut v = Vec::new();
    for (m, s) in pairs(r, items, "sorted set")? {
        let s = score(r, &s)?;
        v.push((m, s));
    }
    Ok(Value::ZSet(v))
}

/// Reads one value of type `kind` (the type byte already read).
pub fn read_value(r: &mut Reader<'_>, kind: u8) -> Result<Value, Error> {
    let value = match kind {
        types::STRING => Value::String(r.string()?),
        types::LIST => Value::List(strings(r)?),
        types::SET => Value::Set(strings(r)?),
        types::ZSET | types::ZSET_2 => {
            let n = r.count(2)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                let m = r.string()?;
                let s = if kind == types::ZSET_2 { r.double()? } else { r.text_double()? };
                if s.is_nan() {
                    return r.err("a NaN score");
                }
                v.push((m, s));
            }
            Value::ZSet(v)
        }
        types::HASH => {
            let n = r.count(2)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push((r.string()?, r.string()?));
            }
            Value::Hash(v)
        }
        types::HASH_ZIPMAP => match ziplist::read_zipmap(&r.string()?) {
            Some(v) => Value::Hash(v),
            None => return bad(r, "zipmap"),
        },
        types::LIST_ZIPLIST => match ziplist::read(&r.string()?) {
            Some(v) => Value::List(v),
            None => return bad(r, "ziplist"),
        },
        types::SET_INTSET => match intset::read(&r.string()?) {
            Some(v) => Value::Set(v.into_iter().map(|n| n.to_string().into_bytes()).collect()),
            None => return bad(r, "intset"),
        },
        types::SET_LISTPACK => match listpack::read_strings(&r.string()?) {
            Some(v) => Value::Set(v),
            None => return bad(r, "listpack"),
        },
        types::ZSET_ZIPLIST => {
            let z = r.string()?;
            zset_from_pairs(r, ziplist::read(&z))?
        }
        types::ZSET_LISTPACK => {
            let lp = r.string()?;
            zset_from_pairs(r, listpack::read_strings(&lp))?
        }
        types::HASH_ZIPLIST => {
            let z = r.string()?;
            Value::Hash(pairs(r, ziplist::read(&z), "hash")?)
        }
        types::HASH_LISTPACK => {
            let lp = r.string()?;
            Value::Hash(pairs(r, listpack::read_strings(&lp), "hash")?)
        }
        types::LIST_QUICKLIST | types::LIST_QUICKLIST_2 => {
            let nodes = r.count(2)?;
            let mut v = Vec::new();
            for _ in 0..nodes {
                let container = if kind == types::LIST_QUICKLIST_2 { r.length()? } else { 2 };
                let node = r.string()?;
                match container {
                    // A plain node: one large element.
                    1 => v.push(node),
                    2 => {
                        let items = if kind == types::LIST_QUICKLIST_2 {
                            listpack::read_strings(&node)
                        } else {
                            ziplist::read(&node)
                        };
                        // Redis skips an empty node; the list must still have elements.
                        match items {
                            Some(items) => v.extend(items),
                            None => return bad(r, "quicklist node"),
                        }
                    }
                    _ => return r.err(format!("unknown quicklist container {container}")),
                }
            }
            Value::List(v)
        }
        types::HASH_METADATA => {
            let min = r.millis()?;
            let n = r.count(3)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                let ttl = r.length()?;
                // 0: no TTL; else the expiry relative to the earliest one, plus 1.
                let at = match ttl {
                    0 => Some(0),
                    t => (t - 1).checked_add(min).filter(|&t| t <= MAX_FIELD_EXPIRY),
                };
                let Some(at) = at else { return r.err("a field TTL out of range") };
                v.push((r.string()?, r.string()?, at));
            }
            Value::HashTtl(v)
        }
        types::HASH_LISTPACK_EX => {
            let _min = r.millis()?;
            let lp = r.string()?;
            let items = listpack::read_strings(&lp).filter(|i| !i.is_empty() && i.len() % 3 == 0);
            let Some(items) = items else { return bad(r, "hash") };
            let mut v = Vec::with_capacity(items.len() / 3);
            let mut it = items.into_iter();
            while let (Some(f), Some(val), Some(t)) = (it.next(), it.next(), it.next()) {
                match crate::num::parse_i64(&t).and_then(|t| u64::try_from(t).ok()).filter(|&t| t <= MAX_FIELD_EXPIRY) {
                    Some(at) => v.push((f, val, at)),
                    None => return r.err("a field TTL out of range"),
                }
            }
            Value::HashTtl(v)
        }
        types::STREAM_LISTPACKS | types::STREAM_LISTPACKS_2 | types::STREAM_LISTPACKS_3 => {
            Value::Stream(Box::new(stream::read(r, kind)?))
        }
        types::MODULE_PRE_GA | types::MODULE_2 => return r.err("a module value, which Vitrine cannot load"),
        other => return r.err(format!("unknown value type {other}")),
    };
    check(r, &value)?;
    Ok(value)
}

/// The checks every encoding of a type shares.
fn check(r: &Reader<'_>, v: &Value) -> Result<(), Error> {
    let empty = match v {
        Value::String(_) | Value::Stream(_) => false,
        Value::List(l) => l.is_empty(),
        Value::Set(s) => {
            distinct(r, s.iter().map(Vec::as_slice), "set member")?;
            s.is_empty()
        }
        Value::ZSet(z) => {
            distinct(r, z.iter().map(|(m, _)| m.as_slice()), "sorted set member")?;
            z.is_empty()
        }
        Value::Hash(h) => {
            distinct(r, h.iter().map(|(f, _)| f.as_slice()), "hash field")?;
            h.is_empty()
        }
        Value::HashTtl(h) => {
            distinct(r, h.iter().map(|(f, _, _)| f.as_slice()), "hash field")?;
            h.is_empty()
        }
    };
    if empty {
        return r.err("an empty collection");
    }
    Ok(())
}

/// The value in a DUMP payload's body: a type byte, then the value. (Like Redis, bytes after
/// the value are not looked at: the checksum already vouched for them.)
pub fn read_body(body: &[u8]) -> Result<Value, Error> {
    let mut r = Reader::new(body);
    let kind = r.u8()?;
    read_value(&mut r, kind)
}
