//! The playground answers exactly as the server would: every command of the parity scripts is
//! also sent, as the RESP bytes redis-cli would send, through `Engine::feed` (the server's
//! path: decode, dispatch, encode) on a twin engine with the same seed, clock and settings, and
//! the bytes that come back must be the playground's `resp`, byte for byte.
//!
//! Together with `parity.test.mjs` (the wasm build against the native replay of the same
//! scripts) this ties the browser to the server.

use std::path::PathBuf;

use serde_json::Value;
use vitrine_engine::inspect::bytes_from_json;
use vitrine_engine::inspect::split_line;
use vitrine_engine::HostFacts;
use vitrine_engine::{Config, Engine};
use vitrine_wasm::replay::{parse, transcript, Step, SEED, START_MS};
use vitrine_wasm::{expiry_cycle, fill_key, fill_value, Playground, FILL_MAX_BYTES, FILL_MAX_KEYS, FILL_MAX_VALUE};

fn scripts() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scripts");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("tests/scripts")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "redis"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    assert!(out.len() >= 4, "parity scripts missing from {}", dir.display());
    out
}

/// A multibulk request, as redis-cli sends a typed line.
fn multibulk(argv: &[Vec<u8>]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", argv.len()).into_bytes();
    for a in argv {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// The server's side: an engine driven through `feed`, set up as `Playground::new` sets its own.
struct Twin {
    engine: Engine,
    session: vitrine_engine::Session,
    fill_next: u64,
}

impl Twin {
    fn new() -> Twin {
        let engine = Engine::new(Config::default(), START_MS, SEED as u64);
        engine.set_host_facts(HostFacts { threads: 1, executable: "vitrine-wasm".into(), ..HostFacts::default() });
        let session = engine.new_session("browser:0", "playground:0", START_MS);
        Twin { engine, session, fill_next: 0 }
    }

    fn send(&mut self, argv: &[Vec<u8>], now: u64) -> Vec<u8> {
        let input = multibulk(argv);
        let mut out = Vec::new();
        let used = self.engine.feed(&mut self.session, &input, &mut out, now).expect("well-formed request");
        assert_eq!(used, input.len());
        out
    }
}

#[test]
fn playground_replies_are_the_servers_bytes() {
    for (name, script) in scripts() {
        let mut now = START_MS;
        let mut pg = Playground::new(now as f64, SEED);
        let mut twin = Twin::new();
        let mut compared = 0;
        for (line, step) in parse(&script) {
            let t = now as f64;
            match step {
                Step::Line(text) => {
                    let out: Value = serde_json::from_str(&pg.console(&text, t)).unwrap();
                    if out["kind"] != "reply" {
                        continue;
                    }
                    let argv = split_line(text.as_bytes()).unwrap();
                    let server = twin.send(&argv, now);
                    let playground = bytes_from_json(&out["resp"]).unwrap();
                    assert_eq!(
                        String::from_utf8_lossy(&playground),
                        String::from_utf8_lossy(&server),
                        "{name}: {line}"
                    );
                    compared += 1;
                }
                Step::Advance(ms) => now += ms,
                Step::Config(n, v) => {
                    let _ = pg.set_config(&n, &v, t);
                    twin.send(&[b"CONFIG".to_vec(), b"SET".to_vec(), n.into_bytes(), v.into_bytes()], now);
                }
                Step::Sweep => {
                    assert_eq!(pg.expiry_cycle(t) as usize, expiry_cycle(&twin.engine, now), "{name}: {line}")
                }
                Step::Fill(count, size) => {
                    let _ = pg.fill(count, size, t);
                    if count > FILL_MAX_KEYS || size > FILL_MAX_VALUE || count as u64 * size as u64 > FILL_MAX_BYTES {
                        continue;
                    }
                    for _ in 0..count {
                        let key = fill_key(twin.fill_next).into_bytes();
                        twin.fill_next += 1;
                        if twin.send(&[b"SET".to_vec(), key, fill_value(size as usize)], now).starts_with(b"-") {
                            break;
                        }
                    }
                }
                Step::Stats | Step::Keys(..) | Step::Scan(..) | Step::Events => {}
            }
        }
        assert!(compared > 10, "{name}: only {compared} commands compared");
        assert_eq!(pg.stats_json(now as f64), serde_json::to_string(&twin.engine.snapshot(now)).unwrap(), "{name}");
    }
}

#[test]
fn transcripts_are_deterministic() {
    for (name, script) in scripts() {
        assert_eq!(transcript(&script), transcript(&script), "{name}");
    }
}

#[test]
fn eviction_script_really_evicts() {
    let (_, script) = scripts().into_iter().find(|(n, _)| n == "eviction.redis").unwrap();
    let t = transcript(&script);
    assert!(t.contains(r#""kind":"evicted""#), "no eviction recorded");
    assert!(t.contains("OOM command not allowed"), "noeviction never refused a write");
}
