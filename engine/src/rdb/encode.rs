//! The store's value → its RDB type code and bytes, in the encodings Redis 7.0 writes for
//! it (type codes of RDB version 10), chosen by the same size limits Redis uses, so
//! redis-server 7.0 and later RESTORE what Vitrine DUMPs and the bytes look like Redis's.

use super::primitives::{save_double, save_len, save_millis, save_string, save_string_object};
use super::{intset, listpack, stream, types, RDB_VERSION, RDB_VERSION_FIELD_TTLS};
use crate::num::{format_g17, parse_i64};
use crate::store::encodings;
use crate::store::entry::ValueRef;
use crate::store::hash::HashValue;
use crate::store::list::ListValue;

/// Redis's `SIZE_ESTIMATE_OVERHEAD`: what a quicklist node counts per element beyond its bytes.
const SIZE_ESTIMATE_OVERHEAD: usize = 8;
/// Redis's `SIZE_SAFETY_LIMIT`: a node past this takes no more elements under a count limit.
const SIZE_SAFETY_LIMIT: usize = 8192;

/// A score as a listpack holds it (Redis's `d2string`): integral values within ±2^62 as
/// integers, others as `%.17g`.
fn score_text(d: f64) -> Vec<u8> {
    if d.is_infinite() {
        return if d > 0.0 { b"inf".to_vec() } else { b"-inf".to_vec() };
    }
    let half = (i64::MAX / 2) as f64;
    if d != 0.0 && (-half..=half).contains(&d) && d.fract() == 0.0 {
        return (d as i64).to_string().into_bytes();
    }
    format_g17(d).into_bytes()
}

/// The value's type code and bytes, and the RDB version a payload of it needs.
pub fn encode(v: ValueRef<'_>) -> (Vec<u8>, u16) {
    let mut out = Vec::new();
    let mut version = RDB_VERSION;
    match v {
        ValueRef::Str(s) => {
            out.push(types::STRING);
            save_string_object(&mut out, s);
        }
        ValueRef::List(l) => {
            out.push(types::LIST_QUICKLIST_2);
            list(&mut out, l);
        }
        ValueRef::Set(s) if s.encoding() == "intset" => {
            let mut ints: Vec<i64> = s.iter().filter_map(parse_i64).collect();
            out.push(types::SET_INTSET);
            save_string(&mut out, &intset::write(&mut ints));
        }
        ValueRef::Set(s) => {
            // Redis 7.0 has no listpack sets: a small set is a hash table there.
            out.push(types::SET);
            save_len(&mut out, s.len() as u64);
            for m in s.iter() {
                save_string(&mut out, m);
            }
        }
        ValueRef::ZSet(z) if !z.is_big() => {
            out.push(types::ZSET_LISTPACK);
            let mut lp = listpack::Writer::new();
            for (m, score) in z.iter() {
                lp.push(m);
                lp.push(&score_text(score));
            }
            save_string(&mut out, &lp.finish());
        }
        ValueRef::ZSet(z) => {
            out.push(types::ZSET_2);
            save_len(&mut out, z.len() as u64);
            // Highest first, as Redis walks its skiplist from the tail.
            let items: Vec<_> = z.iter().collect();
            for (m, score) in items.into_iter().rev() {
                save_string(&mut out, m);
                save_double(&mut out, score);
            }
        }
        ValueRef::Hash(h) if h.has_field_ttls() => {
            out.push(types::HASH_METADATA);
            hash_with_ttls(&mut out, h);
            version = RDB_VERSION_FIELD_TTLS;
        }
        ValueRef::Hash(h) if !h.is_big() => {
            out.push(types::HASH_LISTPACK);
            let mut lp = listpack::Writer::new();
            for (f, v) in h.iter() {
                lp.push(f);
                lp.push(v);
            }
            save_string(&mut out, &lp.finish());
        }
        ValueRef::Hash(h) => {
            out.push(types::HASH);
            save_len(&mut out, h.len() as u64);
            for (f, v) in h.iter() {
                save_string(&mut out, f);
                save_string(&mut out, v);
            }
        }
        ValueRef::Stream(s) => {
            out.push(types::STREAM_LISTPACKS_2);
            stream::write(&mut out, s);
        }
    }
    (out, version)
}

/// A list as Redis 7.0's quicklist saves it: listpack nodes filled to
/// `list-max-listpack-size` (by bytes, or by count under the safety limit).
fn list(out: &mut Vec<u8>, l: &ListValue) {
    let (max_bytes, max_count) = encodings::current().list_limits();
    let mut nodes: Vec<Vec<u8>> = Vec::new();
    let mut node = listpack::Writer::new();
    for e in l.iter() {
        if !node.is_empty() {
            let new_size = node.bytes() + e.len() + SIZE_ESTIMATE_OVERHEAD;
            let full = if max_count == usize::MAX {
                new_size > max_bytes
            } else {
                node.len() >= max_count || new_size > SIZE_SAFETY_LIMIT
            };
            if full {
                nodes.push(std::mem::take(&mut node).finish());
            }
        }
        node.push(e);
    }
    if !node.is_empty() {
        nodes.push(node.finish());
    }
    save_len(out, nodes.len() as u64);
    for n in &nodes {
        // Container 2: a packed (listpack) node.
        save_len(out, 2);
        save_string(out, n);
    }
}

/// Redis 7.4's RDB_TYPE_HASH_METADATA: the earliest field expiry, then each field's TTL
/// (0 = none, else its expiry minus the earliest plus 1), field and value.
fn hash_with_ttls(out: &mut Vec<u8>, h: &HashValue) {
    let min = h.next_field_expiry().unwrap_or(0);
    save_millis(out, min);
    save_len(out, h.len() as u64);
    for (f, v) in h.iter() {
        save_len(out, h.field_expiry(f).map_or(0, |at| at - min + 1));
        save_string(out, f);
        save_string(out, v);
    }
}
