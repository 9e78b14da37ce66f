//! A fixed, repeatable load for profiling the engine's hot path under callgrind or perf:
//! fills 100,000 keys, then feeds pipelined batches of 16 GETs (or SETs) through `feed`, as
//! `redis-benchmark -P 16` sends them. Instruction counts per command from callgrind are
//! stable to a few instructions, where wall-clock benchmarks on a shared machine are not:
//!
//!     cargo build --release -p vitrine-engine --example profile_feed
//!     valgrind --tool=callgrind --toggle-collect='*Engine::feed*' \
//!         target/release/examples/profile_feed get 20000
//!
//! then divide the total by 16 x the batches for instructions per command.

use vitrine_engine::testing::{encode_command, TestEngine};

const KEYSPACE: u64 = 100_000;
const PIPELINE: u64 = 16;

fn key(n: u64) -> Vec<u8> {
    format!("key:{n:012}").into_bytes()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "get".into());
    let batches: u64 = args.next().and_then(|n| n.parse().ok()).unwrap_or(20_000);
    let value = [b'x'; 64];
    let mut t = TestEngine::default();
    for n in 0..KEYSPACE {
        t.run(&[b"SET".as_slice(), &key(n), &value]);
    }
    // 64 distinct batches, so the same 16 keys are not always the ones in cache.
    let inputs: Vec<Vec<u8>> = (0..64u64)
        .map(|b| {
            let mut buf = Vec::new();
            for i in 0..PIPELINE {
                let k = key((b * PIPELINE + i) * 7919 % KEYSPACE);
                match kind.as_str() {
                    "set" => encode_command(&mut buf, &[b"SET".as_slice(), &k, &value]),
                    _ => encode_command(&mut buf, &[b"GET".as_slice(), &k]),
                }
            }
            buf
        })
        .collect();
    let mut out = Vec::with_capacity(16 * 1024);
    let mut replies = 0;
    for i in 0..batches {
        out.clear();
        let input = &inputs[(i % 64) as usize];
        let used = t.engine.feed(&mut t.session, input, &mut out, t.now).expect("well-formed input");
        assert_eq!(used, input.len());
        replies += out.len();
    }
    println!("{kind}: {batches} batches of {PIPELINE}, {replies} reply bytes");
}
