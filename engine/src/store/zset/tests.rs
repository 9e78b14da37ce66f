//! Unit tests of the sorted-set value: order, encodings, bounds, pops, ZSCAN, memory, and a
//! model test against a sorted `Vec` that checks the tree's invariants after every step.

use super::*;
use proptest::prelude::*;

fn zset(pairs: &[(&str, f64)]) -> ZSetValue {
    let mut z = ZSetValue::new();
    for (m, s) in pairs {
        z.insert(m.as_bytes(), *s);
    }
    z.check();
    z
}

fn members(it: impl Iterator<Item = (impl AsRef<[u8]>, f64)>) -> Vec<String> {
    it.map(|(m, _)| String::from_utf8_lossy(m.as_ref()).into_owned()).collect()
}

#[test]
fn orders_by_score_then_member() {
    let z = zset(&[("b", 1.0), ("a", 1.0), ("c", 0.5), ("d", f64::INFINITY), ("e", f64::NEG_INFINITY)]);
    assert_eq!(members(z.iter()), ["e", "c", "a", "b", "d"]);
    assert_eq!(z.rank(b"a"), Some(2));
    assert_eq!(z.rank(b"zz"), None);
    assert_eq!(z.score(b"d"), Some(f64::INFINITY));
    assert_eq!(members(z.range(1, 3, true)), ["b", "a", "c"]);
    assert_eq!(members(z.range(3, 10, false)), ["b", "d"]);
    assert_eq!(members(z.range(5, 1, false)), Vec::<String>::new());
}

#[test]
fn insert_reports_what_changed() {
    let mut z = ZSetValue::new();
    assert_eq!(z.insert(b"a", 1.0), Insert::Added);
    assert_eq!(z.insert(b"a", 1.0), Insert::Unchanged);
    assert_eq!(z.insert(b"a", 2.0), Insert::Updated);
    assert_eq!(z.score(b"a"), Some(2.0));
    assert!(z.remove(b"a"));
    assert!(!z.remove(b"a"));
    assert!(z.is_empty());
    assert_eq!(z.heap_size(), 0);
}

#[test]
fn negative_zero_reads_back_as_zero_while_small() {
    let mut z = ZSetValue::new();
    z.insert(b"a", -0.0);
    assert!(z.score(b"a").unwrap().is_sign_positive());
    z.insert(&[b'x'; 65], -0.0);
    assert!(z.is_big());
    assert!(z.score(&[b'x'; 65]).unwrap().is_sign_negative());
}

#[test]
fn encoding_turns_big_and_stays_big() {
    let mut z = ZSetValue::new();
    for i in 0..crate::store::encodings::Thresholds::DEFAULT.zset_max_listpack_entries {
        z.insert(i.to_string().as_bytes(), i as f64);
    }
    assert_eq!(z.encoding(), "listpack");
    z.insert(b"one more", 0.0);
    assert_eq!(z.encoding(), "skiplist");
    loop {
        let Some(first) = z.iter().next().map(|(m, _)| m.to_vec()) else { break };
        z.remove(&first);
        z.check();
    }
    assert_eq!(z.encoding(), "skiplist");
    assert_eq!(z.heap_size(), 0);
    let mut z = ZSetValue::new();
    z.insert(&[b'x'; 64], 0.0);
    assert_eq!(z.encoding(), "listpack");
    z.insert(&[b'x'; 65], 0.0);
    assert_eq!(z.encoding(), "skiplist");
}

#[test]
fn bounds_by_score_and_lex() {
    let z = zset(&[("a", 1.0), ("b", 2.0), ("c", 2.0), ("d", 3.0)]);
    let b = |value, exclusive| ScoreBound { value, exclusive };
    assert_eq!(z.score_ranks(b(2.0, false), b(2.0, false)), 1..3);
    assert_eq!(z.score_ranks(b(2.0, true), b(f64::INFINITY, false)), 3..4);
    assert_eq!(z.score_ranks(b(f64::NEG_INFINITY, false), b(2.0, true)), 0..1);
    assert_eq!(z.score_ranks(b(3.0, false), b(1.0, false)), 3..3);
    assert_eq!(z.score_ranks(b(2.0, true), b(2.0, false)), 3..3);
    let z = zset(&[("a", 0.0), ("b", 0.0), ("c", 0.0), ("d", 0.0)]);
    let (i, e) = (|s: &str| LexBound::Inclusive(s.into()), |s: &str| LexBound::Exclusive(s.into()));
    assert_eq!(z.lex_ranks(&LexBound::Min, &LexBound::Max), 0..4);
    assert_eq!(z.lex_ranks(&i("b"), &e("d")), 1..3);
    assert_eq!(z.lex_ranks(&e("b"), &i("bb")), 2..2);
    assert_eq!(z.lex_ranks(&LexBound::Max, &LexBound::Min), 4..4);
    assert_eq!(z.lex_ranks(&i(""), &i("c")), 0..3);
}

#[test]
fn pops_and_rank_removals() {
    let mut z = zset(&[("a", 1.0), ("b", 2.0), ("c", 3.0), ("d", 4.0), ("e", 5.0)]);
    assert_eq!(members(z.pop(2, true).into_iter()), ["e", "d"]);
    assert_eq!(members(z.pop(1, false).into_iter()), ["a"]);
    assert_eq!(z.remove_ranks(1..10), 1);
    assert_eq!(members(z.iter()), ["b"]);
    assert_eq!(members(z.pop(10, false).into_iter()), ["b"]);
    assert!(z.is_empty() && z.heap_size() == 0);
}

#[test]
fn scan_visits_every_member_that_stays() {
    let mut z = ZSetValue::new();
    for i in 0..500 {
        z.insert(format!("m{i}").as_bytes(), i as f64);
    }
    let mut seen = std::collections::HashSet::new();
    let mut cursor = 0;
    let mut removed = 0;
    loop {
        cursor = z.scan(cursor, 7, |m, _| {
            seen.insert(m.to_vec());
        });
        // Remove members as we go: those that stay must still all be seen.
        if removed < 200 {
            z.remove(format!("m{}", removed * 2).as_bytes());
            removed += 1;
        }
        if cursor == 0 {
            break;
        }
    }
    for (m, _) in z.iter() {
        assert!(seen.contains(m), "{:?} missed", String::from_utf8_lossy(m));
    }
}

#[test]
fn from_distinct_builds_a_balanced_tree() {
    let pairs: Vec<(Box<[u8]>, f64)> =
        (0..300).map(|i| (format!("m{i}").into_bytes().into(), (i % 7) as f64)).collect();
    let z = ZSetValue::from_distinct(pairs);
    z.check();
    assert_eq!(z.len(), 300);
    assert!(z.is_big());
    assert_eq!(z.rank(b"m0"), Some(0));
    let small = ZSetValue::from_distinct(vec![(b"a".to_vec().into(), -0.0)]);
    assert_eq!(small.encoding(), "listpack");
    assert!(small.score(b"a").unwrap().is_sign_positive());
}

#[test]
fn memory_shrinks_with_the_set() {
    let mut z = ZSetValue::new();
    for i in 0..10_000 {
        z.insert(format!("member:{i}").as_bytes(), i as f64);
    }
    let big_cap = z.nodes.capacity();
    for i in 0..9_990 {
        z.remove(format!("member:{i}").as_bytes());
    }
    z.check();
    assert!(z.nodes.capacity() < big_cap / 100, "arena stayed at {}", z.nodes.capacity());
    assert!(z.map.capacity() < 1000);
    assert_eq!(members(z.range(0, 2, false)), ["member:9990", "member:9991"]);
}

/// One step of the model test.
#[derive(Debug, Clone)]
enum Op {
    Insert(u8, i8),
    Remove(u8),
    Pop(u8, bool),
    RemoveRanks(u8, u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (any::<u8>(), -8i8..8).prop_map(|(m, s)| Op::Insert(m, s)),
        3 => any::<u8>().prop_map(Op::Remove),
        1 => (0u8..4, any::<bool>()).prop_map(|(n, max)| Op::Pop(n, max)),
        1 => (any::<u8>(), 0u8..6).prop_map(|(a, n)| Op::RemoveRanks(a, n)),
    ]
}

fn name(m: u8) -> Vec<u8> {
    // Short and long members, some sharing prefixes, so ties by member matter.
    if m.is_multiple_of(5) {
        format!("long-member-{m:03}-{}", "x".repeat(60)).into_bytes()
    } else {
        format!("m{}", m % 64).into_bytes()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The tree against a sorted Vec: contents, order, ranks, score and lex bounds.
    #[test]
    fn matches_a_sorted_vec(ops in proptest::collection::vec(op(), 1..300), probe in -9i8..9) {
        let mut z = ZSetValue::new();
        let mut model: Vec<(f64, Vec<u8>)> = Vec::new();
        let sort = |m: &mut Vec<(f64, Vec<u8>)>| m.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap().then(a.1.cmp(&b.1)));
        for op in ops {
            match op {
                Op::Insert(m, s) => {
                    let (m, s) = (name(m), f64::from(s) / 2.0);
                    z.insert(&m, s);
                    model.retain(|(_, x)| *x != m);
                    model.push((s, m));
                    sort(&mut model);
                }
                Op::Remove(m) => {
                    let m = name(m);
                    let had = model.iter().any(|(_, x)| *x == m);
                    prop_assert_eq!(z.remove(&m), had);
                    model.retain(|(_, x)| *x != m);
                }
                Op::Pop(n, max) => {
                    let got: Vec<Vec<u8>> = z.pop(n as usize, max).into_iter().map(|(m, _)| m.into()).collect();
                    let k = (n as usize).min(model.len());
                    let want: Vec<Vec<u8>> = if max {
                        model.drain(model.len() - k..).rev().map(|(_, m)| m).collect()
                    } else {
                        model.drain(..k).map(|(_, m)| m).collect()
                    };
                    prop_assert_eq!(got, want);
                }
                Op::RemoveRanks(a, n) => {
                    let a = a as usize % (model.len() + 1);
                    let end = (a + n as usize).min(model.len());
                    prop_assert_eq!(z.remove_ranks(a..a + n as usize), end - a);
                    model.drain(a..end);
                }
            }
            z.check();
        }
        let got: Vec<(f64, Vec<u8>)> = z.iter().map(|(m, s)| (s, m.to_vec())).collect();
        prop_assert_eq!(&got, &model);
        for (i, (s, m)) in model.iter().enumerate() {
            prop_assert_eq!(z.rank(m), Some(i));
            prop_assert_eq!(z.score(m), Some(*s));
            let at: Vec<Vec<u8>> = z.range(i, 1, false).map(|(m, _)| m.to_vec()).collect();
            prop_assert_eq!(at, vec![m.clone()]);
        }
        let x = f64::from(probe) / 2.0;
        let below = model.iter().filter(|(s, _)| *s < x).count();
        let at_most = model.iter().filter(|(s, _)| *s <= x).count();
        let inf = ScoreBound { value: f64::INFINITY, exclusive: false };
        prop_assert_eq!(z.score_ranks(ScoreBound { value: x, exclusive: false }, inf), below..model.len());
        prop_assert_eq!(z.score_ranks(ScoreBound { value: x, exclusive: true }, inf), at_most..model.len());
        let neg = ScoreBound { value: f64::NEG_INFINITY, exclusive: false };
        prop_assert_eq!(z.score_ranks(neg, ScoreBound { value: x, exclusive: true }), 0..below);
        let rev: Vec<Vec<u8>> = z.range(0, model.len(), true).map(|(m, _)| m.to_vec()).collect();
        let want: Vec<Vec<u8>> = model.iter().rev().map(|(_, m)| m.clone()).collect();
        prop_assert_eq!(rev, want);
        // Lex bounds over a set of equal scores built from the same members.
        let flat = ZSetValue::from_distinct(model.iter().map(|(_, m)| (m.clone().into_boxed_slice(), 0.0)).collect());
        flat.check();
        let mut names: Vec<Vec<u8>> = model.iter().map(|(_, m)| m.clone()).collect();
        names.sort();
        let pivot = name(probe as u8);
        let lt = names.iter().filter(|m| **m < pivot).count();
        let le = names.iter().filter(|m| **m <= pivot).count();
        prop_assert_eq!(flat.lex_ranks(&LexBound::Inclusive(pivot.clone()), &LexBound::Max), lt..names.len());
        prop_assert_eq!(flat.lex_ranks(&LexBound::Exclusive(pivot.clone()), &LexBound::Max), le..names.len());
        prop_assert_eq!(flat.lex_ranks(&LexBound::Min, &LexBound::Exclusive(pivot)), 0..lt);
    }
}
