//! A string's value as bits for the key view: a window of its bytes (each shown as eight bits
//! with its offset) and the count of set bits in the whole string and in the window. Like
//! every view it counts no keyspace hit and leaves the key's LRU/LFU stamps alone.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::keys::not_found;
use super::{Refusal, Status};
use crate::cmd::bitmap::ops::popcount;
use crate::store::entry::ValueRef;
use crate::Engine;

/// Most bytes one window may ask for.
pub const MAX_BYTES: usize = 4096;
/// Bytes a window holds when the query does not say.
pub const DEFAULT_BYTES: usize = 256;

/// The query of one window (`GET /api/string-bits/{key}?db=&offset=&count=`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BitsQuery {
    pub db: Option<usize>,
    /// The first byte shown (default 0).
    pub offset: Option<u64>,
    /// Bytes shown (1 to [`MAX_BYTES`], default [`DEFAULT_BYTES`]).
    pub count: Option<usize>,
}

/// A window of a string's bytes, for showing as bits.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct StringBits {
    /// The string's length in bytes.
    pub length: u64,
    /// Set bits in the whole string (BITCOUNT).
    pub bitcount: u64,
    /// The window's first byte.
    pub offset: u64,
    /// The window's bytes, each 0 to 255.
    pub bytes: Vec<u8>,
    /// Set bits in the window.
    pub window_bitcount: u64,
    /// The next window's offset; `null` when this one reached the end.
    pub next_offset: Option<u64>,
}

/// A window of the string at `key` in database `db`: refused (404) when there is no such key,
/// (422) when it holds another type, (400) on a bad count.
pub fn string_bits(engine: &Engine, db: usize, key: &[u8], q: &BitsQuery, now_ms: u64) -> Result<StringBits, Refusal> {
    let count = match q.count {
        None => DEFAULT_BYTES,
        Some(n @ 1..=MAX_BYTES) => n,
        Some(_) => {
            let message = format!("count must be between 1 and {MAX_BYTES}");
            return Err(Refusal::new(Status::BadRequest, "bad_parameter", &message));
        }
    };
    let store = engine.store();
    let mut locked = store.lock_keys(db, [key]);
    let entry = locked.peek(key, now_ms).ok_or_else(|| not_found(key))?;
    let ValueRef::Str(s) = entry.value else {
        return Err(Refusal::new(Status::Unprocessable, "wrong_type", "the key holds no string"));
    };
    let count_all = |b: &[u8]| if b.is_empty() { 0 } else { popcount(b, 0, b.len() as u64 * 8 - 1) };
    let start = usize::try_from(q.offset.unwrap_or(0)).unwrap_or(usize::MAX).min(s.len());
    let end = start.saturating_add(count).min(s.len());
    let window = &s[start..end];
    Ok(StringBits {
        length: s.len() as u64,
        bitcount: count_all(s),
        offset: start as u64,
        bytes: window.to_vec(),
        window_bitcount: count_all(window),
        next_offset: (end < s.len()).then_some(end as u64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;

    fn window(t: &TestEngine, offset: Option<u64>, count: Option<usize>) -> Result<StringBits, Refusal> {
        string_bits(&t.engine, 0, b"k", &BitsQuery { db: None, offset, count }, t.now)
    }

    #[test]
    fn windows_a_string_with_its_bit_counts() {
        let mut t = TestEngine::default();
        t.run(&["SETBIT", "k", "7", "1"]);
        t.run(&["SETBIT", "k", "8", "1"]);
        t.run(&["SETBIT", "k", "100", "1"]);
        let w = window(&t, None, Some(2)).unwrap();
        assert_eq!((w.length, w.bitcount, w.bytes.as_slice(), w.window_bitcount), (13, 3, &[1, 128][..], 2));
        assert_eq!(w.next_offset, Some(2));
        let w = window(&t, Some(12), None).unwrap();
        assert_eq!((w.offset, w.bytes.as_slice(), w.next_offset), (12, &[8][..], None));
        let w = window(&t, Some(99), None).unwrap();
        assert_eq!((w.offset, w.bytes.len(), w.window_bitcount), (13, 0, 0));
        assert_eq!(window(&t, None, Some(0)).unwrap_err().status, Status::BadRequest);
        // Looking is not a read: no hit counted.
        assert_eq!(t.engine.stats().keyspace.hits.load(std::sync::atomic::Ordering::Relaxed), 0);
        t.run(&["LPUSH", "k2", "x"]);
        let q = BitsQuery::default();
        assert_eq!(string_bits(&t.engine, 0, b"k2", &q, t.now).unwrap_err().status, Status::Unprocessable);
        assert_eq!(string_bits(&t.engine, 0, b"none", &q, t.now).unwrap_err().status, Status::NotFound);
    }
}
