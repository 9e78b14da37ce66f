//! Property test: random hash and set commands against the engine and `BTreeMap`/`BTreeSet`
//! models give the same replies, and memory returns to zero once the keys are deleted.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use vitrine_engine::testing::TestEngine;
use vitrine_engine::Reply;

#[derive(Debug, Clone)]
enum Op {
    HSet(u8, u8, String),
    HDel(u8, u8),
    HGet(u8, u8),
    HLen(u8),
    HExists(u8, u8),
    HIncrBy(u8, u8, i64),
    HGetAll(u8),
    SAdd(u8, Vec<u8>),
    SRem(u8, u8),
    SIsMember(u8, u8),
    SCard(u8),
    SMembers(u8),
    SInter(u8, u8),
    SUnion(u8, u8),
    Type(u8),
}

fn hkey(k: u8) -> String {
    format!("h{k}")
}
fn skey(k: u8) -> String {
    format!("s{k}")
}
fn field(f: u8) -> String {
    format!("f{f}")
}
fn member(m: u8) -> String {
    format!("m{m}")
}

fn op() -> impl Strategy<Value = Op> {
    let k = 0u8..3;
    let f = 0u8..8;
    prop_oneof![
        (k.clone(), f.clone(), "[a-z0-9]{0,6}").prop_map(|(k, f, v)| Op::HSet(k, f, v)),
        (k.clone(), f.clone()).prop_map(|(k, f)| Op::HDel(k, f)),
        (k.clone(), f.clone()).prop_map(|(k, f)| Op::HGet(k, f)),
        k.clone().prop_map(Op::HLen),
        (k.clone(), f.clone()).prop_map(|(k, f)| Op::HExists(k, f)),
        (k.clone(), f.clone(), -50i64..50).prop_map(|(k, f, n)| Op::HIncrBy(k, f, n)),
        k.clone().prop_map(Op::HGetAll),
        (k.clone(), proptest::collection::vec(0u8..10, 1..4)).prop_map(|(k, ms)| Op::SAdd(k, ms)),
        (k.clone(), 0u8..10).prop_map(|(k, m)| Op::SRem(k, m)),
        (k.clone(), 0u8..10).prop_map(|(k, m)| Op::SIsMember(k, m)),
        k.clone().prop_map(Op::SCard),
        k.clone().prop_map(Op::SMembers),
        (k.clone(), k.clone()).prop_map(|(a, b)| Op::SInter(a, b)),
        (k.clone(), k.clone()).prop_map(|(a, b)| Op::SUnion(a, b)),
        k.prop_map(Op::Type),
    ]
}

#[derive(Default)]
struct Model {
    hashes: BTreeMap<String, BTreeMap<String, String>>,
    sets: BTreeMap<String, BTreeSet<String>>,
}

fn bulks(items: impl IntoIterator<Item = String>) -> Vec<Reply> {
    items.into_iter().map(|s| Reply::Bulk(s.into_bytes())).collect()
}

/// Sorts an array reply of bulk strings, for commands whose order is unspecified.
fn sorted(reply: Reply) -> Reply {
    match reply {
        Reply::Array(mut items) | Reply::Set(mut items) => {
            items.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
            Reply::Array(items)
        }
        other => other,
    }
}

/// HGETALL as sorted (field, value) pairs, whatever the protocol shape.
fn pairs(reply: Reply) -> Vec<(Vec<u8>, Vec<u8>)> {
    let flat: Vec<Reply> = match reply {
        Reply::Array(items) => items,
        Reply::Map(kv) => kv.into_iter().flat_map(|(k, v)| [k, v]).collect(),
        other => panic!("unexpected {other:?}"),
    };
    let mut out: Vec<(Vec<u8>, Vec<u8>)> = flat
        .chunks(2)
        .map(|c| match (&c[0], &c[1]) {
            (Reply::Bulk(k), Reply::Bulk(v)) => (k.clone(), v.clone()),
            other => panic!("unexpected pair {other:?}"),
        })
        .collect();
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn hashes_and_sets_match_models(ops in proptest::collection::vec(op(), 1..80)) {
        let mut t = TestEngine::default();
        let mut m = Model::default();
        for op in &ops {
            match op {
                Op::HSet(k, f, v) => {
                    let h = m.hashes.entry(hkey(*k)).or_default();
                    let new = h.insert(field(*f), v.clone()).is_none();
                    prop_assert_eq!(t.run(&["HSET", &hkey(*k), &field(*f), v]), Reply::Int(new as i64));
                }
                Op::HDel(k, f) => {
                    let removed = m.hashes.get_mut(&hkey(*k)).and_then(|h| h.remove(&field(*f))).is_some();
                    if m.hashes.get(&hkey(*k)).is_some_and(|h| h.is_empty()) {
                        m.hashes.remove(&hkey(*k));
                    }
                    prop_assert_eq!(t.run(&["HDEL", &hkey(*k), &field(*f)]), Reply::Int(removed as i64));
                }
                Op::HGet(k, f) => {
                    let want = Reply::opt_bulk(m.hashes.get(&hkey(*k)).and_then(|h| h.get(&field(*f))).cloned());
                    prop_assert_eq!(t.run(&["HGET", &hkey(*k), &field(*f)]), want);
                }
                Op::HLen(k) => {
                    let want = m.hashes.get(&hkey(*k)).map_or(0, |h| h.len()) as i64;
                    prop_assert_eq!(t.run(&["HLEN", &hkey(*k)]), Reply::Int(want));
                }
                Op::HExists(k, f) => {
                    let want = m.hashes.get(&hkey(*k)).is_some_and(|h| h.contains_key(&field(*f)));
                    prop_assert_eq!(t.run(&["HEXISTS", &hkey(*k), &field(*f)]), Reply::Int(want as i64));
                }
                Op::HIncrBy(k, f, n) => {
                    let h = m.hashes.entry(hkey(*k)).or_default();
                    let cur = h.get(&field(*f)).cloned();
                    let want = match cur.as_deref().map(|c| c.parse::<i64>().ok().filter(|v| v.to_string() == c)) {
                        Some(None) => Reply::Error("ERR hash value is not an integer".into()),
                        parsed => {
                            let v = parsed.flatten().unwrap_or(0) + n;
                            h.insert(field(*f), v.to_string());
                            Reply::Int(v)
                        }
                    };
                    if m.hashes.get(&hkey(*k)).is_some_and(|h| h.is_empty()) {
                        m.hashes.remove(&hkey(*k));
                    }
                    prop_assert_eq!(t.run(&["HINCRBY", &hkey(*k), &field(*f), &n.to_string()]), want);
                }
                Op::HGetAll(k) => {
                    let want: Vec<(Vec<u8>, Vec<u8>)> = m.hashes.get(&hkey(*k)).map_or(vec![], |h| {
                        h.iter().map(|(f, v)| (f.clone().into_bytes(), v.clone().into_bytes())).collect()
                    });
                    prop_assert_eq!(pairs(t.run(&["HGETALL", &hkey(*k)])), want);
                }
                Op::SAdd(k, ms) => {
                    let s = m.sets.entry(skey(*k)).or_default();
                    let added = ms.iter().filter(|x| s.insert(member(**x))).count() as i64;
                    let mut argv = vec!["SADD".to_string(), skey(*k)];
                    argv.extend(ms.iter().map(|x| member(*x)));
                    prop_assert_eq!(t.run(&argv), Reply::Int(added));
                }
                Op::SRem(k, x) => {
                    let removed = m.sets.get_mut(&skey(*k)).is_some_and(|s| s.remove(&member(*x)));
                    if m.sets.get(&skey(*k)).is_some_and(|s| s.is_empty()) {
                        m.sets.remove(&skey(*k));
                    }
                    prop_assert_eq!(t.run(&["SREM", &skey(*k), &member(*x)]), Reply::Int(removed as i64));
                }
                Op::SIsMember(k, x) => {
                    let want = m.sets.get(&skey(*k)).is_some_and(|s| s.contains(&member(*x)));
                    prop_assert_eq!(t.run(&["SISMEMBER", &skey(*k), &member(*x)]), Reply::Int(want as i64));
                }
                Op::SCard(k) => {
                    let want = m.sets.get(&skey(*k)).map_or(0, |s| s.len()) as i64;
                    prop_assert_eq!(t.run(&["SCARD", &skey(*k)]), Reply::Int(want));
                }
                Op::SMembers(k) => {
                    let want = Reply::Array(bulks(m.sets.get(&skey(*k)).cloned().unwrap_or_default()));
                    prop_assert_eq!(sorted(t.run(&["SMEMBERS", &skey(*k)])), want);
                }
                Op::SInter(a, b) => {
                    let (sa, sb) = (m.sets.get(&skey(*a)).cloned().unwrap_or_default(), m.sets.get(&skey(*b)).cloned().unwrap_or_default());
                    let want = Reply::Array(bulks(sa.intersection(&sb).cloned()));
                    prop_assert_eq!(sorted(t.run(&["SINTER", &skey(*a), &skey(*b)])), want);
                }
                Op::SUnion(a, b) => {
                    let (sa, sb) = (m.sets.get(&skey(*a)).cloned().unwrap_or_default(), m.sets.get(&skey(*b)).cloned().unwrap_or_default());
                    let want = Reply::Array(bulks(sa.union(&sb).cloned()));
                    prop_assert_eq!(sorted(t.run(&["SUNION", &skey(*a), &skey(*b)])), want);
                }
                Op::Type(k) => {
                    let want = if m.hashes.contains_key(&hkey(*k)) { "hash" } else { "none" };
                    prop_assert_eq!(t.run(&["TYPE", &hkey(*k)]), Reply::status(want));
                    let want = if m.sets.contains_key(&skey(*k)) { "set" } else { "none" };
                    prop_assert_eq!(t.run(&["TYPE", &skey(*k)]), Reply::status(want));
                }
            }
        }
        // Memory accounting returns to zero once every key is deleted.
        for k in 0..3u8 {
            t.run(&["DEL", &hkey(k), &skey(k)]);
        }
        prop_assert_eq!(t.used_memory(), 0);
        prop_assert_eq!(t.run(&["DBSIZE"]), Reply::Int(0));
    }
}
