//! The memory limit holds and eviction keeps what it should: the cap check small caches
//! publish (2 MiB, 4,000 x 1 KiB), policies under a skewed workload, and OOM under noeviction.

use vitrine_engine::testing::{ok, TestEngine};
use vitrine_engine::{Config, Reply};

fn engine(maxmemory: &str, policy: &str) -> TestEngine {
    let config = Config::default();
    config.set("maxmemory", maxmemory).unwrap();
    config.set("maxmemory-policy", policy).unwrap();
    TestEngine::new(config)
}

fn used(t: &TestEngine) -> usize {
    t.used_memory()
}

fn exists(t: &mut TestEngine, key: &str) -> bool {
    t.run(&["EXISTS", key]) == Reply::Int(1)
}

#[test]
fn two_mib_cap_holds_after_every_write_and_evicts_the_oldest() {
    let mut t = engine("2mb", "allkeys-lru");
    let limit = 2 * 1024 * 1024;
    let value = "v".repeat(1024);
    for i in 0..4000 {
        t.advance(1);
        assert_eq!(t.run(&["SET", &format!("key:{i}"), &value]), ok());
        assert!(used(&t) <= limit, "used {} > limit after write {i}", used(&t));
    }
    let first_evicted = (0..100).filter(|i| !exists(&mut t, &format!("key:{i}"))).count();
    assert!(first_evicted >= 50, "only {first_evicted} of the first 100 keys were evicted");
    for i in 3995..4000 {
        assert!(exists(&mut t, &format!("key:{i}")), "key:{i} should still be there");
    }
    let stats = t.engine.snapshot(t.now);
    assert!(stats.evicted_keys > 0);
    // Used memory ends close to the limit: the cache is full, not over-evicted.
    assert!(stats.used_memory as f64 > limit as f64 * 0.9, "used {}", stats.used_memory);
}

#[test]
fn noeviction_refuses_writes_but_serves_reads() {
    let mut t = engine("100kb", "noeviction");
    let value = "x".repeat(1000);
    let mut refused = None;
    for i in 0..1000 {
        match t.run(&["SET", &format!("k{i}"), &value]) {
            Reply::Ok => {}
            Reply::Error(e) => {
                assert_eq!(e, "OOM command not allowed when used memory > 'maxmemory'.");
                refused = Some(i);
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(used(&t) <= 100 * 1024);
    }
    let refused = refused.expect("a write should have been refused");
    assert!(refused > 50, "refused too early at {refused}");
    assert_eq!(t.run(&["GET", "k0"]), Reply::Bulk(value.into_bytes()));
    assert_eq!(t.run(&["DEL", "k0"]), Reply::Int(1));
    assert_eq!(t.run(&["SET", "k0", "small"]), ok());
    assert_eq!(t.engine.snapshot(t.now).evicted_keys, 0);
}

#[test]
fn noeviction_holds_the_limit_for_long_keys_of_every_size() {
    // A key is stored inside its entry's allocation, which the allocator rounds up to a size
    // class (up to a quarter more for long keys): the write's estimate must cover that.
    // Keys that just fill a size class, so the entry's header tips the block into the next.
    // A first value of varying size moves where the limit falls between two writes.
    for class in [1_024, 4_096, 8_192, 10_240, 12_288, 16_384, 65_536, 81_920] {
        for pad in (0..class.min(16_384)).step_by(512) {
            let mut t = engine("1mb", "noeviction");
            assert_eq!(t.run(&["SET", "pad", &"p".repeat(pad)]), ok());
            for i in 0.. {
                let key = format!("{i:06}{}", "k".repeat(class - 6));
                match t.run(&["SET", &key, "v"]) {
                    Reply::Ok => {
                        assert!(used(&t) <= 1024 * 1024, "key of {class} B: used {} after write {i}", used(&t))
                    }
                    Reply::Error(e) => {
                        assert!(e.starts_with("OOM"), "{e}");
                        break;
                    }
                    other => panic!("unexpected {other:?}"),
                }
            }
        }
    }
}

#[test]
fn a_single_value_larger_than_the_limit_is_refused() {
    let mut t = engine("64kb", "allkeys-lru");
    t.run(&["SET", "keep", "me"]);
    let huge = "h".repeat(100 * 1024);
    assert_eq!(
        t.run(&["SET", "big", &huge]),
        Reply::Error("OOM command not allowed when used memory > 'maxmemory'.".into())
    );
    assert!(exists(&mut t, "keep"), "a hopeless write must not evict anything");
}

#[test]
fn volatile_lru_only_evicts_keys_with_a_ttl() {
    let mut t = engine("200kb", "volatile-lru");
    let value = "p".repeat(500);
    for i in 0..100 {
        assert_eq!(t.run(&["SET", &format!("persistent:{i}"), &value]), ok());
    }
    for i in 0..1000 {
        let r = t.run(&["SET", &format!("cache:{i}"), &value, "EX", "1000"]);
        assert!(r == Reply::Ok || r.is_error(), "{r:?}");
        assert!(used(&t) <= 200 * 1024);
    }
    for i in 0..100 {
        assert!(exists(&mut t, &format!("persistent:{i}")), "persistent:{i} was evicted");
    }
    assert!(t.engine.snapshot(t.now).evicted_keys > 0);
}

/// A small deterministic generator so the workload is the same on every run.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// Hit ratio of a skewed (80/20) workload of GET-then-SET-on-miss under `policy`.
fn hit_ratio(policy: &str) -> f64 {
    let mut t = engine("256kb", policy);
    let value = "z".repeat(200);
    let mut rng = Lcg(7);
    let (mut hits, mut total) = (0u64, 0u64);
    for i in 0..60_000 {
        // 80% of requests go to 200 hot keys, 20% to 20,000 cold ones.
        let key = if rng.next() % 100 < 80 {
            format!("hot:{}", rng.next() % 200)
        } else {
            format!("cold:{}", rng.next() % 20_000)
        };
        if i % 50 == 0 {
            t.advance(1);
        }
        let hit = t.run(&["GET", &key]) != Reply::Nil;
        if !hit {
            t.run(&["SET", &key, &value]);
        }
        if i >= 10_000 {
            total += 1;
            hits += hit as u64;
        }
    }
    hits as f64 / total as f64
}

#[test]
fn lru_keeps_the_hot_set_under_skewed_access() {
    let lru = hit_ratio("allkeys-lru");
    let lfu = hit_ratio("allkeys-lfu");
    let random = hit_ratio("allkeys-random");
    // ~1,000 entries fit; the 200 hot keys take 80% of requests, so a policy that keeps
    // them hits close to 80%; random eviction keeps only a share of them.
    assert!(lru > 0.75, "allkeys-lru hit ratio {lru:.3}");
    assert!(lfu > 0.75, "allkeys-lfu hit ratio {lfu:.3}");
    assert!(lru > random, "lru {lru:.3} should beat random {random:.3}");
}

/// Key indexes drawn from a Zipf distribution (exponent `s`) over `n` keys.
struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    fn new(n: usize, s: f64) -> Zipf {
        let weights: Vec<f64> = (1..=n).map(|k| 1.0 / (k as f64).powf(s)).collect();
        let total: f64 = weights.iter().sum();
        let mut acc = 0.0;
        Zipf {
            cdf: weights
                .iter()
                .map(|w| {
                    acc += w / total;
                    acc
                })
                .collect(),
        }
    }

    fn sample(&self, rng: &mut Lcg) -> usize {
        let u = (rng.next() % (1 << 30)) as f64 / (1u64 << 30) as f64;
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

/// allkeys-random evicts every key with the same chance, whatever its stripe or database: on
/// a Zipf workload spread over two databases, its hit ratio is an exact uniform-random cache's
/// of the same size (a model evicting with `Vec::swap_remove` at a uniform index), within noise.
/// A sampler that favoured small stripes or small databases would evict those keys too often
/// and fall below it (the fault the issue measured as 0.901 against Redis's 0.945).
#[test]
fn random_eviction_matches_an_exact_uniform_model() {
    const KEYS: usize = 40_000;
    const REQUESTS: usize = 200_000;
    let zipf = Zipf::new(KEYS, 0.9);
    let value = "z".repeat(100);
    let mut t = engine("1mb", "allkeys-random");
    let mut rng = Lcg(11);
    let requests: Vec<usize> = (0..REQUESTS).map(|_| zipf.sample(&mut rng)).collect();
    // Every third key lives in database 1, so the two databases differ in size and heat.
    let place = |i: usize| if i.is_multiple_of(3) { ("1", format!("k:{i:06}")) } else { ("0", format!("k:{i:06}")) };
    let mut selected = "0";
    let (mut hits, mut counted) = (0u64, 0u64);
    for (n, &i) in requests.iter().enumerate() {
        let (db, key) = place(i);
        if db != selected {
            t.run(&["SELECT", db]);
            selected = db;
        }
        let hit = t.run(&["GET", &key]) != Reply::Nil;
        if !hit {
            t.run(&["SET", &key, &value]);
        }
        if n >= REQUESTS / 4 {
            counted += 1;
            hits += hit as u64;
        }
    }
    let engine_ratio = hits as f64 / counted as f64;
    let capacity = t.engine.key_count();
    // The exact model: the same requests, a cache of the same number of keys.
    let mut cache: Vec<usize> = Vec::new();
    let mut slot: Vec<Option<usize>> = vec![None; KEYS];
    let mut model_rng = Lcg(99);
    let (mut model_hits, mut model_counted) = (0u64, 0u64);
    for (n, &i) in requests.iter().enumerate() {
        let hit = slot[i].is_some();
        if !hit {
            if cache.len() >= capacity {
                let victim = (model_rng.next() % cache.len() as u64) as usize;
                let gone = cache.swap_remove(victim);
                slot[gone] = None;
                if let Some(&moved) = cache.get(victim) {
                    slot[moved] = Some(victim);
                }
            }
            slot[i] = Some(cache.len());
            cache.push(i);
        }
        if n >= REQUESTS / 4 {
            model_counted += 1;
            model_hits += hit as u64;
        }
    }
    let model_ratio = model_hits as f64 / model_counted as f64;
    assert!(
        (engine_ratio - model_ratio).abs() < 0.012,
        "allkeys-random hit ratio {engine_ratio:.4} vs exact uniform random {model_ratio:.4} at {capacity} keys"
    );
}

#[test]
fn hash_field_ttls_are_accounted_and_give_their_bytes_back() {
    let mut t = TestEngine::default();
    for i in 0..200 {
        t.run(&["HSET", &format!("h{i}"), "stay", "v", "f1", "v", "f2", "v"]);
    }
    let baseline = used(&t);
    for i in 0..200 {
        t.run(&["HPEXPIRE", &format!("h{i}"), "1000", "FIELDS", "2", "f1", "f2"]);
    }
    let with_ttls = used(&t);
    assert!(with_ttls > baseline + 200 * 2 * 32, "{with_ttls} vs {baseline}");
    // Dropping the TTLs gives back exactly what they cost.
    for i in 0..100 {
        t.run(&["HPERSIST", &format!("h{i}"), "FIELDS", "2", "f1", "f2"]);
    }
    for i in 0..100 {
        t.run(&["HPEXPIRE", &format!("h{i}"), "1000", "FIELDS", "2", "f1", "f2"]);
    }
    assert_eq!(used(&t), with_ttls);
    // Once the fields expire (active cycle), the hashes are back to their one field; HSET
    // of the fields brings the baseline back.
    t.advance(2000);
    for _ in 0..200 {
        vitrine_engine::inspect::expiry_cycle(&t.engine, t.now, 16, || true);
    }
    for i in 0..200 {
        assert_eq!(t.run(&["HLEN", &format!("h{i}")]), Reply::Int(1));
        t.run(&["HSET", &format!("h{i}"), "f1", "v", "f2", "v"]);
    }
    assert_eq!(used(&t), baseline);
    // Hashes made only of fields with a TTL go entirely.
    for i in 0..200 {
        t.run(&["HSETEX", &format!("e{i}"), "PX", "10", "FIELDS", "1", "f", "v"]);
    }
    t.advance(20);
    for _ in 0..200 {
        vitrine_engine::inspect::expiry_cycle(&t.engine, t.now, 16, || true);
    }
    assert_eq!(used(&t), baseline);
}
