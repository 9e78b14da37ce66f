//! Criterion micro-benchmarks of the engine's hot path: decoding, dispatch through `feed`,
//! GET/SET through `call`, and SET under memory pressure with eviction. Run them with
//! `scripts/bench --micro` (or `cargo bench -p vitrine-engine`); `scripts/test` only compiles them.
//!
//! Keys and values look like redis-benchmark's (`key:000000012345`, 64-byte values) so these
//! numbers line up with the socket loads in `scripts/bench`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use vitrine_engine::testing::{encode_command, TestEngine};
use vitrine_engine::testing::{parse_command, Limits};
use vitrine_engine::Config;

/// Distinct keys in the keyspace, as in `redis-benchmark -r 100000`.
const KEYSPACE: u64 = 100_000;
/// Commands per pipelined batch, as in `redis-benchmark -P 16`.
const PIPELINE: usize = 16;
const VALUE: [u8; 64] = [b'x'; 64];

fn key(n: u64) -> Vec<u8> {
    format!("key:{n:012}").into_bytes()
}

/// Rewrites the digits of a `key(_)` in place: a new key without an allocation per iteration.
fn write_key(k: &mut [u8], mut n: u64) {
    for digit in k[4..].iter_mut().rev() {
        *digit = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

/// A cheap, deterministic spread over the keyspace (an LCG step), so runs are comparable.
fn spread(i: u64) -> u64 {
    i.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407) % KEYSPACE
}

/// `PIPELINE` commands back to back: all GETs, all SETs, or alternating.
fn batch(kind: &str, first: u64) -> Vec<u8> {
    let mut buf = Vec::new();
    for i in 0..PIPELINE as u64 {
        let k = key(spread(first + i));
        let set = match kind {
            "get" => false,
            "set" => true,
            _ => i % 2 == 0,
        };
        if set {
            encode_command(&mut buf, &[b"SET".as_slice(), &k, &VALUE]);
        } else {
            encode_command(&mut buf, &[b"GET".as_slice(), &k]);
        }
    }
    buf
}

/// An engine holding every key of the keyspace, so GETs hit.
fn filled() -> TestEngine {
    let mut t = TestEngine::default();
    for n in 0..KEYSPACE {
        t.run(&[b"SET".as_slice(), &key(n), &VALUE]);
    }
    t
}

fn decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Elements(PIPELINE as u64));
    let limits = Limits::default();
    for kind in ["get", "set", "mixed"] {
        let buf = batch(kind, 0);
        group.bench_function(format!("parse_command/{kind}x{PIPELINE}"), |b| {
            b.iter(|| {
                let input = black_box(buf.as_slice());
                let mut pos = 0;
                let mut args = 0;
                while let Ok(Some((argv, used))) = parse_command(&input[pos..], &limits) {
                    args += argv.len();
                    pos += used;
                }
                black_box((pos, args))
            })
        });
    }
    group.finish();
}

fn dispatch(c: &mut Criterion) {
    let mut group = c.benchmark_group("dispatch");
    group.throughput(Throughput::Elements(PIPELINE as u64));
    let mut t = filled();
    // Several distinct batches so the same 16 keys are not always hot in cache.
    for kind in ["get", "set", "mixed"] {
        let batches: Vec<Vec<u8>> = (0..64).map(|i| batch(kind, i * PIPELINE as u64)).collect();
        let mut out = Vec::with_capacity(16 * 1024);
        let mut i = 0;
        group.bench_function(format!("feed/{kind}x{PIPELINE}"), |b| {
            b.iter(|| {
                out.clear();
                let input = &batches[i % batches.len()];
                i += 1;
                let used = t.engine.feed(&mut t.session, black_box(input), &mut out, t.now);
                black_box((used, out.len()))
            })
        });
    }
    group.finish();
}

fn get_set(c: &mut Criterion) {
    let mut group = c.benchmark_group("call");
    group.throughput(Throughput::Elements(1));
    let mut t = filled();
    let keys: Vec<Vec<u8>> = (0..4096).map(|i| key(spread(i))).collect();
    let mut i = 0;
    group.bench_function("GET hit", |b| {
        b.iter(|| {
            let k = &keys[i % keys.len()];
            i += 1;
            black_box(t.run(&[b"GET".as_slice(), k]))
        })
    });
    let missing = key(KEYSPACE + 1);
    group.bench_function("GET miss", |b| b.iter(|| black_box(t.run(&[b"GET".as_slice(), &missing]))));
    group.bench_function("SET overwrite", |b| {
        b.iter(|| {
            let k = &keys[i % keys.len()];
            i += 1;
            black_box(t.run(&[b"SET".as_slice(), k, &VALUE]))
        })
    });
    group.finish();
}

fn eviction(c: &mut Criterion) {
    let mut group = c.benchmark_group("eviction");
    group.throughput(Throughput::Elements(1));
    for policy in ["allkeys-lru", "allkeys-lfu", "allkeys-random"] {
        let config = Config::default();
        config.set("maxmemory", "1mb").expect("maxmemory");
        config.set("maxmemory-policy", policy).expect("policy");
        let mut t = TestEngine::new(config);
        // Fill past the limit first, so every measured SET of a new key has to evict.
        let mut n = 0u64;
        while t.engine.snapshot(t.now).evicted_keys == 0 {
            t.run(&[b"SET".as_slice(), &key(n), &VALUE]);
            n += 1;
        }
        let mut k = key(n);
        group.bench_function(format!("SET new key/{policy}"), |b| {
            b.iter(|| {
                n += 1;
                write_key(&mut k, n);
                t.advance(1);
                black_box(t.run(&[b"SET".as_slice(), &k, &VALUE]))
            })
        });
    }
    group.finish();
}

/// The ACL check's cost at pipeline 16: GETs fed as the unrestricted `default` user (one
/// relaxed load and a bool per command) and as a restricted user (`~key:* +@read`: key
/// extraction and one glob per key).
fn acl(c: &mut Criterion) {
    let mut group = c.benchmark_group("acl");
    group.throughput(Throughput::Elements(PIPELINE as u64));
    let mut t = filled();
    t.run(&["ACL", "SETUSER", "reader", "on", "nopass", "~key:*", "+@read"]);
    let mut reader = t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now);
    t.engine.call(&mut reader, &["AUTH", "reader", "any"], t.now);
    let batches: Vec<Vec<u8>> = (0..64).map(|i| batch("get", i * PIPELINE as u64)).collect();
    for (user, session) in [("default", &mut t.session), ("restricted", &mut reader)] {
        let mut out = Vec::with_capacity(16 * 1024);
        let mut i = 0;
        group.bench_function(format!("feed/getx{PIPELINE}/{user}"), |b| {
            b.iter(|| {
                out.clear();
                let input = &batches[i % batches.len()];
                i += 1;
                let used = t.engine.feed(session, black_box(input), &mut out, t.now);
                black_box((used, out.len()))
            })
        });
        // Every GET answered with the value, not a NOPERM.
        assert!(!out.windows(7).any(|w| w == b"-NOPERM"), "{user}: {}", String::from_utf8_lossy(&out));
    }
    group.finish();
}

fn short() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50)
        .configure_from_args()
}

criterion_group! {
    name = benches;
    config = short();
    targets = decode, dispatch, get_set, eviction, acl
}
criterion_main!(benches);
