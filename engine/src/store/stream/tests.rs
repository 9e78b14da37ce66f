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

mod model {
    //! The stream against a Vec of (id, fields): appends, deletes, exact and approximate
    //! trims, ranges both ways with counts and exclusive bounds, lookups and the accounting.

    use proptest::prelude::*;

    use super::super::*;

    #[derive(Debug, Clone)]
    enum Op {
        /// Milliseconds forward (0: the next sequence), and a field count and length.
        Add(u8, u8, u8),
        /// The `n`th entry (modulo the length), or an ID no entry has.
        Del(u16, bool),
        MaxLen(u16, bool),
        /// An ID around the `n`th entry.
        MinId(u16, bool),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u8..4, 0u8..4, 0u8..40).prop_map(|(a, b, c)| Op::Add(a, b, c)),
            2 => (any::<u16>(), any::<bool>()).prop_map(|(n, miss)| Op::Del(n, miss)),
            1 => (0u16..300, any::<bool>()).prop_map(|(n, approx)| Op::MaxLen(n, approx)),
            1 => (any::<u16>(), any::<bool>()).prop_map(|(n, approx)| Op::MinId(n, approx)),
        ]
    }

    type Model = Vec<(StreamId, Vec<Vec<u8>>)>;

    fn pick(model: &Model, n: u16) -> StreamId {
        if model.is_empty() {
            StreamId::new(u64::from(n), 0)
        } else {
            model[n as usize % model.len()].0
        }
    }

    fn contents(s: &Stream, start: StreamId, end: StreamId, rev: bool, count: usize) -> Model {
        s.range(start, end, rev).take(count).map(|(id, f)| (id, f.into_iter().map(<[u8]>::to_vec).collect())).collect()
    }

    fn expected(model: &Model, start: StreamId, end: StreamId, rev: bool, count: usize) -> Model {
        let it = model.iter().filter(|(id, _)| *id >= start && *id <= end).cloned();
        if rev {
            it.rev().take(count).collect()
        } else {
            it.take(count).collect()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]

        #[test]
        fn matches_a_vec(ops in proptest::collection::vec(op(), 1..400), probes in proptest::collection::vec((any::<u16>(), any::<u16>(), 0usize..20, any::<bool>(), any::<bool>()), 8)) {
            let mut s = Stream::new();
            let mut model: Model = Vec::new();
            let mut last = StreamId::new(0, 0);
            for op in ops {
                match op {
                    Op::Add(step, n, len) => {
                        let id = if step == 0 { last.next().unwrap() } else { StreamId::new(last.ms + u64::from(step), 0) };
                        let fields: Vec<Vec<u8>> = (0..u16::from(n) * 2 + 2).map(|i| vec![b'a' + (i % 26) as u8; len as usize]).collect();
                        let refs: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
                        prop_assert_eq!(s.next_id(AddId::Explicit(id), 0), Ok(id));
                        s.append(id, &refs);
                        model.push((id, fields));
                        last = id;
                    }
                    Op::Del(n, miss) => {
                        let id = if miss { StreamId::new(last.ms + 1, 0) } else { pick(&model, n) };
                        let had = model.iter().any(|(x, _)| *x == id);
                        prop_assert_eq!(s.delete(id), had);
                        model.retain(|(x, _)| *x != id);
                    }
                    Op::MaxLen(n, approx) => {
                        let before = model.len();
                        let removed = s.trim(Trim::MaxLen(u64::from(n)), approx, 0) as usize;
                        if approx {
                            prop_assert!(before - removed >= (n as usize).min(before));
                        } else {
                            prop_assert_eq!(before - removed, (n as usize).min(before));
                        }
                        model.drain(..removed);
                    }
                    Op::MinId(n, approx) => {
                        let min = pick(&model, n);
                        let removed = s.trim(Trim::MinId(min), approx, 0) as usize;
                        let below = model.iter().filter(|(id, _)| *id < min).count();
                        if approx {
                            prop_assert!(removed <= below);
                        } else {
                            prop_assert_eq!(removed, below);
                        }
                        model.drain(..removed);
                    }
                }
                prop_assert_eq!(s.len() as usize, model.len());
                prop_assert_eq!(s.first_id(), model.first().map_or(MIN_ID, |e| e.0));
                prop_assert_eq!(s.heap_size(), s.heap_recount());
            }
            prop_assert_eq!(contents(&s, MIN_ID, MAX_ID, false, usize::MAX), model.clone());
            for (a, b, count, ex_a, ex_b) in probes {
                let (mut start, mut end) = (pick(&model, a), pick(&model, b));
                // Exclusive bounds, as XRANGE's `(` moves them.
                if ex_a { start = start.next().unwrap_or(MAX_ID); }
                if ex_b { end = end.prev().unwrap_or(MIN_ID); }
                for rev in [false, true] {
                    prop_assert_eq!(contents(&s, start, end, rev, count), expected(&model, start, end, rev, count));
                }
                let id = pick(&model, a);
                let want = model.iter().find(|(x, _)| *x == id).map(|(_, f)| f.clone());
                prop_assert_eq!(s.get(id).map(|f| f.into_iter().map(<[u8]>::to_vec).collect::<Vec<_>>()), want);
            }
            s.trim(Trim::MaxLen(0), false, 0);
            prop_assert_eq!(s.heap_size(), 0);
        }
    }
}
