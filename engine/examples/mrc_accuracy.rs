//! How right the what-if curve is: replays the same seeded workloads (Zipf, and Zipf mixed
//! with a scan) against engines at 0.5x, 1x and 2x a memory limit, and compares the hit
//! ratios measured at 0.5x and 2x with those the 1x engine's miss-ratio curve predicted.
//! Prints a markdown table (the README's, under the Evictions page):
//!
//!     cargo run --release -p vitrine-engine --example mrc_accuracy
//!
//! or `scripts/bench --mrc`. An accuracy benchmark, not a test: nothing here fails.
//! Look-aside use, as a cache's clients do: a GET, and on a miss a SET of the key.

use vitrine_engine::inspect::{self, WhatIfView};
use vitrine_engine::testing::TestEngine;
use vitrine_engine::Config;

/// splitmix64: the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

struct Workload {
    name: &'static str,
    /// Keys drawn by Zipf rank.
    keys: usize,
    /// Zipf exponent.
    s: f64,
    /// Share of accesses that come from a cyclic scan over `scan_keys` other keys.
    scan_share: f64,
    scan_keys: usize,
}

const WORKLOADS: [Workload; 2] = [
    Workload { name: "Zipf 0.9", keys: 100_000, s: 0.9, scan_share: 0.0, scan_keys: 0 },
    Workload { name: "Zipf 0.9 + 20% scan", keys: 100_000, s: 0.9, scan_share: 0.2, scan_keys: 150_000 },
];
const OPS: usize = 3_000_000;
const BASE: u64 = 8 << 20;
const SEED: u64 = 2015;

/// The cumulative Zipf distribution over `n` ranks.
fn zipf_cdf(n: usize, s: f64) -> Vec<f64> {
    let mut cdf: Vec<f64> = (1..=n).map(|r| 1.0 / (r as f64).powf(s)).collect();
    let mut sum = 0.0;
    for p in cdf.iter_mut() {
        sum += *p;
        *p = sum;
    }
    cdf.iter_mut().for_each(|p| *p /= sum);
    cdf
}

/// The measured hit ratio of `w` at `maxmemory`, and the engine's what-if view at the end.
fn run(w: &Workload, cdf: &[f64], maxmemory: u64) -> (f64, WhatIfView) {
    let config = Config::default();
    config.set("maxmemory", &maxmemory.to_string()).expect("a size");
    config.set("maxmemory-policy", "allkeys-lru").expect("a policy");
    let mut t = TestEngine::new(config);
    let mut rng = Rng(SEED);
    let mut scan = 0usize;
    let value = vec![b'v'; 1024];
    for _ in 0..OPS {
        let (key, n) = if w.scan_share > 0.0 && rng.unit() < w.scan_share {
            scan = (scan + 1) % w.scan_keys;
            (format!("scan:{scan:08}"), scan as u64)
        } else {
            let u = rng.unit();
            let rank = cdf.partition_point(|&p| p < u).min(cdf.len() - 1);
            (format!("zipf:{rank:08}"), rank as u64)
        };
        if t.run(&[b"GET".as_slice(), key.as_bytes()]) == vitrine_engine::Reply::Nil {
            // Values of 100 to 1,000 bytes, fixed per key.
            let size = 100 + (n.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 54) as usize % 901;
            t.run(&[b"SET".as_slice(), key.as_bytes(), &value[..size]]);
        }
    }
    let snap = t.engine.snapshot(t.now);
    let ratio = snap.hits as f64 / (snap.hits + snap.misses).max(1) as f64;
    (ratio, inspect::what_if(&t.engine, t.now))
}

fn main() {
    println!("| Workload | Memory | Measured hit ratio | Predicted at 1x | Error (points) |");
    println!("|---|---|---|---|---|");
    let mut worst: f64 = 0.0;
    for w in &WORKLOADS {
        let cdf = zipf_cdf(w.keys, w.s);
        let (at_1x, view) = run(w, &cdf, BASE);
        let predicted = |factor: f64| view.points.iter().find(|p| p.factor == factor).map(|p| p.hit_ratio);
        for (factor, measured) in [(0.5, run(w, &cdf, BASE / 2).0), (1.0, at_1x), (2.0, run(w, &cdf, BASE * 2).0)] {
            let p = predicted(factor).unwrap_or(f64::NAN);
            let error = (p - measured) * 100.0;
            worst = worst.max(error.abs());
            println!(
                "| {} | {:.1}x = {} MiB | {:.1}% | {:.1}% | {:+.1} |",
                w.name,
                factor,
                (BASE as f64 * factor) as u64 >> 20,
                measured * 100.0,
                p * 100.0,
                error
            );
        }
        eprintln!(
            "{}: {} sampled keys, rate 1/{:.0}, {:.0} sampled reads, sampler {} bytes, unlimited {:.1}%",
            w.name,
            view.sampled_keys,
            1.0 / view.sample_rate,
            view.sampled_reads,
            view.sampler_bytes,
            view.unlimited.unwrap_or(0.0) * 100.0
        );
    }
    println!();
    println!(
        "{OPS} look-aside accesses (GET, then SET on a miss) per run, seed {SEED}, allkeys-lru; worst error {worst:.1} points."
    );
}
