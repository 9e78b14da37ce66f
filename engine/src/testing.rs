//! A small harness for tests: an engine at a fixed clock and `run(["SET","k","v"])`.
//! Public (not `cfg(test)`) so integration tests, property tests and fuzz targets share it.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use crate::clock::Clock;
use crate::config::Config;
use crate::engine::Engine;
use crate::reply::Reply;
use crate::session::Session;

// What integration tests, benchmarks and fuzz targets reach below the hosts' surface: the
// request decoder and the command encoder (to build and split inputs).
pub use crate::glob::{matches as glob_matches, matches_case as glob_matches_case};
pub use crate::propagate::encode_command;
pub use crate::resp::{parse_command, Limits};

/// A monotonic clock tests drive: each reading moves it on by `step` µs, so a command
/// (read twice, before and after) takes `step` µs, and `advance_us` adds time at once.
#[derive(Default)]
pub struct FakeClock {
    now: AtomicU64,
    step: AtomicU64,
}

impl FakeClock {
    /// Makes every following command take `us` µs.
    pub fn set_step(&self, us: u64) {
        self.step.store(us, Relaxed);
    }

    pub fn advance_us(&self, us: u64) {
        self.now.fetch_add(us, Relaxed);
    }
}

impl Clock for FakeClock {
    fn now_us(&self) -> u64 {
        self.now.fetch_add(self.step.load(Relaxed), Relaxed)
    }
}

/// An engine with one session and clocks that tests move by hand.
pub struct TestEngine {
    pub engine: Engine,
    pub session: Session,
    /// The time commands run at (unix ms).
    pub now: u64,
    /// The monotonic clock that times commands (commands take 0 µs until its step is set).
    pub clock: Arc<FakeClock>,
}

impl Default for TestEngine {
    fn default() -> Self {
        TestEngine::new(Config::default())
    }
}

impl TestEngine {
    /// The engine's `used_memory` (accounted bytes of every entry).
    pub fn used_memory(&self) -> usize {
        self.engine.store().used_memory()
    }

    /// Starts at a fixed, realistic unix time so EXPIREAT-style tests read naturally.
    pub const START_MS: u64 = 1_700_000_000_000;

    pub fn new(config: Config) -> TestEngine {
        let engine = Engine::new(config, Self::START_MS, 0x5eed);
        let session = engine.new_session("127.0.0.1:1", "127.0.0.1:6379", Self::START_MS);
        let clock = Arc::new(FakeClock::default());
        engine.set_clock(clock.clone());
        TestEngine { engine, session, now: Self::START_MS, clock }
    }

    /// Runs one command at the current time.
    pub fn run<S: AsRef<[u8]>>(&mut self, argv: &[S]) -> Reply {
        self.engine.call(&mut self.session, argv, self.now)
    }

    /// Runs one command and returns its RESP2 encoding as text (lossy), e.g. `"$1\r\nv\r\n"`.
    pub fn resp<S: AsRef<[u8]>>(&mut self, argv: &[S]) -> String {
        String::from_utf8_lossy(&self.run(argv).to_resp(self.session.resp3)).into_owned()
    }

    /// Moves the clock forward.
    pub fn advance(&mut self, ms: u64) {
        self.now += ms;
    }
}

/// The commands logged for the append-only file since the last call, as text lines.
pub fn drain_log(t: &TestEngine) -> Vec<String> {
    let (bytes, _) = t.engine.propagation().take();
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let (argv, used) = crate::resp::parse_command(&bytes[pos..], &Default::default()).unwrap().unwrap();
        out.push(argv.iter().map(|a| String::from_utf8_lossy(a.as_ref()).into_owned()).collect::<Vec<_>>().join(" "));
        pos += used;
    }
    out
}

/// A second connection on `t`'s engine (blocking tests need two), from port `n`.
pub fn connect(t: &TestEngine, n: u16) -> Session {
    t.engine.new_session(&format!("127.0.0.1:{n}"), "127.0.0.1:6379", t.now)
}

/// Feeds `input` to session `s` as a socket would; the replies written, as text.
pub fn feed_text(t: &TestEngine, s: &mut Session, input: &str) -> String {
    let mut out = Vec::new();
    t.engine.feed(s, input.as_bytes(), &mut out, t.now).unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

/// A blocked session's reply once it has been served, as text (`None` while it waits).
pub fn retry_text(t: &TestEngine, s: &mut Session) -> Option<String> {
    let mut out = Vec::new();
    t.engine.retry_blocked(s, &mut out, t.now).then(|| String::from_utf8_lossy(&out).into_owned())
}

/// Shorthands for expected replies in tests.
pub fn ok() -> Reply {
    Reply::Ok
}
pub fn int(n: i64) -> Reply {
    Reply::Int(n)
}
pub fn bulk(s: &str) -> Reply {
    Reply::Bulk(s.as_bytes().to_vec())
}
pub fn nil() -> Reply {
    Reply::Nil
}
pub fn err(text: &str) -> Reply {
    Reply::Error(text.to_string())
}
pub fn arr(items: Vec<Reply>) -> Reply {
    Reply::Array(items)
}
/// An array of bulk strings.
pub fn bulks(items: &[&str]) -> Reply {
    arr(items.iter().map(|s| bulk(s)).collect())
}
/// Redis's arity error for `cmd` (lower case, as Redis names it).
pub fn arity(cmd: &str) -> Reply {
    err(&format!("ERR wrong number of arguments for '{cmd}' command"))
}

/// Error texts many command tests expect, exactly as Redis words them.
pub const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
pub const SYNTAX: &str = "ERR syntax error";
pub const NOT_INT: &str = "ERR value is not an integer or out of range";
pub const NOT_FLOAT: &str = "ERR value is not a valid float";
pub const POSITIVE: &str = "ERR value is out of range, must be positive";
