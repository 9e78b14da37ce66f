//! [`Value`] → the store's value, built with the same calls the commands that create each
//! type make (RPUSH, SADD, ZADD, HSET, XADD), so a restored key has the encoding and the
//! accounted memory a key built by those commands has.

use super::{stream, Value};
use crate::store::entry::Value as Stored;
use crate::store::hash::HashValue;
use crate::store::list::ListValue;
use crate::store::set::SetValue;
use crate::store::zset::ZSetValue;

/// The store's value for `v`; `None` when nothing of it is left at `now_ms` (a hash whose
/// fields have all expired).
pub fn build(v: &Value, now_ms: u64) -> Option<Stored> {
    Some(match v {
        Value::String(s) => Stored::Str(s.clone()),
        Value::List(items) => Stored::List(Box::new(ListValue::from_elems(items))),
        Value::Set(members) => {
            let first = members.first().map_or(&[][..], Vec::as_slice);
            let mut s = SetValue::for_members(first, members.len());
            s.expect_members(members.len());
            for m in members {
                s.add(m);
            }
            Stored::Set(Box::new(s))
        }
        Value::ZSet(items) => {
            let mut z = ZSetValue::new();
            // Redis's loader picks the encoding for the whole set up front (by count and
            // longest member), so no score takes a trip through a listpack's text first
            // (which would turn -0 into 0).
            z.expect_members(items.len(), items.iter().map(|(m, _)| m.len()).max().unwrap_or(0));
            for (m, score) in items {
                z.insert(m, *score);
            }
            Stored::ZSet(Box::new(z))
        }
        Value::Hash(pairs) => {
            let mut h = HashValue::new();
            h.expect_fields(pairs.len());
            for (f, v) in pairs {
                h.set(f, v);
            }
            Stored::Hash(Box::new(h))
        }
        Value::HashTtl(fields) => {
            // Fields already expired are left out, as Redis 7.4 loads them.
            let live: Vec<_> = fields.iter().filter(|(_, _, at)| *at == 0 || *at > now_ms).collect();
            if live.is_empty() {
                return None;
            }
            let mut h = HashValue::new();
            h.expect_fields(live.len());
            for (f, v, _) in &live {
                h.set(f, v);
            }
            for (f, _, at) in &live {
                if *at != 0 {
                    h.set_field_expiry(f, *at);
                }
            }
            Stored::Hash(Box::new(h))
        }
        Value::Stream(s) => Stored::Stream(Box::new(stream::build(s))),
    })
}
