//! Property test: random sequences of list commands run against the engine and a plain model
//! (a `VecDeque` per key) must give the same replies; afterwards every key's contents agree,
//! and deleting them all brings `used_memory` back to 0 (the accounting never drifts, whatever
//! grew and shrank the lists).

use std::collections::{BTreeMap, VecDeque};

use proptest::prelude::*;
use vitrine_engine::testing::TestEngine;
use vitrine_engine::Reply;

#[derive(Debug, Clone)]
enum Op {
    /// Key, at the head, only if it exists, elements.
    Push(u8, bool, bool, Vec<u8>),
    /// Key, from the head, count.
    Pop(u8, bool, Option<u8>),
    Range(u8, i8, i8),
    Index(u8, i8),
    Set(u8, i8, u8),
    Insert(u8, bool, u8, u8),
    Rem(u8, i8, u8),
    Trim(u8, i8, i8),
    Pos(u8, u8, i8, Option<u8>, u8),
    Move(u8, u8, bool, bool),
    Len(u8),
    Del(u8),
}

const KEYS: u8 = 3;

fn key(k: u8) -> String {
    format!("l{k}")
}

/// Elements: short ones that repeat, integers, and some long enough to push a list past a
/// listpack's 8 KB.
fn elem(e: u8) -> Vec<u8> {
    match e % 8 {
        0 => format!("long element {e} {}", "x".repeat(3000)).into_bytes(),
        1 | 2 => e.to_string().into_bytes(),
        _ => format!("e{}", e % 6).into_bytes(),
    }
}

fn op() -> impl Strategy<Value = Op> {
    let k = 0..KEYS;
    let e = 0u8..24;
    prop_oneof![
        8 => (k.clone(), any::<bool>(), proptest::bool::weighted(0.1), proptest::collection::vec(e.clone(), 1..6))
            .prop_map(|(k, h, x, es)| Op::Push(k, h, x, es)),
        4 => (k.clone(), any::<bool>(), proptest::option::of(0u8..5)).prop_map(|(k, h, c)| Op::Pop(k, h, c)),
        2 => (k.clone(), -8i8..8, -8i8..8).prop_map(|(k, a, b)| Op::Range(k, a, b)),
        2 => (k.clone(), -8i8..8).prop_map(|(k, i)| Op::Index(k, i)),
        2 => (k.clone(), -8i8..8, e.clone()).prop_map(|(k, i, v)| Op::Set(k, i, v)),
        2 => (k.clone(), any::<bool>(), e.clone(), e.clone()).prop_map(|(k, a, p, v)| Op::Insert(k, a, p, v)),
        2 => (k.clone(), -3i8..3, e.clone()).prop_map(|(k, c, v)| Op::Rem(k, c, v)),
        1 => (k.clone(), -8i8..8, -8i8..8).prop_map(|(k, a, b)| Op::Trim(k, a, b)),
        2 => (k.clone(), e.clone(), -3i8..4, proptest::option::of(0u8..4), 0u8..6)
            .prop_map(|(k, v, r, c, m)| Op::Pos(k, v, if r == 0 { 1 } else { r }, c, m)),
        2 => (k.clone(), k.clone(), any::<bool>(), any::<bool>()).prop_map(|(a, b, f, t)| Op::Move(a, b, f, t)),
        1 => k.clone().prop_map(Op::Len),
        1 => k.prop_map(Op::Del),
    ]
}

#[derive(Default)]
struct Model {
    lists: BTreeMap<u8, VecDeque<Vec<u8>>>,
}

fn bulk(v: &[u8]) -> Reply {
    Reply::Bulk(v.to_vec())
}

fn bulks<'a>(items: impl Iterator<Item = &'a Vec<u8>>) -> Reply {
    Reply::Array(items.map(|v| bulk(v)).collect())
}

/// A position (negative from the end) within `len`, if it is one.
fn position(i: i8, len: usize) -> Option<usize> {
    let (i, len) = (i as i64, len as i64);
    let i = if i < 0 { len + i } else { i };
    (0..len).contains(&i).then_some(i as usize)
}

/// The inclusive range LRANGE and LTRIM keep.
fn range(a: i8, b: i8, len: usize) -> Option<(usize, usize)> {
    let (a, b, len) = (a as i64, b as i64, len as i64);
    let a = if a < 0 { len + a } else { a }.max(0);
    let b = if b < 0 { len + b } else { b };
    (a <= b && a < len).then(|| (a as usize, b.min(len - 1) as usize))
}

impl Model {
    /// The command for `op` and the reply Redis gives, applying it to the model.
    fn apply(&mut self, op: &Op) -> (Vec<Vec<u8>>, Reply) {
        let s = |t: &str| t.as_bytes().to_vec();
        match op {
            Op::Push(k, head, only_existing, es) => {
                let name = match (head, only_existing) {
                    (true, false) => "LPUSH",
                    (false, false) => "RPUSH",
                    (true, true) => "LPUSHX",
                    (false, true) => "RPUSHX",
                };
                let mut argv = vec![s(name), s(&key(*k))];
                argv.extend(es.iter().map(|&e| elem(e)));
                if *only_existing && !self.lists.contains_key(k) {
                    return (argv, Reply::Int(0));
                }
                let list = self.lists.entry(*k).or_default();
                for &e in es {
                    if *head {
                        list.push_front(elem(e));
                    } else {
                        list.push_back(elem(e));
                    }
                }
                (argv, Reply::Int(list.len() as i64))
            }
            Op::Pop(k, head, count) => {
                let mut argv = vec![s(if *head { "LPOP" } else { "RPOP" }), s(&key(*k))];
                if let Some(c) = count {
                    argv.push(s(&c.to_string()));
                }
                let Some(list) = self.lists.get_mut(k) else {
                    return (argv, if count.is_some() { Reply::NilArray } else { Reply::Nil });
                };
                let mut pop = || if *head { list.pop_front() } else { list.pop_back() };
                let reply = match count {
                    None => pop().map(Reply::Bulk).unwrap_or(Reply::Nil),
                    Some(c) => Reply::Array((0..*c).map_while(|_| pop()).map(Reply::Bulk).collect()),
                };
                self.drop_empty(*k);
                (argv, reply)
            }
            Op::Range(k, a, b) => {
                let argv = vec![s("LRANGE"), s(&key(*k)), s(&a.to_string()), s(&b.to_string())];
                let list = self.lists.get(k).cloned().unwrap_or_default();
                let reply = match range(*a, *b, list.len()) {
                    Some((a, b)) => bulks(list.range(a..=b)),
                    None => Reply::Array(vec![]),
                };
                (argv, reply)
            }
            Op::Index(k, i) => {
                let argv = vec![s("LINDEX"), s(&key(*k)), s(&i.to_string())];
                let list = self.lists.get(k).cloned().unwrap_or_default();
                let reply = position(*i, list.len()).map(|i| bulk(&list[i])).unwrap_or(Reply::Nil);
                (argv, reply)
            }
            Op::Set(k, i, v) => {
                let argv = vec![s("LSET"), s(&key(*k)), s(&i.to_string()), elem(*v)];
                let Some(list) = self.lists.get_mut(k) else {
                    return (argv, Reply::Error("ERR no such key".into()));
                };
                let reply = match position(*i, list.len()) {
                    Some(i) => {
                        list[i] = elem(*v);
                        Reply::Ok
                    }
                    None => Reply::Error("ERR index out of range".into()),
                };
                (argv, reply)
            }
            Op::Insert(k, after, pivot, v) => {
                let place = if *after { "AFTER" } else { "BEFORE" };
                let argv = vec![s("LINSERT"), s(&key(*k)), s(place), elem(*pivot), elem(*v)];
                let Some(list) = self.lists.get_mut(k) else { return (argv, Reply::Int(0)) };
                let reply = match list.iter().position(|e| *e == elem(*pivot)) {
                    Some(i) => {
                        list.insert(if *after { i + 1 } else { i }, elem(*v));
                        Reply::Int(list.len() as i64)
                    }
                    None => Reply::Int(-1),
                };
                (argv, reply)
            }
            Op::Rem(k, count, v) => {
                let argv = vec![s("LREM"), s(&key(*k)), s(&count.to_string()), elem(*v)];
                let Some(list) = self.lists.get_mut(k) else { return (argv, Reply::Int(0)) };
                let target = elem(*v);
                let limit = count.unsigned_abs() as usize;
                let mut removed = 0;
                let mut order: Vec<usize> = (0..list.len()).collect();
                if *count < 0 {
                    order.reverse();
                }
                let mut gone = Vec::new();
                for i in order {
                    if list[i] == target && (limit == 0 || removed < limit) {
                        gone.push(i);
                        removed += 1;
                    }
                }
                gone.sort_unstable();
                for i in gone.into_iter().rev() {
                    list.remove(i);
                }
                self.drop_empty(*k);
                (argv, Reply::Int(removed as i64))
            }
            Op::Trim(k, a, b) => {
                let argv = vec![s("LTRIM"), s(&key(*k)), s(&a.to_string()), s(&b.to_string())];
                if let Some(list) = self.lists.get_mut(k) {
                    *list = match range(*a, *b, list.len()) {
                        Some((a, b)) => list.range(a..=b).cloned().collect(),
                        None => VecDeque::new(),
                    };
                    self.drop_empty(*k);
                }
                (argv, Reply::Ok)
            }
            Op::Pos(k, v, rank, count, maxlen) => {
                let mut argv = vec![s("LPOS"), s(&key(*k)), elem(*v), s("RANK"), s(&rank.to_string())];
                if let Some(c) = count {
                    argv.extend([s("COUNT"), s(&c.to_string())]);
                }
                argv.extend([s("MAXLEN"), s(&maxlen.to_string())]);
                let list = self.lists.get(k).cloned().unwrap_or_default();
                let len = list.len();
                let scan: Vec<usize> = if *rank < 0 { (0..len).rev().collect() } else { (0..len).collect() };
                let limit = if *maxlen == 0 { len } else { (*maxlen as usize).min(len) };
                let skip = rank.unsigned_abs() as usize - 1;
                let hits = scan[..limit].iter().filter(|&&i| list[i] == elem(*v)).skip(skip);
                let reply = match count {
                    None => hits.map(|&i| Reply::Int(i as i64)).next().unwrap_or(Reply::Nil),
                    Some(0) => Reply::Array(hits.map(|&i| Reply::Int(i as i64)).collect()),
                    Some(c) => Reply::Array(hits.take(*c as usize).map(|&i| Reply::Int(i as i64)).collect()),
                };
                (argv, reply)
            }
            Op::Move(a, b, from_left, to_left) => {
                let side = |left: bool| s(if left { "LEFT" } else { "RIGHT" });
                let argv = vec![s("LMOVE"), s(&key(*a)), s(&key(*b)), side(*from_left), side(*to_left)];
                let Some(src) = self.lists.get_mut(a) else { return (argv, Reply::Nil) };
                let Some(e) = (if *from_left { src.pop_front() } else { src.pop_back() }) else {
                    return (argv, Reply::Nil);
                };
                let dst = self.lists.entry(*b).or_default();
                if *to_left {
                    dst.push_front(e.clone());
                } else {
                    dst.push_back(e.clone());
                }
                self.drop_empty(*a);
                (argv, Reply::Bulk(e))
            }
            Op::Len(k) => {
                let argv = vec![s("LLEN"), s(&key(*k))];
                (argv, Reply::Int(self.lists.get(k).map_or(0, |l| l.len() as i64)))
            }
            Op::Del(k) => {
                let argv = vec![s("DEL"), s(&key(*k))];
                (argv, Reply::Int(self.lists.remove(k).is_some() as i64))
            }
        }
    }

    fn drop_empty(&mut self, k: u8) {
        if self.lists.get(&k).is_some_and(|l| l.is_empty()) {
            self.lists.remove(&k);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn lists_match_the_model_and_memory_returns_to_zero(ops in proptest::collection::vec(op(), 1..120)) {
        let mut t = TestEngine::default();
        let mut model = Model::default();
        for op in &ops {
            let (argv, want) = model.apply(op);
            let got = t.run(&argv);
            prop_assert_eq!(got, want, "{:?}", op);
        }
        for k in 0..KEYS {
            let want = bulks(model.lists.get(&k).into_iter().flatten());
            prop_assert_eq!(t.run(&["LRANGE", &key(k), "0", "-1"]), want);
            t.run(&["DEL", &key(k)]);
        }
        prop_assert_eq!(t.used_memory(), 0);
    }
}
