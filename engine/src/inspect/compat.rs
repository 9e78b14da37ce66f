//! The compatibility radar's view (the dashboard's "Compatibility" page, `GET /api/compat`):
//! what clients sent that Vitrine refused, by command and client library, most sent first.
//! "Your applications need X, sent N times by library L, last at T."

use serde::Serialize;
use ts_rs::TS;

use crate::radar;
pub use crate::radar::{Kind as CompatKind, Sighting as CompatRow};
use crate::Engine;

/// `GET /api/compat`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct CompatView {
    /// Most sent first.
    pub rows: Vec<CompatRow>,
    /// Sendings counted in `rows`.
    pub total: u64,
    /// Rows kept at most; past it the least sent row is dropped.
    pub capacity: u64,
    /// Rows dropped to stay bounded, and the sendings they had counted.
    pub dropped_rows: u64,
    pub dropped_count: u64,
}

pub fn compat(engine: &Engine) -> CompatView {
    let (rows, dropped_rows, dropped_count) = engine.radar().sightings();
    CompatView {
        total: rows.iter().map(|r| r.count).sum(),
        rows,
        capacity: radar::CAPACITY as u64,
        dropped_rows,
        dropped_count,
    }
}

/// Forgets what the radar saw (`DELETE /api/compat`).
pub fn compat_reset(engine: &Engine) {
    engine.radar().reset();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;

    #[test]
    fn unknown_commands_subcommands_and_options_are_counted_per_library() {
        let mut t = TestEngine::default();
        t.run(&["CLIENT", "SETINFO", "LIB-NAME", "redis-py"]);
        t.run(&["CLIENT", "SETINFO", "LIB-VER", "5.0.1"]);
        t.run(&["FT.SEARCH", "idx", "hello"]);
        t.run(&["ft.search", "idx", "world"]);
        t.run(&["CLIENT", "NOSUCH", "x"]);
        t.run(&["SET", "k", "v", "NX", "KEEPIT"]);
        t.run(&["EXPIRE", "k", "10", "foo"]);
        // Successes and other errors are not counted.
        t.run(&["SET", "k", "v"]);
        t.run(&["INCR", "k"]);
        t.run(&["GET"]);
        let view = compat(&t.engine);
        let rows: Vec<(CompatKind, &str, Option<&str>, &str, u64)> = view
            .rows
            .iter()
            .map(|r| (r.kind, r.command.as_str(), r.option.as_deref(), r.library.as_str(), r.count))
            .collect();
        assert_eq!(rows[0], (CompatKind::Command, "FT.SEARCH", None, "redis-py 5.0.1", 2));
        assert!(rows.contains(&(CompatKind::Subcommand, "CLIENT NOSUCH", None, "redis-py 5.0.1", 1)), "{rows:?}");
        assert!(rows.contains(&(CompatKind::Option, "SET", Some("KEEPIT"), "redis-py 5.0.1", 1)), "{rows:?}");
        assert!(rows.contains(&(CompatKind::Option, "EXPIRE", Some("FOO"), "redis-py 5.0.1", 1)), "{rows:?}");
        assert_eq!(rows.len(), 4);
        assert_eq!(view.total, 5);
        assert_eq!(view.rows[0].sample, ["idx", "world"]);
        compat_reset(&t.engine);
        assert!(compat(&t.engine).rows.is_empty());
    }

    #[test]
    fn queued_commands_count_too() {
        let mut t = TestEngine::default();
        t.run(&["MULTI"]);
        t.run(&["NOPE"]);
        let view = compat(&t.engine);
        assert_eq!((view.rows[0].command.as_str(), view.rows[0].library.as_str()), ("NOPE", "unknown"));
        // A syntax error shows only when EXEC runs the command.
        t.run(&["DISCARD"]);
        t.run(&["MULTI"]);
        t.run(&["SET", "k", "v", "WITHFOO"]);
        assert_eq!(compat(&t.engine).rows.len(), 1);
        t.run(&["EXEC"]);
        let view = compat(&t.engine);
        let set = view.rows.iter().find(|r| r.command == "SET").expect("SET refused in EXEC");
        assert_eq!((set.kind, set.option.as_deref()), (CompatKind::Option, Some("WITHFOO")));
    }
}
