//! A stream's entries for the key view, a page at a time: newest or oldest first, from a
//! cursor that is the last ID shown (the next page starts just past it), with the stream's
//! own facts (length, first and last ID, entries added, largest deleted ID). Like every view
//! it counts no keyspace hit and leaves the key's LRU/LFU stamps alone. Consumer groups get
//! their own view beside it.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::keys::not_found;
use super::{Bytes, Refusal, Status};
use crate::store::entry::ValueRef;
use crate::store::stream::{StreamId, MAX_ID, MIN_ID};
use crate::Engine;

/// Most entries one page may ask for.
pub const MAX_ENTRIES: usize = 1000;
/// Entries a page holds when the query does not say.
pub const DEFAULT_ENTRIES: usize = 50;

/// The query of one page (`GET /api/stream-entries/{key}?db=&order=&cursor=&count=`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamQuery {
    pub db: Option<usize>,
    /// `newest` (the default) or `oldest` first.
    pub order: Option<String>,
    /// The last ID of the previous page; empty to start at the newest (or oldest) entry.
    pub cursor: Option<String>,
    /// Entries per page (1 to [`MAX_ENTRIES`], default [`DEFAULT_ENTRIES`]).
    pub count: Option<usize>,
}

/// One entry: its ID and its field-value pairs in order.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct StreamEntryView {
    pub id: String,
    pub fields: Vec<(Bytes, Bytes)>,
}

/// One page of a stream's entries.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct StreamPage {
    pub length: u64,
    /// The first entry's ID, `0-0` when empty.
    pub first_id: String,
    /// The largest ID the stream has given out (XADD's next must be above it).
    pub last_id: String,
    pub entries_added: u64,
    pub max_deleted_id: String,
    pub newest_first: bool,
    pub entries: Vec<StreamEntryView>,
    /// The cursor of the next page; `null` when this one reached the end.
    pub next_cursor: Option<String>,
}

fn bad(message: &str) -> Refusal {
    Refusal::new(Status::BadRequest, "bad_parameter", message)
}

/// One page of the stream at `key` in database `db`: refused (404) when there is no such key,
/// (422) when it holds another type, (400) on a bad query.
pub fn stream_page(
    engine: &Engine,
    db: usize,
    key: &[u8],
    q: &StreamQuery,
    now_ms: u64,
) -> Result<StreamPage, Refusal> {
    let newest_first = match q.order.as_deref() {
        None | Some("") | Some("newest") => true,
        Some("oldest") => false,
        Some(_) => return Err(bad("order must be newest or oldest")),
    };
    let count = match q.count {
        None => DEFAULT_ENTRIES,
        Some(n @ 1..=MAX_ENTRIES) => n,
        Some(_) => return Err(bad(&format!("count must be between 1 and {MAX_ENTRIES}"))),
    };
    let after = match q.cursor.as_deref() {
        None | Some("") => None,
        Some(c) => Some(StreamId::parse(c.as_bytes(), 0, true).map_err(|_| bad("cursor must be a stream ID"))?),
    };
    let store = engine.store();
    let mut locked = store.lock_keys(db, [key]);
    let entry = locked.peek(key, now_ms).ok_or_else(|| not_found(key))?;
    let ValueRef::Stream(s) = entry.value else {
        return Err(Refusal::new(Status::Unprocessable, "wrong_type", "the key holds no stream"));
    };
    // The page continues past the cursor, in the page's direction.
    let (start, end) = match (after, newest_first) {
        (None, _) => (MIN_ID, MAX_ID),
        (Some(id), true) => (MIN_ID, id.prev().unwrap_or(MIN_ID)),
        (Some(id), false) => (id.next().unwrap_or(MAX_ID), MAX_ID),
    };
    let empty_range = matches!((after, newest_first), (Some(id), true) if id == MIN_ID)
        || matches!((after, newest_first), (Some(id), false) if id == MAX_ID);
    let mut entries: Vec<StreamEntryView> = if empty_range {
        Vec::new()
    } else {
        s.range(start, end, newest_first)
            .take(count + 1)
            .map(|(id, fields)| StreamEntryView {
                id: id.to_string(),
                fields: fields
                    .chunks(2)
                    .map(|p| (Bytes::from(p[0]), Bytes::from(p.get(1).copied().unwrap_or_default())))
                    .collect(),
            })
            .collect()
    };
    // One more than asked says whether there is a next page.
    let more = entries.len() > count;
    entries.truncate(count);
    Ok(StreamPage {
        length: s.len(),
        first_id: s.first_id().to_string(),
        last_id: s.last_id().to_string(),
        entries_added: s.entries_added(),
        max_deleted_id: s.max_deleted_id().to_string(),
        newest_first,
        next_cursor: if more { entries.last().map(|e| e.id.clone()) } else { None },
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;

    fn page(t: &TestEngine, order: &str, cursor: Option<&str>, count: usize) -> Result<StreamPage, Refusal> {
        let q = StreamQuery { db: None, order: Some(order.into()), cursor: cursor.map(Into::into), count: Some(count) };
        stream_page(&t.engine, 0, b"s", &q, t.now)
    }

    fn ids(p: &StreamPage) -> Vec<&str> {
        p.entries.iter().map(|e| e.id.as_str()).collect()
    }

    #[test]
    fn pages_by_id_both_ways() {
        let mut t = TestEngine::default();
        for i in 1..=5 {
            t.run(&["XADD", "s", &format!("{i}-0"), "f", &i.to_string(), "g", "x"]);
        }
        t.run(&["XDEL", "s", "5-0"]);
        let p = page(&t, "newest", None, 2).unwrap();
        assert_eq!((ids(&p), p.next_cursor.as_deref()), (vec!["4-0", "3-0"], Some("3-0")));
        assert_eq!((p.length, p.last_id.as_str(), p.max_deleted_id.as_str(), p.entries_added), (4, "5-0", "5-0", 5));
        assert_eq!(
            p.entries[0].fields,
            vec![(Bytes::from(&b"f"[..]), Bytes::from(&b"4"[..])), (Bytes::from(&b"g"[..]), Bytes::from(&b"x"[..]))]
        );
        let p = page(&t, "newest", Some("3-0"), 2).unwrap();
        assert_eq!((ids(&p), p.next_cursor.as_deref()), (vec!["2-0", "1-0"], None));
        let p = page(&t, "oldest", Some("2-0"), 10).unwrap();
        assert_eq!((ids(&p), p.first_id.as_str()), (vec!["3-0", "4-0"], "1-0"));
        assert!(page(&t, "newest", Some("0-0"), 2).unwrap().entries.is_empty());
        assert_eq!(page(&t, "sideways", None, 2).unwrap_err().status, Status::BadRequest);
        assert_eq!(page(&t, "newest", Some("x"), 2).unwrap_err().status, Status::BadRequest);
        assert_eq!(page(&t, "newest", None, 0).unwrap_err().status, Status::BadRequest);
        t.run(&["SET", "s", "v"]);
        assert_eq!(page(&t, "newest", None, 2).unwrap_err().status, Status::Unprocessable);
        t.run(&["DEL", "s"]);
        assert_eq!(page(&t, "newest", None, 2).unwrap_err().status, Status::NotFound);
    }
}
