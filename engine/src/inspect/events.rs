//! Recent evictions and expirations (newest first) with the counters and misses by cause the
//! Evictions page shows beside them, and the active expiry cycle both hosts run on a timer.

use std::sync::atomic::Ordering::Relaxed;

use serde::Serialize;
use ts_rs::TS;

use super::Bytes;
use crate::store::EventKind;
use crate::Engine;

/// Keys with a TTL sampled per sweep round.
pub const SWEEP_BUDGET: usize = 200;
/// Most rounds of one cycle for a host without a clock of its own (the playground stays
/// deterministic); the server bounds its cycle by time instead.
pub const SWEEP_MAX_ROUNDS: usize = 16;

/// Why a key left the keyspace on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Departure {
    Evicted,
    Expired,
}

/// One eviction or expiration.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
#[ts(rename = "KeyEvent")]
pub struct EventView {
    pub kind: Departure,
    /// The database the key was in.
    pub db: u32,
    /// The key's first 200 bytes.
    pub key: Bytes,
    /// The policy in force when it was evicted (null for expirations).
    pub policy: Option<&'static str>,
    /// Milliseconds since the key was last accessed.
    pub idle_ms: u64,
    /// LFU counter at eviction.
    pub freq: u8,
    /// Accounted bytes freed.
    pub size: usize,
    pub at_ms: u64,
}

/// Read lookups that found no key, by cause (they add up to `total`).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct MissesByCause {
    pub total: u64,
    /// Never written, deleted, or gone long ago.
    pub never_seen: u64,
    /// Recently expired.
    pub expired: u64,
    /// Recently evicted.
    pub evicted: u64,
}

/// `GET /api/evictions/recent`.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
#[ts(rename = "RecentEvents")]
pub struct EvictionsView {
    pub now_ms: u64,
    pub policy: &'static str,
    pub evicted_keys: u64,
    pub expired_keys: u64,
    pub misses: MissesByCause,
    /// Newest first.
    pub events: Vec<EventView>,
}

/// The latest evictions and expirations, newest first, with the totals.
pub fn evictions(engine: &Engine, now_ms: u64) -> EvictionsView {
    let stats = engine.stats();
    let events = engine
        .recent_events()
        .into_iter()
        .rev()
        .map(|e| EventView {
            kind: match e.kind {
                EventKind::Evicted => Departure::Evicted,
                EventKind::Expired => Departure::Expired,
            },
            db: e.db as u32,
            key: Bytes(e.key),
            policy: e.policy,
            idle_ms: e.idle_ms,
            freq: e.freq,
            size: e.size,
            at_ms: e.at_ms,
        })
        .collect();
    EvictionsView {
        now_ms,
        policy: engine.config().policy().name(),
        evicted_keys: stats.keyspace.evicted_keys.load(Relaxed),
        expired_keys: stats.keyspace.expired_keys.load(Relaxed),
        misses: MissesByCause {
            total: stats.keyspace.misses.load(Relaxed),
            never_seen: stats.keyspace.misses_never_seen.load(Relaxed),
            expired: stats.keyspace.misses_expired.load(Relaxed),
            evicted: stats.keyspace.misses_evicted.load(Relaxed),
        },
        events,
    }
}

/// What one expiry cycle did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExpiryReport {
    pub rounds: usize,
    pub expired: usize,
}

/// One active-expiry cycle: sweep rounds of [`SWEEP_BUDGET`] keys while more than a quarter of
/// the sampled keys were stale (so many more probably are), at most `max_rounds`, and while
/// `more()` allows (the server passes a time limit; the engine reads no clock).
pub fn expiry_cycle(engine: &Engine, now_ms: u64, max_rounds: usize, mut more: impl FnMut() -> bool) -> ExpiryReport {
    let mut report = ExpiryReport::default();
    while report.rounds < max_rounds.max(1) {
        let round = engine.sweep(now_ms, SWEEP_BUDGET);
        report.rounds += 1;
        report.expired += round.expired;
        let mostly_stale = round.sampled > 0 && round.expired * 4 > round.sampled;
        if !mostly_stale || !more() {
            break;
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;

    const T0: u64 = TestEngine::START_MS;

    #[test]
    fn expirations_are_listed_newest_first_with_misses_by_cause() {
        let mut t = TestEngine::default();
        t.run(&["SET", "a", "v", "PX", "10"]);
        t.run(&["SET", "b", "v", "PX", "20"]);
        let report = expiry_cycle(&t.engine, T0 + 100, SWEEP_MAX_ROUNDS, || true);
        assert_eq!(report.expired, 2);
        t.now += 100;
        t.run(&["GET", "a"]);
        t.run(&["GET", "never"]);
        let view = serde_json::to_value(evictions(&t.engine, T0 + 100)).unwrap();
        assert_eq!(view["expired_keys"], 2);
        assert_eq!(view["policy"], "noeviction");
        assert_eq!(view["events"].as_array().unwrap().len(), 2);
        assert_eq!(view["events"][0]["kind"], "expired");
        assert_eq!(view["events"][0]["policy"], serde_json::Value::Null);
        assert_eq!(view["misses"], serde_json::json!({ "total": 2, "never_seen": 1, "expired": 1, "evicted": 0 }));
    }

    #[test]
    fn a_cycle_stops_when_few_keys_were_stale_or_when_told() {
        let t = TestEngine::default();
        assert_eq!(expiry_cycle(&t.engine, T0, 16, || true), ExpiryReport { rounds: 1, expired: 0 });
        let mut t = TestEngine::default();
        for i in 0..2000 {
            t.run(&[b"SET".to_vec(), format!("k{i}").into_bytes(), b"v".to_vec(), b"PX".to_vec(), b"5".to_vec()]);
        }
        assert_eq!(expiry_cycle(&t.engine, T0 + 10, 16, || false).rounds, 1);
        let all = expiry_cycle(&t.engine, T0 + 10, usize::MAX, || true);
        assert!(all.rounds > 1 && all.expired > 0, "{all:?}");
    }
}
