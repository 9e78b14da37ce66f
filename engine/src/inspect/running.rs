//! The script running now, as the dashboard's banner shows it on every page, and stopping it
//! from there (the same rules as SCRIPT KILL / FUNCTION KILL, whichever fits what runs).

use serde::Serialize;
use ts_rs::TS;

use crate::busy::ScriptKind;
use crate::Engine;

/// `GET /api/running-script`: nothing, or the script that runs and whether it is busy.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RunningScriptView {
    /// A script (EVAL or FCALL) is running now.
    pub running: bool,
    /// It has run past `busy-reply-threshold`: other clients get BUSY, and it may be killed.
    pub busy: bool,
    pub kind: Option<ScriptKind>,
    /// The script's SHA1 or the function's name.
    pub name: Option<String>,
    pub client_id: Option<u64>,
    /// How long it has run, ms.
    pub elapsed_ms: u64,
    /// It has written: only SHUTDOWN NOSAVE can stop it now (UNKILLABLE).
    pub wrote: bool,
    /// The `busy-reply-threshold` in force, ms.
    pub threshold_ms: u64,
    /// Scripts that ran past the threshold since the start.
    pub busy_scripts: u64,
}

/// The running script at `now_ms`.
pub fn running_script(engine: &Engine, now_ms: u64) -> RunningScriptView {
    let run = engine.script_run();
    let threshold_ms = engine.config().busy_reply_threshold_ms();
    let busy_scripts = run.busy_scripts();
    match run.running() {
        Some((script, busy, wrote)) => RunningScriptView {
            running: true,
            busy,
            kind: Some(script.kind),
            name: Some(script.name),
            client_id: Some(script.client_id),
            elapsed_ms: now_ms.saturating_sub(script.started_ms),
            wrote,
            threshold_ms,
            busy_scripts,
        },
        None => RunningScriptView {
            running: false,
            busy: false,
            kind: None,
            name: None,
            client_id: None,
            elapsed_ms: 0,
            wrote: false,
            threshold_ms,
            busy_scripts,
        },
    }
}

/// Kills the busy script, whichever kind it is; the error is Redis's text (NOTBUSY,
/// UNKILLABLE).
pub fn kill_running_script(engine: &Engine) -> Result<(), String> {
    let run = engine.script_run();
    let kind = run.running().map_or(ScriptKind::Eval, |(s, _, _)| s.kind);
    run.kill(kind).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::busy::RunningScript;
    use crate::testing::TestEngine;

    #[test]
    fn shows_the_running_script_and_kills_it_by_its_kind() {
        let t = TestEngine::default();
        let engine = &t.engine;
        let idle = running_script(engine, 10);
        assert!(!idle.running && !idle.busy && idle.name.is_none());
        assert_eq!(kill_running_script(engine), Err("NOTBUSY No scripts in execution right now.".into()));
        let script = RunningScript {
            kind: ScriptKind::Function,
            name: "f".into(),
            client_id: 3,
            started_ms: 1000,
            command: Vec::new(),
        };
        engine.script_run().begin(script, 0, 0);
        engine.script_run().check(1);
        let view = running_script(engine, 1500);
        assert!(view.running && view.busy && !view.wrote);
        assert_eq!((view.name.as_deref(), view.client_id, view.elapsed_ms), (Some("f"), Some(3), 500));
        assert_eq!(kill_running_script(engine), Ok(()));
        assert!(engine.script_run().kill_requested());
        engine.script_run().end();
        assert!(!running_script(engine, 2000).running);
    }
}
