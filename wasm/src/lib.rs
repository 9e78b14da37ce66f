//! `vitrine-wasm`: the Vitrine engine for the browser playground, as one small JavaScript class,
//! [`Playground`]. It runs commands typed as redis-cli would take them, and reports stats, keys
//! and recent evictions and expirations, all as JSON text.
//!
//! The engine has no clock: every method that can expire or evict keys takes `now_ms`, the
//! caller's `Date.now()`. A Redis error is an ordinary reply (`{"type":"error",...}`), never a
//! JavaScript exception; only misuse of the API itself (a bad `fill` size, a bad cursor, a
//! refused setting) throws.
//!
//! JSON text rather than JS objects: it keeps the module small, and JSON shapes are the same as
//! the admin HTTP API's (`reply_json`, `/api/stats`, `/api/keys`, `/api/evictions/recent`,
//! `/api/commands`), so the web app reads both with the same code.
//!
//! Everything here also compiles natively (the `rlib`), which is how `examples/replay.rs` runs
//! the very same calls for the wasm-vs-native parity test (`tests/parity.test.mjs`).

pub mod help;
#[cfg(not(target_arch = "wasm32"))]
pub mod replay;

use std::sync::atomic::Ordering::Relaxed;

use serde_json::{json, Value as Json};
use vitrine_engine::reply_json::bytes_to_json;
use vitrine_engine::resp::split_line;
use vitrine_engine::stats::HostFacts;
use vitrine_engine::store::entry::Entry;
use vitrine_engine::store::evict::lfu_decay;
use vitrine_engine::{glob, reply_cli, Config, Engine, Reply, Session};
use wasm_bindgen::prelude::*;

/// Keys with a TTL sampled per sweep round, as the server's maintenance task.
pub const SWEEP_BUDGET: usize = 200;
/// Most sweep rounds one `sweep` call runs (the server bounds its cycle by time instead; the
/// playground has no clock of its own and stays deterministic).
pub const SWEEP_MAX_ROUNDS: usize = 16;
/// Most keys one listing call returns.
pub const MAX_KEYS: u32 = 10_000;
/// Bounds of one `fill`: keys, bytes per value, and bytes in all.
pub const FILL_MAX_KEYS: u32 = 100_000;
pub const FILL_MAX_VALUE: u32 = 1024 * 1024;
pub const FILL_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The engine, one client session, and what the playground adds around them.
#[wasm_bindgen]
pub struct Playground {
    engine: Engine,
    session: Session,
    /// Number of the next key `fill` writes (`fill:000000`, `fill:000001`, ...).
    fill_next: u64,
}

/// Milliseconds from JavaScript (`Date.now()`, a double) as the engine's unix ms: NaN and
/// negative times are 0, and nothing is later than `Number.MAX_SAFE_INTEGER`, so the engine's
/// time arithmetic cannot overflow whatever a caller passes.
fn ms(now_ms: f64) -> u64 {
    const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
    if now_ms > 0.0 {
        now_ms.min(MAX_SAFE_INTEGER) as u64
    } else {
        0
    }
}

#[wasm_bindgen]
impl Playground {
    /// A new, empty cache with the server's defaults (no memory limit, `noeviction`).
    /// `seed` keys the engine's hashing and sampling; pass something random
    /// (`Math.random() * 2 ** 32`), or a constant for a reproducible run.
    #[wasm_bindgen(constructor)]
    pub fn new(now_ms: f64, seed: f64) -> Playground {
        let now = ms(now_ms);
        let seed = if seed.is_finite() { seed.abs() as u64 } else { 0 };
        let engine = Engine::new(Config::default(), now, seed);
        engine.set_host_facts(HostFacts { threads: 1, executable: "vitrine-wasm".into(), ..HostFacts::default() });
        let session = engine.new_session("browser:0", "playground:0", now);
        Playground { engine, session, fill_next: 0 }
    }

    /// The engine's version.
    pub fn version() -> String {
        vitrine_engine::VERSION.to_string()
    }

    /// Runs one line as typed into redis-cli: split with redis-cli's quoting rules, then run
    /// (or answered locally, as redis-cli answers `help` and `clear`). Returns JSON:
    ///
    /// - `{"kind":"reply","argv":[...],"reply":{tagged reply},"text":"...","resp":"..."}`:
    ///   `text` is exactly what redis-cli prints (final newline included), `resp` the bytes
    ///   the server would send (as a string, or `{"base64":...}`);
    /// - `{"kind":"empty","text":""}` for a blank line;
    /// - `{"kind":"invalid","text":"Invalid argument(s)\n"}` for unbalanced quotes;
    /// - `{"kind":"help","text":"..."}` for `help`, `help <command>`, `help @<group>`;
    /// - `{"kind":"clear","text":""}` for `clear` (the console clears its screen).
    pub fn run_line(&mut self, line: &str, now_ms: f64) -> String {
        let Some(argv) = split_line(line.as_bytes()) else {
            return json!({ "kind": "invalid", "text": "Invalid argument(s)\n" }).to_string();
        };
        let Some(first) = argv.first() else {
            return json!({ "kind": "empty", "text": "" }).to_string();
        };
        if first.eq_ignore_ascii_case(b"help") || first == b"?" {
            return json!({ "kind": "help", "text": help::help(&argv[1..]) }).to_string();
        }
        if argv.len() == 1 && first.eq_ignore_ascii_case(b"clear") {
            return json!({ "kind": "clear", "text": "" }).to_string();
        }
        let reply = self.exec(&argv, ms(now_ms));
        let resp3 = self.session.resp3;
        json!({
            "kind": "reply",
            "argv": argv.iter().map(|a| bytes_to_json(a)).collect::<Vec<_>>(),
            "reply": reply.to_json(),
            "text": reply_cli::format_for_command(&argv, &reply, resp3),
            "resp": bytes_to_json(&reply.to_resp(resp3)),
        })
        .to_string()
    }

    /// Runs one already-split command, as `POST /api/command` does, and returns its tagged
    /// JSON reply (`{"type":"status","value":"OK"}`).
    pub fn call(&mut self, argv: Vec<String>, now_ms: f64) -> String {
        self.exec(&argv, ms(now_ms)).to_json().to_string()
    }

    /// Everything the dashboard shows, as `GET /api/stats` (the engine's `StatsSnapshot`).
    pub fn stats_json(&self, now_ms: f64) -> String {
        serde_json::to_string(&self.engine.snapshot(ms(now_ms))).unwrap_or_default()
    }

    /// Up to `count` keys matching the glob `pattern` (`*` or empty for all), for a live key
    /// list: `{"keys":[{"key","type","ttl_ms","size","idle_ms","freq"}],"truncated":bool}`.
    /// `ttl_ms` is null for a key without a TTL. Looking does not touch keys (their LRU/LFU
    /// stamps stay as they were), and does not count as hits or misses.
    pub fn keys_json(&self, pattern: &str, count: u32, now_ms: f64) -> String {
        let now = ms(now_ms);
        let want = count.clamp(1, MAX_KEYS) as usize;
        let pattern = (!pattern.is_empty() && pattern != "*").then_some(pattern.as_bytes());
        let store = self.engine.store();
        let mut keys = Vec::new();
        let mut cursor = 0;
        loop {
            cursor = store.scan(cursor, 1000, now, |key, entry| {
                if pattern.is_none_or(|p| glob::matches(p, key)) {
                    keys.push(self.key_row(key, entry, now));
                }
            });
            if cursor == 0 || keys.len() >= want {
                break;
            }
        }
        let truncated = keys.len() > want || (cursor != 0 && keys.len() == want);
        keys.truncate(want);
        json!({ "keys": keys, "truncated": truncated }).to_string()
    }

    /// One SCAN step with the same query and answer as `GET /api/keys`:
    /// `{"cursor":"...","done":bool,"keys":[...]}`. Pass the returned cursor back until `done`.
    /// `type_name` filters by type (empty for any). Throws on a cursor this did not return.
    pub fn scan_keys_json(
        &self,
        pattern: &str,
        type_name: &str,
        cursor: &str,
        count: u32,
        now_ms: f64,
    ) -> Result<String, String> {
        let cursor = match cursor {
            "" => 0,
            c => c.parse::<u64>().map_err(|_| "cursor must be a cursor returned by scan_keys_json".to_string())?,
        };
        let now = ms(now_ms);
        let pattern = (!pattern.is_empty() && pattern != "*").then_some(pattern.as_bytes());
        let type_name = type_name.to_ascii_lowercase();
        let mut keys = Vec::new();
        let next = self.engine.store().scan(cursor, count.clamp(1, MAX_KEYS) as usize, now, |key, entry| {
            if (type_name.is_empty() || type_name == entry.value.type_name())
                && pattern.is_none_or(|p| glob::matches(p, key))
            {
                keys.push(self.key_row(key, entry, now));
            }
        });
        Ok(json!({ "cursor": next.to_string(), "done": next == 0, "keys": keys }).to_string())
    }

    /// The latest evictions and expirations, newest first, as `GET /api/evictions/recent`:
    /// `{"now_ms","policy","evicted_keys","expired_keys","events":[{"kind","key","policy",
    /// "idle_ms","freq","size","at_ms"}]}`.
    pub fn events_json(&self, now_ms: f64) -> String {
        let mut events = self.engine.recent_events();
        events.reverse();
        let stats = self.engine.stats();
        json!({
            "now_ms": ms(now_ms),
            "policy": self.engine.config().policy().name(),
            "evicted_keys": stats.evicted_keys.load(Relaxed),
            "expired_keys": stats.expired_keys.load(Relaxed),
            "events": events,
        })
        .to_string()
    }

    /// The command table, as `GET /api/commands`: `{"commands":[{"name","arity","flags",
    /// "first_key","last_key","step","group","summary","syntax"}]}`, for help and autocomplete.
    pub fn commands_json() -> String {
        help::commands_json().to_string()
    }

    /// Active expiry, for a `setInterval` (the server runs it `hz` times a second): sweeps
    /// while many of the sampled keys were stale, at most 16 rounds. Returns how many keys
    /// expired. Also samples the ops/sec rate that `stats_json` reports.
    pub fn sweep(&self, now_ms: f64) -> u32 {
        sweep_cycle(&self.engine, ms(now_ms)) as u32
    }

    /// Changes a setting as `CONFIG SET name value` does (a lower `maxmemory` evicts at once).
    /// Throws the Redis error text when the setting is refused.
    pub fn set_config(&mut self, name: &str, value: &str, now_ms: f64) -> Result<(), String> {
        match self.exec(&["CONFIG", "SET", name, value], ms(now_ms)) {
            Reply::Error(text) => Err(text),
            _ => Ok(()),
        }
    }

    /// Writes `count` new keys (`fill:000000`, `fill:000001`, ...) of `value_size` bytes each
    /// with `SET`, so a person can watch eviction at work. Stops at the first error (OOM under
    /// `noeviction`). Returns `{"requested","written","error","evicted","keys","used_memory",
    /// "maxmemory"}`, `error` being the Redis error text or null. Throws when asked for more
    /// than 100000 keys, values over 1 MiB, or over 64 MiB in all.
    pub fn fill(&mut self, count: u32, value_size: u32, now_ms: f64) -> Result<String, String> {
        if count > FILL_MAX_KEYS || value_size > FILL_MAX_VALUE || count as u64 * value_size as u64 > FILL_MAX_BYTES {
            return Err(format!(
                "fill writes at most {FILL_MAX_KEYS} keys, {FILL_MAX_VALUE} bytes per value and {FILL_MAX_BYTES} bytes in all"
            ));
        }
        let now = ms(now_ms);
        let evicted_before = self.engine.snapshot(now).evicted_keys;
        let value = fill_value(value_size as usize);
        let mut written = 0u32;
        let mut error = None;
        for _ in 0..count {
            let key = fill_key(self.fill_next);
            self.fill_next += 1;
            match self.exec(&[&b"SET"[..], key.as_bytes(), &value], now) {
                Reply::Error(text) => {
                    error = Some(text);
                    break;
                }
                _ => written += 1,
            }
        }
        let snap = self.engine.snapshot(now);
        Ok(json!({
            "requested": count,
            "written": written,
            "error": error,
            "evicted": snap.evicted_keys - evicted_before,
            "keys": snap.keys,
            "used_memory": snap.used_memory,
            "maxmemory": snap.maxmemory,
        })
        .to_string())
    }
}

impl Playground {
    /// Runs a command in this playground's session.
    pub fn exec<A: AsRef<[u8]>>(&mut self, argv: &[A], now: u64) -> Reply {
        let reply = self.engine.call(&mut self.session, argv, now);
        // QUIT asks the host to close the connection; a playground has none to close.
        self.session.closing = false;
        reply
    }

    /// The engine underneath (for native tests).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    fn key_row(&self, key: &[u8], entry: &Entry, now: u64) -> Json {
        let store = self.engine.store();
        json!({
            "key": bytes_to_json(key),
            "type": entry.value.type_name(),
            "ttl_ms": (entry.expire_at != 0).then(|| entry.expire_at.saturating_sub(now)),
            "size": entry.size,
            "idle_ms": store.common.idle_ms(entry, now),
            "freq": lfu_decay(entry, now, self.engine.config().lfu_decay_time()),
        })
    }
}

/// One active-expiry cycle as the playground runs it: sweep rounds while more than a quarter
/// of the sampled keys were stale, at most [`SWEEP_MAX_ROUNDS`]. Returns the keys expired.
pub fn sweep_cycle(engine: &Engine, now: u64) -> usize {
    let mut expired = 0;
    for _ in 0..SWEEP_MAX_ROUNDS {
        let report = engine.sweep(now, SWEEP_BUDGET);
        expired += report.expired;
        if report.sampled == 0 || report.expired * 4 <= report.sampled {
            break;
        }
    }
    expired
}

/// The name of the `n`th key `fill` writes.
pub fn fill_key(n: u64) -> String {
    format!("fill:{n:06}")
}

/// The value `fill` writes: printable, so it reads well in the console.
pub fn fill_value(size: usize) -> Vec<u8> {
    b"0123456789abcdefghijklmnopqrstuvwxyz".iter().copied().cycle().take(size).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: f64 = 1_700_000_000_000.0;

    fn line(pg: &mut Playground, text: &str) -> Json {
        serde_json::from_str(&pg.run_line(text, T0)).unwrap()
    }

    #[test]
    fn lines_are_split_run_and_printed_as_redis_cli() {
        let mut pg = Playground::new(T0, 1.0);
        let out = line(&mut pg, r#"SET greeting "hello world""#);
        assert_eq!(out["argv"], json!(["SET", "greeting", "hello world"]));
        assert_eq!(out["text"], "OK\n");
        let out = line(&mut pg, "MGET greeting nope");
        assert_eq!(out["text"], "1) \"hello world\"\n2) (nil)\n");
        assert_eq!(out["resp"], "*2\r\n$11\r\nhello world\r\n$-1\r\n");
        assert_eq!(out["reply"]["type"], "array");
        // Binary replies stay binary-safe in JSON.
        line(&mut pg, r#"SET bin "\xff""#);
        let out = line(&mut pg, "GET bin");
        assert_eq!(out["text"], "\"\\xff\"\n");
        assert_eq!(out["resp"], json!({ "base64": "JDENCv8NCg==" }));
    }

    #[test]
    fn lines_answered_without_the_engine() {
        let mut pg = Playground::new(T0, 1.0);
        assert_eq!(line(&mut pg, "   "), json!({ "kind": "empty", "text": "" }));
        assert_eq!(line(&mut pg, "GET 'k"), json!({ "kind": "invalid", "text": "Invalid argument(s)\n" }));
        assert_eq!(line(&mut pg, "clear"), json!({ "kind": "clear", "text": "" }));
        assert_eq!(line(&mut pg, "HELP get")["kind"], "help");
        assert_eq!(line(&mut pg, "? get")["kind"], "help");
        assert_eq!(pg.engine().snapshot(ms(T0)).commands_processed, 0);
    }

    #[test]
    fn protocol_follows_hello_and_quit_keeps_the_session() {
        let mut pg = Playground::new(T0, 1.0);
        assert_eq!(
            line(&mut pg, "HELLO 3")["text"].as_str().unwrap().lines().next(),
            Some("1# \"server\" => \"vitrine\"")
        );
        assert_eq!(line(&mut pg, "GET nope")["resp"], "_\r\n");
        assert_eq!(line(&mut pg, "QUIT")["text"], "OK\n");
        assert_eq!(line(&mut pg, "PING")["text"], "PONG\n");
    }

    #[test]
    fn errors_are_replies() {
        let mut pg = Playground::new(T0, 1.0);
        let out = line(&mut pg, "NOSUCH x");
        assert_eq!(out["kind"], "reply");
        assert_eq!(out["text"], "(error) ERR unknown command 'NOSUCH', with args beginning with: 'x' \n");
        assert_eq!(pg.call(vec![], T0), r#"{"type":"error","value":"ERR empty command"}"#);
        assert_eq!(
            pg.call(vec!["INCR".into()], T0),
            r#"{"type":"error","value":"ERR wrong number of arguments for 'incr' command"}"#
        );
    }

    #[test]
    fn settings_and_fill_evict() {
        let mut pg = Playground::new(T0, 1.0);
        pg.set_config("maxmemory", "64kb", T0).unwrap();
        pg.set_config("maxmemory-policy", "allkeys-lru", T0).unwrap();
        assert!(pg.set_config("maxmemory-policy", "nope", T0).unwrap_err().starts_with("ERR CONFIG SET failed"));
        let out: Json = serde_json::from_str(&pg.fill(1000, 100, T0).unwrap()).unwrap();
        assert_eq!(out["written"], 1000);
        assert!(out["evicted"].as_u64().unwrap() > 500, "{out}");
        assert!(out["used_memory"].as_u64().unwrap() <= 65536);
        let events: Json = serde_json::from_str(&pg.events_json(T0)).unwrap();
        assert_eq!(events["events"][0]["kind"], "evicted");
        assert_eq!(events["policy"], "allkeys-lru");
        // Further fills write new keys.
        let out: Json = serde_json::from_str(&pg.fill(1, 10, T0).unwrap()).unwrap();
        assert_eq!(out["written"], 1);
        assert_eq!(line(&mut pg, "EXISTS fill:001000")["text"], "(integer) 1\n");
        // Under noeviction a full cache refuses, and fill says why.
        pg.set_config("maxmemory-policy", "noeviction", T0).unwrap();
        let out: Json = serde_json::from_str(&pg.fill(100, 1000, T0).unwrap()).unwrap();
        assert_eq!(out["written"], 0);
        assert_eq!(out["error"], "OOM command not allowed when used memory > 'maxmemory'.");
        assert!(pg.fill(FILL_MAX_KEYS + 1, 1, T0).is_err());
        assert!(pg.fill(100, FILL_MAX_VALUE + 1, T0).is_err());
        assert!(pg.fill(100_000, 1024, T0).is_err());
    }

    #[test]
    fn key_listings() {
        let mut pg = Playground::new(T0, 1.0);
        for i in 0..30 {
            line(&mut pg, &format!("SET user:{i} v"));
        }
        line(&mut pg, "SET other v PX 1500");
        let all: Json = serde_json::from_str(&pg.keys_json("*", 100, T0 + 500.0)).unwrap();
        assert_eq!(all["keys"].as_array().unwrap().len(), 31);
        assert_eq!(all["truncated"], false);
        let other = all["keys"].as_array().unwrap().iter().find(|k| k["key"] == "other").unwrap();
        assert_eq!(other["ttl_ms"], 1000);
        assert_eq!(other["type"], "string");
        let some: Json = serde_json::from_str(&pg.keys_json("user:*", 10, T0)).unwrap();
        assert_eq!(some["keys"].as_array().unwrap().len(), 10);
        assert_eq!(some["truncated"], true);
        // Paging through scan_keys_json sees every key once.
        let (mut cursor, mut seen) = ("0".to_string(), Vec::new());
        loop {
            let page: Json = serde_json::from_str(&pg.scan_keys_json("user:*", "", &cursor, 7, T0).unwrap()).unwrap();
            seen.extend(page["keys"].as_array().unwrap().iter().map(|k| k["key"].as_str().unwrap().to_string()));
            if page["done"] == true {
                break;
            }
            cursor = page["cursor"].as_str().unwrap().to_string();
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 30);
        assert!(pg.scan_keys_json("*", "", "nope", 10, T0).is_err());
        let none: Json = serde_json::from_str(&pg.scan_keys_json("*", "hash", "0", 1000, T0).unwrap()).unwrap();
        assert_eq!(none["keys"], json!([]));
        // Expired keys are not listed, and a sweep collects them.
        assert_eq!(pg.sweep(T0 + 2000.0), 1);
        let all: Json = serde_json::from_str(&pg.keys_json("", 100, T0 + 2000.0)).unwrap();
        assert_eq!(all["keys"].as_array().unwrap().len(), 30);
    }

    #[test]
    fn odd_clock_values_do_not_panic() {
        let mut pg = Playground::new(f64::NAN, f64::INFINITY);
        assert_eq!(line(&mut pg, "PING")["text"], "PONG\n");
        assert!(pg.run_line("SET k v EX 1", -5.0).contains("OK"));
        assert_eq!(pg.sweep(f64::MAX), 1);
    }
}
