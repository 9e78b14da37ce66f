//! Busy scripts: the one script (EVAL or FCALL) running now, as other clients see it. A
//! script holds every shard while it runs (see `cmd::scripting`), so nothing interleaves
//! with it; past `busy-reply-threshold` it is *busy*: dispatch answers every other command
//! (but Redis's `allow-busy` ones and `SHUTDOWN NOSAVE`) with Redis's BUSY text, clients
//! already waiting for its shards give up with the same text, and SCRIPT KILL / FUNCTION
//! KILL may stop it, unless it has written (UNKILLABLE), as in Redis 7.
//!
//! The VM's instruction hook (`script::vm`) is what looks at the clock and at a kill request
//! while the script runs; this module is the state they share, and needs no Lua itself.

// Without the `scripting` feature (the playground's wasm build) no script ever runs, so the
// run's bookkeeping is unused there; it stays compiled so dispatch has one shape.
#![cfg_attr(not(feature = "scripting"), allow(dead_code))]

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8};

use parking_lot::Mutex;
use serde::Serialize;
use ts_rs::TS;

use crate::error::CmdError;

/// Which kind of script runs: EVAL's (SCRIPT KILL stops it) or a function (FUNCTION KILL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ScriptKind {
    Eval,
    Function,
}

/// The running script, for SCRIPT KILL's checks and the dashboard's banner.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RunningScript {
    pub kind: ScriptKind,
    /// The script's SHA1, or the function's name.
    pub name: String,
    /// The client that runs it (CLIENT ID).
    pub client_id: u64,
    /// When it began, engine milliseconds (unix ms in the server).
    pub started_ms: u64,
    /// The command that runs it, as FUNCTION STATS shows it (at most 32 arguments).
    #[serde(skip)]
    pub command: Vec<Vec<u8>>,
}

/// What a kill request asks (`kill`).
const KILL_NONE: u8 = 0;
/// SCRIPT KILL / FUNCTION KILL: the script stops at its next hook.
const KILL_USER: u8 = 1;
/// SHUTDOWN NOSAVE: stops it even after writes; its effects are not logged.
const KILL_SHUTDOWN: u8 = 2;

/// The error a killed script raises (and its caller gets, with Redis's script suffix).
pub const KILLED_TEXT: &str = "ERR Script killed by user with SCRIPT KILL...";

/// BUSY texts, Redis 7's (`shared.slowevalerr` and `shared.slowscripterr`).
pub const BUSY_EVAL: &str = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
pub const BUSY_FUNCTION: &str =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

/// The busy flag alone on a cache line: every command reads it, and nothing written while a
/// script runs (its start, the hook's clock) should make those reads miss.
#[repr(align(64))]
#[derive(Default)]
struct BusyFlag(AtomicBool);

/// The state of the script running now, if any (one at a time: scripts take turns on the
/// shards and on the VM).
pub struct ScriptRun {
    busy: BusyFlag,
    /// A script runs (busy or not yet).
    is_running: AtomicBool,
    running: Mutex<Option<RunningScript>>,
    /// The host clock's reading (µs) past which the script is busy; `u64::MAX` while none runs.
    busy_at_us: AtomicU64,
    kill: AtomicU8,
    wrote: AtomicBool,
    /// Scripts that ran past the threshold, since the start (INFO stats has no such field;
    /// the dashboard shows it).
    busy_scripts: AtomicU64,
}

impl Default for ScriptRun {
    fn default() -> ScriptRun {
        ScriptRun {
            busy: BusyFlag::default(),
            is_running: AtomicBool::new(false),
            running: Mutex::new(None),
            // Nothing runs: the hook (which also fires while a library loads) never marks busy.
            busy_at_us: AtomicU64::new(u64::MAX),
            kill: AtomicU8::new(KILL_NONE),
            wrote: AtomicBool::new(false),
            busy_scripts: AtomicU64::new(0),
        }
    }
}

impl ScriptRun {
    /// Whether a script is past its threshold now. One relaxed load: dispatch reads it for
    /// every command.
    #[inline]
    pub fn is_busy(&self) -> bool {
        self.busy.0.load(Relaxed)
    }

    /// Whether a script runs now, busy or not.
    pub fn is_running(&self) -> bool {
        self.is_running.load(Acquire)
    }

    /// A script begins: `now_us` is the host clock's reading, `threshold_ms` the
    /// `busy-reply-threshold` then.
    pub fn begin(&self, script: RunningScript, now_us: u64, threshold_ms: u64) {
        *self.running.lock() = Some(script);
        self.is_running.store(true, Release);
        self.kill.store(KILL_NONE, Relaxed);
        self.wrote.store(false, Relaxed);
        self.busy_at_us.store(now_us.saturating_add(threshold_ms.saturating_mul(1000)), Release);
    }

    /// The script ended (returned, raised or was killed): others run again.
    pub fn end(&self) {
        self.busy_at_us.store(u64::MAX, Release);
        self.busy.0.store(false, Release);
        self.is_running.store(false, Release);
        *self.running.lock() = None;
        self.kill.store(KILL_NONE, Relaxed);
    }

    /// The VM's hook, every so many instructions: marks the script busy once it is past its
    /// threshold, and says whether it must stop now.
    pub fn check(&self, now_us: u64) -> bool {
        if !self.is_busy() && now_us >= self.busy_at_us.load(Acquire) {
            self.busy.0.store(true, Release);
            self.busy_scripts.fetch_add(1, Relaxed);
        }
        self.kill.load(Acquire) != KILL_NONE
    }

    /// The script ran a write command (it can no longer be killed).
    pub fn note_write(&self) {
        if !self.wrote.load(Relaxed) {
            self.wrote.store(true, Relaxed);
        }
    }

    /// A kill was asked for the running script.
    pub fn kill_requested(&self) -> bool {
        self.kill.load(Acquire) != KILL_NONE
    }

    /// SHUTDOWN NOSAVE stopped it: its effects must not reach the log.
    pub fn killed_for_shutdown(&self) -> bool {
        self.kill.load(Acquire) == KILL_SHUTDOWN
    }

    /// SCRIPT KILL (`kind` Eval) or FUNCTION KILL (`kind` Function), with Redis's answers:
    /// NOTBUSY with nothing busy, the other kind's BUSY text, UNKILLABLE once it wrote.
    pub fn kill(&self, kind: ScriptKind) -> Result<(), CmdError> {
        let running = self.running.lock();
        let Some(script) = running.as_ref().filter(|_| self.is_busy()) else {
            return Err(CmdError::Other("NOTBUSY No scripts in execution right now.".into()));
        };
        if self.wrote.load(Relaxed) {
            return Err(CmdError::Other(
                "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.".into(),
            ));
        }
        if script.kind != kind {
            return Err(CmdError::Other(busy_text(script.kind).into()));
        }
        self.kill.store(KILL_USER, Release);
        Ok(())
    }

    /// SHUTDOWN NOSAVE while busy: the script stops whatever it did.
    pub fn kill_for_shutdown(&self) {
        if self.running.lock().is_some() {
            self.kill.store(KILL_SHUTDOWN, Release);
        }
    }

    /// The BUSY reply for commands refused now (None when nothing is busy).
    pub fn busy_error(&self) -> Option<CmdError> {
        let running = self.running.lock();
        let kind = running.as_ref().map_or(ScriptKind::Eval, |s| s.kind);
        self.is_busy().then(|| CmdError::Other(busy_text(kind).into()))
    }

    /// The running script, if any, and whether it is busy and has written.
    pub fn running(&self) -> Option<(RunningScript, bool, bool)> {
        let running = self.running.lock();
        running.as_ref().map(|s| (s.clone(), self.is_busy(), self.wrote.load(Relaxed)))
    }

    /// Scripts that ran past the threshold since the start.
    pub fn busy_scripts(&self) -> u64 {
        self.busy_scripts.load(Relaxed)
    }
}

fn busy_text(kind: ScriptKind) -> &'static str {
    match kind {
        ScriptKind::Eval => BUSY_EVAL,
        ScriptKind::Function => BUSY_FUNCTION,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(kind: ScriptKind) -> RunningScript {
        RunningScript { kind, name: "abc".into(), client_id: 7, started_ms: 1000, command: Vec::new() }
    }

    #[test]
    fn busy_only_past_the_threshold_and_until_the_end() {
        let run = ScriptRun::default();
        run.begin(script(ScriptKind::Eval), 1_000_000, 5);
        assert!(!run.check(1_004_999));
        assert!(!run.is_busy());
        assert!(run.busy_error().is_none());
        assert!(!run.check(1_005_000));
        assert!(run.is_busy());
        assert_eq!(run.busy_error(), Some(CmdError::Other(BUSY_EVAL.into())));
        assert_eq!(run.busy_scripts(), 1);
        run.end();
        assert!(!run.is_busy());
        assert!(run.running().is_none());
    }

    #[test]
    fn kill_follows_redis_rules() {
        let run = ScriptRun::default();
        let notbusy = Err(CmdError::Other("NOTBUSY No scripts in execution right now.".into()));
        assert_eq!(run.kill(ScriptKind::Eval), notbusy);
        run.begin(script(ScriptKind::Function), 0, 0);
        // Running but not yet past the threshold: as Redis, whose SCRIPT KILL could only be
        // served once the script is busy.
        assert_eq!(run.kill(ScriptKind::Function), notbusy);
        run.check(0);
        assert_eq!(run.kill(ScriptKind::Eval), Err(CmdError::Other(BUSY_FUNCTION.into())));
        assert!(!run.check(1));
        assert_eq!(run.kill(ScriptKind::Function), Ok(()));
        assert!(run.check(2));
        assert!(!run.killed_for_shutdown());
        run.end();

        run.begin(script(ScriptKind::Eval), 0, 0);
        run.check(0);
        run.note_write();
        let e = run.kill(ScriptKind::Eval).unwrap_err().to_string();
        assert!(e.starts_with("UNKILLABLE Sorry the script already executed write commands"), "{e}");
        assert!(!run.check(1));
        run.kill_for_shutdown();
        assert!(run.check(2));
        assert!(run.killed_for_shutdown());
    }
}

/// Busy scripts end to end in the engine: a script on one thread, other clients on this one.
#[cfg(test)]
#[cfg(feature = "scripting")]
mod script_tests {
    use std::sync::atomic::Ordering::Relaxed;
    use std::time::Duration;

    use super::*;
    use crate::testing::*;
    use crate::{Engine, Reply};

    const SPIN: &str = "local i = 0 while true do i = i + 1 end";

    /// Waits (bounded) until `done` holds; the engine has no clock to read, so it counts naps.
    fn wait_for(what: &str, done: impl Fn() -> bool) {
        for _ in 0..20_000 {
            if done() {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        panic!("timed out waiting for {what}");
    }

    fn session(engine: &Engine, now: u64) -> crate::Session {
        engine.new_session("127.0.0.1:2", "127.0.0.1:6379", now)
    }

    fn killed(reply: &Reply) -> bool {
        matches!(reply, Reply::Error(e) if e.starts_with(&format!("{KILLED_TEXT} script: ")) && e.ends_with(", on @user_script:1."))
    }

    #[test]
    fn others_get_busy_and_script_kill_stops_a_read_only_script() {
        let mut t = TestEngine::default();
        t.run(&["CONFIG", "SET", "busy-reply-threshold", "0"]);
        t.run(&["SET", "k", "v"]);
        let (engine, now) = (&t.engine, t.now);
        let mut other = session(engine, now);
        std::thread::scope(|s| {
            let runner = s.spawn(|| engine.call(&mut session(engine, now), &["EVAL", SPIN, "0"], now));
            wait_for("the script to be busy", || engine.script_busy());
            assert_eq!(engine.call(&mut other, &["GET", "k"], now), err(BUSY_EVAL));
            assert_eq!(engine.call(&mut other, &["SHUTDOWN"], now), err(BUSY_EVAL));
            // MULTI is allowed while busy; the refused command inside marks the transaction.
            assert_eq!(engine.call(&mut other, &["MULTI"], now), ok());
            assert_eq!(engine.call(&mut other, &["SET", "k", "x"], now), err(BUSY_EVAL));
            assert_eq!(engine.call(&mut other, &["DISCARD"], now), ok());
            assert_eq!(engine.call(&mut other, &["SCRIPT", "KILL"], now), ok());
            let reply = runner.join().expect("the script's thread");
            assert!(killed(&reply), "{reply:?}");
        });
        assert!(!t.engine.script_busy());
        assert_eq!(t.run(&["GET", "k"]), bulk("v"));
        assert_eq!(t.run(&["SCRIPT", "KILL"]), err("NOTBUSY No scripts in execution right now."));
        // The VM runs scripts again, its hook back to its usual count.
        assert_eq!(t.run(&["EVAL", "local n = 0 for i = 1, 300000 do n = n + 1 end return n", "0"]), int(300_000));
    }

    #[test]
    fn a_client_waiting_for_the_scripts_shards_gives_up_with_busy() {
        let mut t = TestEngine::default();
        // 200 ms of the test clock, which moves 1 ms per reading (the hook reads it).
        t.run(&["CONFIG", "SET", "busy-reply-threshold", "200"]);
        t.clock.set_step(1000);
        let (engine, now) = (&t.engine, t.now);
        std::thread::scope(|s| {
            let runner = s.spawn(|| engine.call(&mut session(engine, now), &["EVAL", SPIN, "0"], now));
            wait_for("the script to start", || engine.script_running());
            // Sent before the script is busy: it waits for the shards, then gives up.
            let waiter = s.spawn(|| engine.call(&mut session(engine, now), &["INCR", "n"], now));
            wait_for("the script to be busy", || engine.script_busy());
            assert_eq!(waiter.join().expect("the waiting client"), err(BUSY_EVAL));
            assert_eq!(engine.call(&mut session(engine, now), &["SCRIPT", "KILL"], now), ok());
            assert!(killed(&runner.join().expect("the script's thread")));
        });
        assert_eq!(t.run(&["GET", "n"]), nil());
    }

    #[test]
    fn a_script_that_wrote_is_unkillable_until_shutdown_nosave_which_logs_none_of_it() {
        let mut t = TestEngine::default();
        t.run(&["CONFIG", "SET", "busy-reply-threshold", "0"]);
        let stops = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        {
            let stops = stops.clone();
            t.engine.set_shutdown_hook(move || {
                stops.fetch_add(1, Relaxed);
            });
        }
        t.engine.propagation().set_enabled(true);
        let _ = t.engine.propagation().take();
        let (engine, now) = (&t.engine, t.now);
        let mut other = session(engine, now);
        std::thread::scope(|s| {
            let script = format!("redis.call('SET', 'w', '1') {SPIN}");
            let runner = s.spawn(move || engine.call(&mut session(engine, now), &["EVAL", script.as_str(), "0"], now));
            wait_for("the script to be busy", || engine.script_busy());
            let e = engine.call(&mut other, &["SCRIPT", "KILL"], now);
            assert!(
                matches!(&e, Reply::Error(t) if t.starts_with("UNKILLABLE Sorry the script already executed write commands")),
                "{e:?}"
            );
            assert_eq!(engine.call(&mut other, &["SHUTDOWN", "SAVE"], now), err(BUSY_EVAL));
            assert_eq!(stops.load(Relaxed), 0);
            assert_eq!(engine.call(&mut other, &["SHUTDOWN", "NOSAVE"], now), Reply::Many(vec![]));
            assert!(other.closing);
            assert!(killed(&runner.join().expect("the script's thread")));
        });
        assert_eq!(stops.load(Relaxed), 1);
        // The script's body is logged (the cache survives restarts), its effect is not.
        let (logged, _) = t.engine.propagation().take();
        let mut effect = Vec::new();
        encode_command(&mut effect, &["SET", "w", "1"]);
        let text = String::from_utf8_lossy(&logged);
        assert!(text.contains("SCRIPT") && !text.contains(&*String::from_utf8_lossy(&effect)), "{text}");
    }

    #[test]
    fn function_kill_stops_a_busy_function_and_function_stats_shows_it() {
        let mut t = TestEngine::default();
        t.run(&["CONFIG", "SET", "busy-reply-threshold", "0"]);
        let lib = format!(
            "#!lua name=spinlib\nredis.register_function('spin', function() {SPIN} end)\nredis.register_function('noop', function() return 1 end)"
        );
        assert_eq!(t.run(&["FUNCTION", "LOAD", lib.as_str()]), bulk("spinlib"));
        // A function has run (its hook set), then a library's load replaced the hook: the
        // next run must set it again, or the spin below would never be busy.
        assert_eq!(t.run(&["FCALL", "noop", "0"]), int(1));
        let other = "#!lua name=otherlib\nredis.register_function('other', function() return 2 end)";
        assert_eq!(t.run(&["FUNCTION", "LOAD", other]), bulk("otherlib"));
        let (engine, now) = (&t.engine, t.now);
        let mut other = session(engine, now);
        std::thread::scope(|s| {
            let runner = s.spawn(|| engine.call(&mut session(engine, now), &["FCALL", "spin", "0"], now));
            wait_for("the function to be busy", || engine.script_busy());
            assert_eq!(engine.call(&mut other, &["GET", "k"], now), err(BUSY_FUNCTION));
            assert_eq!(engine.call(&mut other, &["SCRIPT", "KILL"], now), err(BUSY_FUNCTION));
            let Reply::Map(stats) = engine.call(&mut other, &["FUNCTION", "STATS"], now) else { panic!("a map") };
            let Reply::Map(running) = &stats[0].1 else { panic!("running_script: {:?}", stats[0].1) };
            assert_eq!(running[0], (bulk("name"), bulk("spin")));
            assert_eq!(running[1], (bulk("command"), bulks(&["FCALL", "spin", "0"])));
            assert_eq!(engine.call(&mut other, &["FUNCTION", "KILL"], now), ok());
            let reply = runner.join().expect("the function's thread");
            assert!(
                matches!(&reply, Reply::Error(e) if e.starts_with(&format!("{KILLED_TEXT} script: spin, on @user_function:"))),
                "{reply:?}"
            );
        });
        assert_eq!(t.run(&["FUNCTION", "KILL"]), err("NOTBUSY No scripts in execution right now."));
        let Reply::Map(stats) = t.run(&["FUNCTION", "STATS"]) else { panic!("a map") };
        assert_eq!(stats[0].1, nil());
    }

    #[test]
    fn shutdown_checks_its_words_as_redis() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["SHUTDOWN", "ABORT"]), err("ERR No shutdown in progress."));
        assert_eq!(t.run(&["SHUTDOWN", "SAVE", "NOSAVE"]), err(SYNTAX));
        assert_eq!(t.run(&["SHUTDOWN", "ABORT", "NOW"]), err(SYNTAX));
        assert_eq!(t.run(&["SHUTDOWN", "LATER"]), err(SYNTAX));
        // No host to stop (the playground's case): said plainly.
        assert!(matches!(t.run(&["SHUTDOWN"]), Reply::Error(e) if e.contains("not available")));
    }
}
