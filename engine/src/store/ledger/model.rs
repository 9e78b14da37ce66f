//! Property test of the memory ledger: random writes, overwrites, collection growth and
//! shrinking, deletions, TTLs, expiries (lazy and active), evictions, MOVE, RENAME, SWAPDB,
//! FLUSHDB/FLUSHALL and delimiter changes, across databases; after every step each shard's
//! ledger must add up to its `used` (so the ledger's sum is `used_memory_dataset`), and the
//! Memory view's total must be `used_memory`.

use proptest::prelude::*;

use crate::config::Config;
use crate::inspect::{expiry_cycle, memory};
use crate::testing::TestEngine;

#[derive(Debug, Clone)]
enum Op {
    Set(u8, u16, Option<u16>),
    Append(u8, u16),
    Push(u8, u8),
    Pop(u8, u8),
    HSet(u8, u8, u16),
    HExpire(u8, u8, u16),
    SAdd(u8, u8),
    SRem(u8, u8),
    ZAdd(u8, u8),
    Del(u8),
    Expire(u8, u16),
    Persist(u8),
    Move(u8, u8),
    Rename(u8, u8),
    Select(u8),
    SwapDb(u8, u8),
    FlushDb,
    FlushAll,
    Advance(u16),
    Sweep,
    Get(u8),
    MaxMemory(u16),
    Delimiter(bool),
    View,
}

fn op() -> impl Strategy<Value = Op> {
    let k = || any::<u8>();
    prop_oneof![
        6 => (k(), 0u16..3000, proptest::option::of(1u16..2000)).prop_map(|(a, b, c)| Op::Set(a, b, c)),
        2 => (k(), 0u16..500).prop_map(|(a, b)| Op::Append(a, b)),
        3 => (k(), 1u8..20).prop_map(|(a, b)| Op::Push(a, b)),
        2 => (k(), 1u8..20).prop_map(|(a, b)| Op::Pop(a, b)),
        3 => (k(), k(), 0u16..300).prop_map(|(a, b, c)| Op::HSet(a, b, c)),
        1 => (k(), k(), 1u16..2000).prop_map(|(a, b, c)| Op::HExpire(a, b, c)),
        2 => (k(), k()).prop_map(|(a, b)| Op::SAdd(a, b)),
        1 => (k(), k()).prop_map(|(a, b)| Op::SRem(a, b)),
        2 => (k(), k()).prop_map(|(a, b)| Op::ZAdd(a, b)),
        2 => k().prop_map(Op::Del),
        2 => (k(), 1u16..2000).prop_map(|(a, b)| Op::Expire(a, b)),
        1 => k().prop_map(Op::Persist),
        1 => (k(), 0u8..4).prop_map(|(a, b)| Op::Move(a, b)),
        1 => (k(), k()).prop_map(|(a, b)| Op::Rename(a, b)),
        1 => (0u8..4).prop_map(Op::Select),
        1 => (0u8..4, 0u8..4).prop_map(|(a, b)| Op::SwapDb(a, b)),
        1 => Just(Op::FlushDb),
        1 => prop_oneof![Just(Op::FlushAll), Just(Op::FlushAll), Just(Op::View)].prop_map(|o| o),
        2 => (0u16..1500).prop_map(Op::Advance),
        1 => Just(Op::Sweep),
        2 => k().prop_map(Op::Get),
        1 => (0u16..200).prop_map(Op::MaxMemory),
        1 => any::<bool>().prop_map(Op::Delimiter),
    ]
}

/// Keys over a few prefixes, one and two levels deep, some with no delimiter at all.
fn key(k: u8) -> String {
    match k % 5 {
        0 => format!("user:{}:name", k % 13),
        1 => format!("sess:{}", k % 17),
        2 => format!("plain{}", k % 7),
        3 => format!("a/b:{}", k % 11),
        _ => format!("q:{}:{}", k % 3, k % 19),
    }
}

fn apply(t: &mut TestEngine, op: &Op) {
    let n = |x: u16| x.to_string();
    match op {
        Op::Set(k, len, ex) => {
            let v = "v".repeat(*len as usize);
            match ex {
                Some(ms) => t.run(&["SET", &key(*k), &v, "PX", &n(*ms)]),
                None => t.run(&["SET", &key(*k), &v]),
            };
        }
        Op::Append(k, len) => {
            t.run(&["APPEND", &key(*k), &"a".repeat(*len as usize)]);
        }
        Op::Push(k, count) => {
            let mut argv = vec!["RPUSH".to_string(), format!("l{}", key(*k))];
            argv.extend((0..*count).map(|i| format!("elem-{i}")));
            t.run(&argv);
        }
        Op::Pop(k, count) => {
            t.run(&["LPOP", &format!("l{}", key(*k)), &count.to_string()]);
        }
        Op::HSet(k, f, len) => {
            t.run(&["HSET", &format!("h{}", key(*k)), &format!("f{}", f % 9), &"x".repeat(*len as usize)]);
        }
        Op::HExpire(k, f, ms) => {
            t.run(&["HSET", &format!("h{}", key(*k)), &format!("f{}", f % 9), "x"]);
            t.run(&["HPEXPIRE", &format!("h{}", key(*k)), &n(*ms), "FIELDS", "1", &format!("f{}", f % 9)]);
        }
        Op::SAdd(k, m) => {
            t.run(&["SADD", &format!("s{}", key(*k)), &format!("m{m}")]);
        }
        Op::SRem(k, m) => {
            t.run(&["SREM", &format!("s{}", key(*k)), &format!("m{m}")]);
        }
        Op::ZAdd(k, m) => {
            t.run(&["ZADD", &format!("z{}", key(*k)), &m.to_string(), &format!("m{m}")]);
        }
        Op::Del(k) => {
            t.run(&["DEL", &key(*k)]);
        }
        Op::Expire(k, ms) => {
            t.run(&["PEXPIRE", &key(*k), &n(*ms)]);
        }
        Op::Persist(k) => {
            t.run(&["PERSIST", &key(*k)]);
        }
        Op::Move(k, db) => {
            t.run(&["MOVE", &key(*k), &db.to_string()]);
        }
        Op::Rename(a, b) => {
            t.run(&["RENAME", &key(*a), &key(*b)]);
        }
        Op::Select(db) => {
            t.run(&["SELECT", &db.to_string()]);
        }
        Op::SwapDb(a, b) => {
            t.run(&["SWAPDB", &a.to_string(), &b.to_string()]);
        }
        Op::FlushDb => {
            t.run(&["FLUSHDB"]);
        }
        Op::FlushAll => {
            t.run(&["FLUSHALL"]);
        }
        Op::Advance(ms) => t.advance(u64::from(*ms)),
        Op::Sweep => {
            expiry_cycle(&t.engine, t.now, 16, || true);
        }
        Op::Get(k) => {
            t.run(&["GET", &key(*k)]);
        }
        Op::MaxMemory(kb) => {
            // 0 lifts the limit; otherwise a small one that evicts at random.
            let limit = if *kb < 20 { 0 } else { u64::from(*kb) * 1024 };
            t.run(&["CONFIG", "SET", "maxmemory", &limit.to_string()]);
        }
        Op::Delimiter(slash) => {
            t.run(&["CONFIG", "SET", "vitrine-ledger-delimiter", if *slash { "/" } else { ":" }]);
        }
        Op::View => {
            let _ = memory(&t.engine, None, t.now);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn ledger_sum_is_the_dataset_after_every_step(ops in proptest::collection::vec(op(), 1..200)) {
        let mut t = TestEngine::new(Config::default());
        t.run(&["CONFIG", "SET", "maxmemory-policy", "allkeys-random"]);
        for (i, op) in ops.iter().enumerate() {
            apply(&mut t, op);
            if let Err(e) = t.engine.store.check_ledgers() {
                prop_assert!(false, "after step {} ({:?}): {}", i, op, e);
            }
        }
        let view = memory(&t.engine, None, t.now).map_err(|e| TestCaseError::fail(e.message))?;
        prop_assert_eq!(view.dataset_bytes, t.used_memory() as u64);
        let prefixes: u64 = view.prefixes.iter().map(|p| p.bytes).sum();
        prop_assert_eq!(prefixes + view.index_bytes, view.dataset_bytes);
        let types: u64 = view.by_type.iter().map(|p| p.bytes).sum();
        prop_assert_eq!(types + view.index_bytes, view.dataset_bytes);
        prop_assert_eq!(view.with_ttl.bytes + view.without_ttl.bytes + view.index_bytes, view.dataset_bytes);
        t.engine.store.check_ledgers().map_err(TestCaseError::fail)?;
    }
}
