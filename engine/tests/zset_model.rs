//! Property test: random sequences of sorted set commands run against the engine and a plain
//! model (a `BTreeMap` of member -> score per key, sorted on demand) must give the same
//! replies; afterwards every key's contents agree, and deleting them all brings `used_memory`
//! back to 0 (the accounting never drifts, whatever grew and shrank the sets).

use std::collections::BTreeMap;

use proptest::prelude::*;
use vitrine_engine::testing::TestEngine;
use vitrine_engine::Reply;

#[derive(Debug, Clone)]
enum Op {
    /// Flags (NX, XX, GT, LT, CH as bits) and (score, member) pairs.
    Add(u8, u8, Vec<(i8, u8)>),
    IncrBy(u8, i8, u8),
    Rem(u8, Vec<u8>),
    Range(u8, i8, i8, bool),
    RangeByScore(u8, i8, bool, i8, bool, Option<(u8, i8)>, bool),
    Rank(u8, u8, bool),
    Score(u8, u8),
    Card(u8),
    Count(u8, i8, i8),
    Pop(u8, u8, bool),
    RemRangeByRank(u8, i8, i8),
    RemRangeByScore(u8, i8, i8),
    Store(u8, Vec<u8>, bool),
    Del(u8),
}

const KEYS: u8 = 4;

fn key(k: u8) -> String {
    format!("z{k}")
}

/// Members: short ones, and some past 64 bytes so sets turn into skiplists too.
fn member(m: u8) -> Vec<u8> {
    if m.is_multiple_of(11) {
        format!("long member {m} {}", "x".repeat(60)).into_bytes()
    } else {
        format!("m{m}").into_bytes()
    }
}

/// Scores in halves: sums stay exact, so the model needs no floating-point care.
fn score(s: i8) -> f64 {
    f64::from(s) / 2.0
}

fn op() -> impl Strategy<Value = Op> {
    let k = 0..KEYS;
    let m = 0u8..40;
    let s = -12i8..12;
    prop_oneof![
        8 => (k.clone(), 0u8..32, proptest::collection::vec((s.clone(), m.clone()), 1..6))
            .prop_map(|(k, f, p)| Op::Add(k, f, p)),
        2 => (k.clone(), s.clone(), m.clone()).prop_map(|(k, by, m)| Op::IncrBy(k, by, m)),
        3 => (k.clone(), proptest::collection::vec(m.clone(), 1..4)).prop_map(|(k, ms)| Op::Rem(k, ms)),
        3 => (k.clone(), -8i8..8, -8i8..8, any::<bool>()).prop_map(|(k, a, b, r)| Op::Range(k, a, b, r)),
        3 => (
            k.clone(),
            s.clone(),
            any::<bool>(),
            s.clone(),
            any::<bool>(),
            proptest::option::of((0u8..5, -1i8..5)),
            any::<bool>()
        )
            .prop_map(|(k, a, ax, b, bx, l, r)| Op::RangeByScore(k, a, ax, b, bx, l, r)),
        2 => (k.clone(), m.clone(), any::<bool>()).prop_map(|(k, m, r)| Op::Rank(k, m, r)),
        1 => (k.clone(), m.clone()).prop_map(|(k, m)| Op::Score(k, m)),
        1 => k.clone().prop_map(Op::Card),
        1 => (k.clone(), s.clone(), s.clone()).prop_map(|(k, a, b)| Op::Count(k, a, b)),
        2 => (k.clone(), 0u8..4, any::<bool>()).prop_map(|(k, n, max)| Op::Pop(k, n, max)),
        1 => (k.clone(), -6i8..6, -6i8..6).prop_map(|(k, a, b)| Op::RemRangeByRank(k, a, b)),
        1 => (k.clone(), s.clone(), s.clone()).prop_map(|(k, a, b)| Op::RemRangeByScore(k, a, b)),
        1 => (k.clone(), proptest::collection::vec(0..KEYS, 1..4), any::<bool>())
            .prop_map(|(d, src, inter)| Op::Store(d, src, inter)),
        1 => k.prop_map(Op::Del),
    ]
}

#[derive(Default)]
struct Model {
    sets: BTreeMap<u8, BTreeMap<Vec<u8>, f64>>,
}

fn sorted(set: &BTreeMap<Vec<u8>, f64>) -> Vec<(Vec<u8>, f64)> {
    let mut v: Vec<(Vec<u8>, f64)> = set.iter().map(|(m, s)| (m.clone(), *s)).collect();
    v.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap().then_with(|| a.0.cmp(&b.0)));
    v
}

fn members(items: &[(Vec<u8>, f64)], withscores: bool) -> Reply {
    let mut out = Vec::new();
    for (m, s) in items {
        out.push(Reply::Bulk(m.clone()));
        if withscores {
            out.push(Reply::Double(*s));
        }
    }
    Reply::Array(out)
}

fn bound(s: i8, exclusive: bool) -> String {
    format!("{}{}", if exclusive { "(" } else { "" }, score(s))
}

fn in_range(x: f64, min: f64, minex: bool, max: f64, maxex: bool) -> bool {
    (if minex { x > min } else { x >= min }) && (if maxex { x < max } else { x <= max })
}

/// Redis's rank window: negative ranks from the end, clipped; `None` when empty.
fn window(start: i64, stop: i64, len: usize) -> Option<(usize, usize)> {
    let len = len as i64;
    let start = if start < 0 { (start + len).max(0) } else { start };
    let stop = if stop < 0 { stop + len } else { stop };
    if start > stop || start >= len {
        return None;
    }
    Some((start as usize, stop.min(len - 1) as usize))
}

impl Model {
    fn set(&mut self, k: u8) -> &mut BTreeMap<Vec<u8>, f64> {
        self.sets.entry(k).or_default()
    }

    fn tidy(&mut self, k: u8) {
        if self.sets.get(&k).is_some_and(|s| s.is_empty()) {
            self.sets.remove(&k);
        }
    }

    /// The command for `op` and the reply Redis would give.
    fn apply(&mut self, op: &Op) -> (Vec<String>, Reply) {
        match op {
            Op::Add(k, flags, pairs) => {
                let (nx, xx, gt, lt, ch) =
                    (flags & 1 != 0, flags & 2 != 0, flags & 4 != 0, flags & 8 != 0, flags & 16 != 0);
                let mut argv = vec!["ZADD".to_string(), key(*k)];
                for (bit, name) in [(1, "NX"), (2, "XX"), (4, "GT"), (8, "LT"), (16, "CH")] {
                    if flags & bit != 0 {
                        argv.push(name.into());
                    }
                }
                for (s, m) in pairs {
                    argv.push(score(*s).to_string());
                    argv.push(String::from_utf8(member(*m)).unwrap());
                }
                if nx && xx {
                    return (argv, Reply::Error("ERR XX and NX options at the same time are not compatible".into()));
                }
                if (nx && (gt || lt)) || (gt && lt) {
                    let e = "ERR GT, LT, and/or NX options at the same time are not compatible";
                    return (argv, Reply::Error(e.into()));
                }
                if xx && !self.sets.contains_key(k) {
                    return (argv, Reply::Int(0));
                }
                let set = self.set(*k);
                let (mut added, mut updated) = (0, 0);
                for (s, m) in pairs {
                    let (s, m) = (score(*s), member(*m));
                    match set.get(&m).copied() {
                        Some(cur) => {
                            if nx || (gt && s <= cur) || (lt && s >= cur) {
                                continue;
                            }
                            if s != cur {
                                set.insert(m, s);
                                updated += 1;
                            }
                        }
                        None if xx => {}
                        None => {
                            set.insert(m, s);
                            added += 1;
                        }
                    }
                }
                (argv, Reply::Int(if ch { added + updated } else { added }))
            }
            Op::IncrBy(k, by, m) => {
                let argv =
                    vec!["ZINCRBY".into(), key(*k), score(*by).to_string(), String::from_utf8(member(*m)).unwrap()];
                let entry = self.set(*k).entry(member(*m)).or_insert(0.0);
                *entry += score(*by);
                (argv, Reply::Double(*entry))
            }
            Op::Rem(k, ms) => {
                let mut argv = vec!["ZREM".to_string(), key(*k)];
                let mut n = 0;
                for m in ms {
                    argv.push(String::from_utf8(member(*m)).unwrap());
                    if self.sets.get_mut(k).is_some_and(|s| s.remove(&member(*m)).is_some()) {
                        n += 1;
                    }
                }
                self.tidy(*k);
                (argv, Reply::Int(n))
            }
            Op::Range(k, a, b, rev) => {
                let mut argv = vec!["ZRANGE".to_string(), key(*k), a.to_string(), b.to_string()];
                if *rev {
                    argv.push("REV".into());
                }
                argv.push("WITHSCORES".into());
                let mut all = self.sets.get(k).map(sorted).unwrap_or_default();
                if *rev {
                    all.reverse();
                }
                let items = match window(i64::from(*a), i64::from(*b), all.len()) {
                    Some((s, e)) => all[s..=e].to_vec(),
                    None => vec![],
                };
                (argv, members(&items, true))
            }
            Op::RangeByScore(k, a, ax, b, bx, limit, rev) => {
                let (lo, hi) = (bound(*a, *ax), bound(*b, *bx));
                let mut argv = if *rev {
                    vec!["ZREVRANGEBYSCORE".to_string(), key(*k), hi, lo]
                } else {
                    vec!["ZRANGEBYSCORE".to_string(), key(*k), lo, hi]
                };
                let mut items: Vec<(Vec<u8>, f64)> = self
                    .sets
                    .get(k)
                    .map(sorted)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|(_, s)| in_range(*s, score(*a), *ax, score(*b), *bx))
                    .collect();
                if *rev {
                    items.reverse();
                }
                if let Some((offset, count)) = limit {
                    argv.extend(["LIMIT".to_string(), offset.to_string(), count.to_string()]);
                    let rest: Vec<_> = items.into_iter().skip(*offset as usize).collect();
                    items = if *count < 0 { rest } else { rest.into_iter().take(*count as usize).collect() };
                }
                (argv, members(&items, false))
            }
            Op::Rank(k, m, rev) => {
                let argv = vec![
                    if *rev { "ZREVRANK" } else { "ZRANK" }.to_string(),
                    key(*k),
                    String::from_utf8(member(*m)).unwrap(),
                ];
                let all = self.sets.get(k).map(sorted).unwrap_or_default();
                let rank = all.iter().position(|(x, _)| *x == member(*m));
                let reply = match rank {
                    Some(r) => Reply::Int(if *rev { all.len() - 1 - r } else { r } as i64),
                    None => Reply::Nil,
                };
                (argv, reply)
            }
            Op::Score(k, m) => {
                let argv = vec!["ZSCORE".to_string(), key(*k), String::from_utf8(member(*m)).unwrap()];
                let s = self.sets.get(k).and_then(|s| s.get(&member(*m)).copied());
                (argv, s.map_or(Reply::Nil, Reply::Double))
            }
            Op::Card(k) => (vec!["ZCARD".into(), key(*k)], Reply::Int(self.sets.get(k).map_or(0, |s| s.len()) as i64)),
            Op::Count(k, a, b) => {
                let argv = vec!["ZCOUNT".to_string(), key(*k), score(*a).to_string(), bound(*b, true)];
                let n = self
                    .sets
                    .get(k)
                    .map_or(0, |s| s.values().filter(|x| in_range(**x, score(*a), false, score(*b), true)).count());
                (argv, Reply::Int(n as i64))
            }
            Op::Pop(k, n, max) => {
                let argv = vec![if *max { "ZPOPMAX" } else { "ZPOPMIN" }.to_string(), key(*k), n.to_string()];
                let mut all = self.sets.get(k).map(sorted).unwrap_or_default();
                if *max {
                    all.reverse();
                }
                all.truncate(*n as usize);
                for (m, _) in &all {
                    self.set(*k).remove(m);
                }
                self.tidy(*k);
                (argv, members(&all, true))
            }
            Op::RemRangeByRank(k, a, b) => {
                let argv = vec!["ZREMRANGEBYRANK".to_string(), key(*k), a.to_string(), b.to_string()];
                let all = self.sets.get(k).map(sorted).unwrap_or_default();
                let doomed = match window(i64::from(*a), i64::from(*b), all.len()) {
                    Some((s, e)) => all[s..=e].to_vec(),
                    None => vec![],
                };
                for (m, _) in &doomed {
                    self.set(*k).remove(m);
                }
                self.tidy(*k);
                (argv, Reply::Int(doomed.len() as i64))
            }
            Op::RemRangeByScore(k, a, b) => {
                let argv = vec!["ZREMRANGEBYSCORE".to_string(), key(*k), bound(*a, true), score(*b).to_string()];
                let mut n = 0;
                if let Some(set) = self.sets.get_mut(k) {
                    let before = set.len();
                    set.retain(|_, x| !in_range(*x, score(*a), true, score(*b), false));
                    n = before - set.len();
                }
                self.tidy(*k);
                (argv, Reply::Int(n as i64))
            }
            Op::Store(dest, sources, inter) => {
                let mut argv = vec![if *inter { "ZINTERSTORE" } else { "ZUNIONSTORE" }.to_string(), key(*dest)];
                argv.push(sources.len().to_string());
                argv.extend(sources.iter().map(|s| key(*s)));
                let empty = BTreeMap::new();
                let sets: Vec<&BTreeMap<Vec<u8>, f64>> =
                    sources.iter().map(|s| self.sets.get(s).unwrap_or(&empty)).collect();
                let mut result: BTreeMap<Vec<u8>, f64> = BTreeMap::new();
                if *inter {
                    for (m, s) in sets[0] {
                        if sets[1..].iter().all(|o| o.contains_key(m)) {
                            result.insert(m.clone(), s + sets[1..].iter().map(|o| o[m]).sum::<f64>());
                        }
                    }
                } else {
                    for set in &sets {
                        for (m, s) in *set {
                            *result.entry(m.clone()).or_insert(0.0) += s;
                        }
                    }
                }
                let n = result.len();
                if n == 0 {
                    self.sets.remove(dest);
                } else {
                    self.sets.insert(*dest, result);
                }
                (argv, Reply::Int(n as i64))
            }
            Op::Del(k) => {
                let existed = self.sets.remove(k).is_some();
                (vec!["DEL".into(), key(*k)], Reply::Int(existed as i64))
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn sorted_sets_match_the_model_and_memory_returns_to_zero(ops in proptest::collection::vec(op(), 1..120)) {
        let mut t = TestEngine::default();
        let mut model = Model::default();
        for op in &ops {
            let (argv, want) = model.apply(op);
            let got = t.run(&argv);
            prop_assert_eq!(got, want, "{:?}", argv);
        }
        for k in 0..KEYS {
            let want = members(&model.sets.get(&k).map(sorted).unwrap_or_default(), true);
            prop_assert_eq!(t.run(&["ZRANGE", &key(k), "0", "-1", "WITHSCORES"]), want);
            t.run(&["DEL", &key(k)]);
        }
        prop_assert_eq!(t.used_memory(), 0);
    }
}
