//! The hot keys view (`GET /api/hotkeys`, the dashboard's "Hot keys" page): the most accessed
//! keys over the last 10 to 20 seconds, estimated from per-shard sampled Space-Saving
//! sketches (see `store::hotkeys`).

use serde::Serialize;
use ts_rs::TS;

use super::Bytes;
use crate::store::hotkeys::{window_ms, SAMPLE_EVERY, SLOTS, WINDOW_MS};
use crate::Engine;

/// Keys shown when the caller does not say, and at most.
pub const DEFAULT_COUNT: usize = 20;
pub const MAX_COUNT: usize = 500;

/// One hot key.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct HotKeyRow {
    pub db: u32,
    /// The key's first 256 bytes.
    pub key: Bytes,
    /// Estimated reads and writes in the window (sampled count × `sample_every`).
    pub accesses: u64,
    /// How much of `accesses` may be overestimate (Space-Saving's bound).
    pub error: u64,
    /// `accesses` per second over the window.
    pub per_sec: f64,
    /// Share of all of its database's accesses in the window (0 to 1).
    pub share: f64,
}

/// `GET /api/hotkeys`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct HotKeysView {
    /// Most accessed first.
    pub keys: Vec<HotKeyRow>,
    /// How far back the window reaches now (between one and two `rotate_ms`).
    pub window_ms: u64,
    /// How long each of the two alternating sketches counts.
    pub rotate_ms: u64,
    /// One access in this many is sampled.
    pub sample_every: u32,
    /// Keys each shard's sketch follows.
    pub slots_per_shard: u32,
    /// Estimated accesses to any key in the window, all databases.
    pub total_accesses: u64,
    /// Heap bytes of the sketches (not counted against maxmemory).
    pub sketch_bytes: u64,
}

/// The `count` hottest keys now.
pub fn hot_keys(engine: &Engine, count: Option<usize>, now_ms: u64) -> HotKeysView {
    let report = engine.store().hot_keys(now_ms);
    let window_ms = window_ms(now_ms);
    let secs = window_ms as f64 / 1000.0;
    let keys = report
        .keys
        .into_iter()
        .take(count.unwrap_or(DEFAULT_COUNT).min(MAX_COUNT))
        .map(|(db, k)| {
            let all = report.total.get(db).copied().unwrap_or(0);
            HotKeyRow {
                db: db as u32,
                per_sec: k.accesses as f64 / secs,
                share: if all == 0 { 0.0 } else { (k.accesses as f64 / all as f64).min(1.0) },
                key: Bytes(k.key),
                accesses: k.accesses,
                error: k.error,
            }
        })
        .collect();
    HotKeysView {
        keys,
        window_ms,
        rotate_ms: WINDOW_MS,
        sample_every: SAMPLE_EVERY,
        slots_per_shard: SLOTS as u32,
        total_accesses: report.total.iter().sum(),
        sketch_bytes: report.bytes as u64,
    }
}

/// Forgets every sketch (`DELETE /api/hotkeys`).
pub fn hot_keys_reset(engine: &Engine) {
    engine.store().reset_hot_keys();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;
    use crate::Reply;

    #[test]
    fn the_most_read_key_comes_first_with_its_share() {
        let mut t = TestEngine::default();
        t.run(&["SET", "hot", "1"]);
        for i in 0..4000 {
            t.run(&["GET", "hot"]);
            t.run(&["GET", &format!("cold:{}", i % 300)]);
        }
        t.run(&["SELECT", "2"]);
        for _ in 0..64 {
            t.run(&["INCR", "counter"]);
        }
        let view = hot_keys(&t.engine, Some(3), t.now);
        assert_eq!(view.keys.len(), 3);
        assert_eq!((view.keys[0].db, &view.keys[0].key.0[..]), (0, &b"hot"[..]));
        // The hot key is one of 64 shards' only key per its shard, so it is counted exactly
        // at 1 in 16 of its shard's accesses.
        assert!((3000..=5000).contains(&view.keys[0].accesses), "{:?}", view.keys[0]);
        assert!(view.keys[0].share > 0.3 && view.keys[0].share <= 1.0, "{:?}", view.keys[0]);
        assert!(view.keys[0].per_sec > 0.0);
        assert!(view.total_accesses >= 7000, "{}", view.total_accesses);
        assert!(view.sketch_bytes > 0);
        assert!(hot_keys(&t.engine, Some(500), t.now).keys.iter().any(|k| k.db == 2 && k.key.0 == b"counter"));
        let info = t.run(&["INFO", "hotkeys"]);
        let Reply::Verbatim(info) = info else { panic!("{info:?}") };
        assert!(info.starts_with("# Hotkeys\r\nhotkeys_window_ms:"), "{info}");
        assert!(info.contains("hotkeys_sample_every:16\r\n"), "{info}");
        assert!(info.contains("hotkey_0:db=0,key=hot,accesses="), "{info}");
        // Not in the default INFO, nor in INFO all (a section of Vitrine's own).
        let Reply::Verbatim(all) = t.run(&["INFO", "all"]) else { panic!() };
        assert!(!all.contains("Hotkeys"));
        // Inside a transaction, through its locks.
        t.run(&["MULTI"]);
        t.run(&["INFO", "hotkeys"]);
        t.run(&["SET", "x", "1"]);
        let Reply::Array(replies) = t.run(&["EXEC"]) else { panic!() };
        assert!(matches!(&replies[0], Reply::Verbatim(text) if text.contains("hotkey_0:db=0,key=hot")), "{replies:?}");
        // Reads by the dashboard do not count; the window forgets.
        assert_eq!(hot_keys(&t.engine, None, t.now + 2 * WINDOW_MS).keys, []);
        hot_keys_reset(&t.engine);
        assert_eq!(hot_keys(&t.engine, None, t.now).total_accesses, 0);
    }
}
