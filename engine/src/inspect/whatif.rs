//! What-if memory for the Evictions page: the miss-ratio curve (the hit ratio the current
//! workload would get at 0.25x to 4x the memory limit, and without one), the ghost record's
//! horizon that misses by cause are classified within, and a plain-language reading of both.

use std::sync::atomic::Ordering::Relaxed;

use serde::Serialize;
use ts_rs::TS;

use crate::store::misses;
use crate::Engine;

/// Multiples of maxmemory the curve is estimated at.
pub const FACTORS: [f64; 11] = [0.25, 0.375, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0];

/// How far back misses are classified, and what the record costs.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct GhostView {
    /// Departures (evictions and expirations) it can remember.
    pub capacity: u64,
    /// Departures it remembers now (all of them until it fills).
    pub horizon_departures: u64,
    /// How long ago the oldest remembered departure was; null while it remembers every
    /// departure since the start (or `CONFIG RESETSTAT`), or until it knows.
    pub horizon_ms: Option<u64>,
    /// Bytes the record takes: outside used_memory, never counted against maxmemory.
    pub bytes: u64,
    /// The most it ever takes, however large the keyspace.
    pub max_bytes: u64,
    /// Fingerprints kept per live key (the record grows with the keyspace).
    pub per_live_key: u32,
}

/// The estimated hit ratio at one memory limit.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct CurvePointView {
    /// The limit as a multiple of the current one (of used memory when there is none).
    pub factor: f64,
    pub bytes: u64,
    pub hit_ratio: f64,
}

/// `GET /api/evictions/what-if`.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
#[ts(rename = "WhatIf")]
pub struct WhatIfView {
    pub now_ms: u64,
    pub maxmemory: u64,
    pub used_memory: u64,
    /// What the factors multiply: maxmemory, or used memory when there is no limit.
    pub base_bytes: u64,
    /// Empty until reads have been sampled.
    pub points: Vec<CurvePointView>,
    /// The estimated hit ratio without a memory limit (only first reads miss).
    pub unlimited: Option<f64>,
    /// Reads the curve is estimated from (sampled, decayed: recent ones weigh most).
    pub sampled_reads: f64,
    /// Keys sampled now, and the fraction of keys sampled.
    pub sampled_keys: u64,
    pub sample_rate: f64,
    /// Bytes the sampler takes (outside used_memory).
    pub sampler_bytes: u64,
    pub ghost: GhostView,
}

/// The ghost record's horizon at `now_ms` (which also marks the departures so far, to time
/// the horizon by).
fn horizon(engine: &Engine, now_ms: u64) -> misses::Horizon {
    let counters = &engine.stats().keyspace;
    let departures = counters.evicted_keys.load(Relaxed) + counters.expired_keys.load(Relaxed);
    engine.store().common.misses.horizon(now_ms, departures)
}

/// Marks the departures so far at `now_ms` (the hosts' once-a-second sample does).
pub(crate) fn mark_horizon(engine: &Engine, now_ms: u64) {
    horizon(engine, now_ms);
}

/// The miss-ratio curve and the ghost record's horizon, at `now_ms`.
pub fn what_if(engine: &Engine, now_ms: u64) -> WhatIfView {
    let common = &engine.store().common;
    let h = horizon(engine, now_ms);
    let maxmemory = engine.config().maxmemory();
    let used_memory = engine.store().used_memory() as u64;
    let base_bytes = if maxmemory > 0 { maxmemory } else { used_memory };
    let sizes: Vec<u64> = FACTORS.iter().map(|f| (base_bytes as f64 * f) as u64).collect();
    let points = match common.mrc.curve(&sizes) {
        Some(curve) if base_bytes > 0 => FACTORS
            .iter()
            .zip(curve)
            .map(|(&factor, p)| CurvePointView { factor, bytes: p.bytes, hit_ratio: p.hit_ratio })
            .collect(),
        _ => Vec::new(),
    };
    let facts = common.mrc.facts();
    WhatIfView {
        now_ms,
        maxmemory,
        used_memory,
        base_bytes,
        points,
        unlimited: facts.unlimited,
        sampled_reads: facts.sampled_reads,
        sampled_keys: facts.sampled_keys,
        sample_rate: facts.rate,
        sampler_bytes: facts.bytes,
        ghost: GhostView {
            capacity: h.capacity,
            horizon_departures: h.departures,
            horizon_ms: h.ms,
            bytes: h.bytes,
            max_bytes: misses::MAX_BYTES as u64,
            per_live_key: misses::PER_LIVE_KEY as u32,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;
    use crate::Config;

    /// A deterministic generator (splitmix64).
    fn rng(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The docker demo's load (`redis-benchmark -r 30000 -d 512 -t set,get`: 30,000 keys of
    /// 512 bytes, SETs and GETs of uniformly random keys) at `maxmemory`: the hit ratio, the
    /// misses by cause over the second half (once every key has been written), and the
    /// what-if view.
    fn demo(maxmemory: &str, ops: usize) -> (f64, [u64; 3], u64, WhatIfView) {
        let config = Config::default();
        config.set("maxmemory", maxmemory).unwrap();
        config.set("maxmemory-policy", "allkeys-lru").unwrap();
        let mut t = TestEngine::new(config);
        let value = "v".repeat(512);
        let mut r = 18;
        let (mut hits, mut reads) = (0u64, 0u64);
        let causes = |t: &TestEngine| {
            let s = t.engine.snapshot(t.now);
            [s.misses_never_seen, s.misses_expired, s.misses_evicted]
        };
        let mut half = [0; 3];
        for i in 0..ops {
            if i == ops / 2 {
                half = causes(&t);
            }
            let key = format!("key:{:012}", rng(&mut r) % 30_000);
            if i % 2 == 0 {
                t.run(&["SET", &key, &value]);
            } else {
                let before = t.engine.stats().keyspace.hits.load(Relaxed);
                t.run(&["GET", &key]);
                hits += t.engine.stats().keyspace.hits.load(Relaxed) - before;
                reads += 1;
            }
            if i % 10_000 == 0 {
                t.advance(100);
                what_if(&t.engine, t.now); // the dashboard's once-a-second look
            }
        }
        let end = causes(&t);
        let late = [end[0] - half[0], end[1] - half[1], end[2] - half[2]];
        (hits as f64 / reads as f64, late, t.engine.snapshot(t.now).evicted_keys, what_if(&t.engine, t.now))
    }

    #[test]
    fn the_demo_load_at_8mb_misses_by_eviction_and_more_memory_would_help() {
        let ops = 600_000;
        let (ratio, [never, expired, evicted], evictions, view) = demo("8mb", ops);
        assert!(evictions > 100_000, "evicted {evictions}");
        // Once every key has been written, nearly every miss is an eviction, however fast the
        // keyspace turns over (the fixed 8,192-slot record read 64% of them as never seen).
        assert_eq!(expired, 0);
        assert!(evicted > 50_000 && never * 100 < evicted, "evicted {evicted}, never seen {never}");
        assert!(view.ghost.horizon_departures > 0 && view.ghost.capacity >= 4 * 10_000, "{:?}", view.ghost);
        assert!(view.ghost.bytes < 2 << 20, "ghost bytes {}", view.ghost.bytes);
        // The curve agrees with what was measured at 1x, and predicts a rise at 4x.
        let at = |f: f64| view.points.iter().find(|p| p.factor == f).map(|p| p.hit_ratio).unwrap();
        eprintln!("measured {ratio}, curve {:?}", view.points);
        assert!((at(1.0) - ratio).abs() < 0.08, "predicted {} measured {ratio}", at(1.0));
        let predicted_4x = at(4.0);
        assert!(predicted_4x > ratio + 0.3, "predicted at 4x {predicted_4x}, measured at 1x {ratio}");

        // A rerun at 4x the memory: a much higher hit ratio, as predicted.
        let (ratio_4x, _, evictions_4x, _) = demo("32mb", ops);
        assert!(ratio_4x > ratio + 0.3, "4x {ratio_4x} vs 1x {ratio}");
        assert!((ratio_4x - predicted_4x).abs() < 0.1, "4x measured {ratio_4x} predicted {predicted_4x}");
        assert_eq!(evictions_4x, 0);
    }

    #[test]
    fn reads_of_keys_never_written_are_never_seen_and_more_memory_would_not_help() {
        let config = Config::default();
        config.set("maxmemory", "1mb").unwrap();
        let mut t = TestEngine::new(config);
        for i in 0..50_000 {
            t.run(&["GET", &format!("nothing:{i}")]);
        }
        let snap = t.engine.snapshot(t.now);
        assert_eq!(snap.misses_never_seen, 50_000);
        let view = what_if(&t.engine, t.now);
        assert!(view.points.iter().all(|p| p.hit_ratio == 0.0), "{:?}", view.points);
        assert_eq!(view.unlimited, Some(0.0));
        assert_eq!(view.ghost.horizon_ms, None);
    }
}
