//! Unit tests of the stream value: IDs, appends across blocks, ranges, deletes, trims and the
//! memory it holds.

use super::*;

fn id(ms: u64, seq: u64) -> StreamId {
    StreamId::new(ms, seq)
}

fn ids(r: Range<'_>) -> Vec<StreamId> {
    r.map(|(id, _)| id).collect()
}

fn filled(n: u64) -> Stream {
    let mut s = Stream::new();
    for i in 1..=n {
        s.append(id(i, 0), &[b"f", i.to_string().as_bytes()]);
    }
    s
}

#[test]
fn appends_span_blocks_and_ranges_read_them() {
    let s = filled(250);
    assert_eq!(s.len(), 250);
    assert_eq!(s.blocks(), 3);
    assert_eq!(ids(s.range(id(99, 0), id(102, 0), false)), [id(99, 0), id(100, 0), id(101, 0), id(102, 0)]);
    assert_eq!(ids(s.range(id(99, 0), id(102, 0), true)), [id(102, 0), id(101, 0), id(100, 0), id(99, 0)]);
    assert_eq!(s.range(MIN_ID, MAX_ID, true).take(2).count(), 2);
    assert_eq!(s.range(MIN_ID, MAX_ID, false).count(), 250);
    assert_eq!(s.get(id(150, 0)), Some(vec![&b"f"[..], b"150"]));
    assert_eq!(s.get(id(150, 1)), None);
    assert_eq!(s.first_id(), id(1, 0));
    assert!(ids(s.range(id(5, 0), id(4, 0), false)).is_empty());
}

#[test]
fn next_id_follows_redis() {
    let mut s = Stream::new();
    assert_eq!(s.next_id(AddId::Auto, 5), Ok(id(5, 0)));
    assert_eq!(s.next_id(AddId::Explicit(MIN_ID), 5), Err(AddError::TooSmall));
    s.append(id(5, 0), &[b"a", b"b"]);
    assert_eq!(s.next_id(AddId::Auto, 5), Ok(id(5, 1)));
    assert_eq!(s.next_id(AddId::Auto, 3), Ok(id(5, 1)));
    assert_eq!(s.next_id(AddId::AutoSeq(5), 0), Ok(id(5, 1)));
    assert_eq!(s.next_id(AddId::AutoSeq(4), 0), Err(AddError::TooSmall));
    assert_eq!(s.next_id(AddId::Explicit(id(5, 0)), 0), Err(AddError::TooSmall));
    s.set_id(MAX_ID, None, None);
    assert_eq!(s.next_id(AddId::Auto, 0), Err(AddError::Exhausted));
}

#[test]
fn delete_flags_then_frees_blocks() {
    let mut s = filled(150);
    assert!(s.delete(id(1, 0)));
    assert!(!s.delete(id(1, 0)));
    assert_eq!(s.first_id(), id(2, 0));
    assert_eq!(s.max_deleted_id(), id(1, 0));
    for i in 2..=100 {
        assert!(s.delete(id(i, 0)));
    }
    assert_eq!(s.blocks(), 1);
    assert_eq!(s.len(), 50);
    assert_eq!(s.max_deleted_id(), id(100, 0));
}

#[test]
fn trims_by_maxlen_and_minid() {
    let mut s = filled(250);
    assert_eq!(s.trim(Trim::MaxLen(180), true, 0), 0);
    assert_eq!(s.trim(Trim::MaxLen(150), true, 0), 100);
    assert_eq!(s.trim(Trim::MaxLen(140), false, 0), 10);
    assert_eq!(s.first_id(), id(111, 0));
    // The block of 101..=200 ends at 200, which is not below 200.
    assert_eq!(s.trim(Trim::MinId(id(200, 0)), true, 0), 0);
    assert_eq!(s.trim(Trim::MinId(id(201, 0)), true, 0), 90);
    assert_eq!(s.trim(Trim::MinId(id(205, 0)), false, 0), 4);
    assert_eq!(s.first_id(), id(205, 0));
    assert_eq!(s.trim(Trim::MaxLen(0), true, 10), 0);
    assert_eq!(s.trim(Trim::MaxLen(0), false, 0), 46);
    assert!(s.is_empty());
    assert_eq!(s.entries_added(), 250);
    assert_eq!(s.last_id(), id(250, 0));
}

#[test]
fn memory_returns_to_empty() {
    let mut s = Stream::new();
    let empty = s.heap_size();
    for i in 1..=1000u64 {
        s.append(id(i, 0), &[b"field", &i.to_le_bytes()]);
    }
    let full = s.heap_size();
    assert!(full > 1000 * 16 && full < 1000 * 40, "{full}");
    for i in (1..=1000u64).filter(|i| i % 3 != 0) {
        s.delete(id(i, 0));
    }
    assert!(s.heap_size() < full * 3 / 4, "compacted: {} of {full}", s.heap_size());
    s.trim(Trim::MaxLen(0), false, 0);
    assert_eq!(s.heap_size(), empty);
}
