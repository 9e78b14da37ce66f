//! Store tests: accounting, eviction policies, expiry, SCAN guarantees.

use super::*;
use crate::store::entry::Value;

fn store() -> Store {
    Store::new(Arc::default(), Arc::new(()), Arc::default(), 8, 4, 42, 1_000)
}

fn set(s: &Store, key: &str, val_len: usize, expire_at: u64, now: u64) {
    let mut l = s.lock_keys(0, [key.as_bytes()]);
    l.shard(key.as_bytes()).insert(key.as_bytes(), Value::Str(vec![b'x'; val_len]), expire_at, now);
}

#[test]
fn accounting_returns_to_zero() {
    let s = store();
    for i in 0..100 {
        set(&s, &format!("k{i}"), i * 10, if i % 2 == 0 { 5_000 } else { 0 }, 1_000);
    }
    assert!(s.used_memory() > 100 * 10);
    assert_eq!(s.keys_by_type().iter().sum::<usize>(), 100);
    for i in 0..100 {
        let k = format!("k{i}");
        let mut l = s.lock_keys(0, [k.as_bytes()]);
        assert!(l.shard(k.as_bytes()).remove(k.as_bytes()).is_some());
    }
    assert_eq!(s.used_memory(), 0);
    assert_eq!(s.volatile_len(), 0);
    assert_eq!(s.keys_by_type(), [0; Value::TYPES]);
}

#[test]
fn noeviction_refuses_and_lru_evicts_oldest() {
    let s = store();
    s.limits().set_maxmemory(20_000);
    assert_eq!(s.make_room(30_000, 1_000).err(), Some(CmdError::Oom));
    for i in 0..1000 {
        if s.make_room(200, 1_000).is_err() {
            break;
        }
        set(&s, &format!("k{i}"), 100, 0, 1_000);
    }
    assert!(s.used_memory() <= 20_000);
    assert_eq!(s.make_room(200, 1_000).err(), Some(CmdError::Oom));

    s.limits().set_policy(Policy::AllkeysLru);
    s.flush(1_000);
    for i in 0..1000 {
        let _room = s.make_room(200, 1_000).unwrap();
        set(&s, &format!("k{i}"), 100, 0, 1_000);
        assert!(s.used_memory() <= 20_000);
    }
    let mut l = s.lock_keys(0, [&b"k999"[..], b"k0"]);
    assert!(l.peek(b"k999", 1_000).is_some());
    assert!(l.peek(b"k0", 1_000).is_none());
    drop(l);
    assert!(s.counters().evicted_keys.load(Relaxed) > 800);
    assert!(s.recent_events().iter().any(|e| e.kind == EventKind::Evicted));
}

#[test]
fn volatile_policies_never_evict_persistent_keys() {
    let s = store();
    s.limits().set_maxmemory(20_000);
    s.limits().set_policy(Policy::VolatileLru);
    for i in 0..50 {
        set(&s, &format!("p{i}"), 100, 0, 1_000);
    }
    let persistent_used = s.used_memory();
    for i in 0..500 {
        if s.make_room(400, 1_000).is_err() {
            break;
        }
        set(&s, &format!("v{i}"), 100, 99_000, 1_000);
    }
    for i in 0..50 {
        let k = format!("p{i}");
        assert!(s.lock_keys(0, [k.as_bytes()]).peek(k.as_bytes(), 1_000).is_some(), "{k} evicted");
    }
    assert!(s.used_memory() >= persistent_used);
}

#[test]
fn sweep_removes_expired_keys_without_a_clock() {
    let s = store();
    for i in 0..200 {
        set(&s, &format!("k{i}"), 10, if i < 150 { 2_000 } else { 0 }, 1_000);
    }
    let mut total = 0;
    for _ in 0..100 {
        total += s.sweep(3_000, 1_000, &|| false).expired;
    }
    assert_eq!(total, 150);
    assert_eq!(s.len(), 50);
    assert_eq!(s.counters().expired_keys.load(Relaxed), 150);
}

#[test]
fn scan_returns_every_key_that_stays_despite_deletions() {
    let s = store();
    for i in 0..500 {
        set(&s, &format!("k{i}"), 1, 0, 1_000);
    }
    let mut seen = std::collections::HashSet::new();
    let mut cursor = 0;
    let mut round = 0;
    loop {
        cursor = s.unlocked(0).scan(cursor, 10, 1_000, |k, _| {
            seen.insert(k.to_vec());
        });
        // Delete a few keys that are not part of the "stays" set (odd ones) as we go.
        for j in 0..5 {
            let k = format!("k{}", (round * 10 + j * 2 + 1) % 500);
            let mut l = s.lock_keys(0, [k.as_bytes()]);
            l.shard(k.as_bytes()).remove(k.as_bytes());
        }
        round += 1;
        if cursor == 0 {
            break;
        }
    }
    for i in (0..500).step_by(2) {
        assert!(seen.contains(format!("k{i}").as_bytes()), "k{i} missed");
    }
}
