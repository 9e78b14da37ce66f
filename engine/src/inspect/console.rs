//! The console line, as both consoles (the dashboard's over `POST /api/console`, the
//! playground's in the tab) run it: split as redis-cli splits what is typed, answer `help` and
//! `clear` locally as redis-cli does, run the command in the console's session, and print the
//! reply exactly as redis-cli prints it.

use serde::Serialize;
use serde_json::Value as Json;
use ts_rs::TS;

use super::{commands, Bytes};
use crate::{reply_cli, Engine, Reply, Session};

/// What one console line gave, tagged by `kind`. `text` is always what redis-cli would print,
/// final newline included.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ConsoleReply {
    /// A command ran: its arguments, its tagged JSON reply, the printed text, and the RESP
    /// bytes the server would send in the session's protocol.
    Reply {
        argv: Vec<Bytes>,
        #[ts(as = "TaggedReply")]
        reply: Json,
        text: String,
        resp: Bytes,
        /// The database the session is in after the line (a console shows it in its prompt,
        /// as redis-cli's `127.0.0.1:6379[3]>`).
        db: u32,
    },
    /// A blank line.
    Empty { text: String },
    /// Unbalanced quotes: `Invalid argument(s)`.
    Invalid { text: String },
    /// `help`, `help <command>`, `help @<group>` (or `?`).
    Help { text: String },
    /// `clear`: the console clears its screen.
    Clear { text: String },
}

/// Only the TypeScript shape of a tagged JSON reply (`Reply::to_json`).
#[derive(TS)]
#[ts(tag = "type", rename_all = "lowercase", rename = "Reply")]
#[allow(dead_code)]
enum TaggedReply {
    Status {
        value: String,
    },
    Error {
        value: String,
    },
    Int {
        value: i64,
    },
    Bulk {
        value: Bytes,
    },
    Nil,
    Array {
        value: Vec<TaggedReply>,
    },
    Set {
        value: Vec<TaggedReply>,
    },
    Map {
        value: Vec<(TaggedReply, TaggedReply)>,
    },
    Double {
        #[ts(type = "number | string")]
        value: f64,
    },
    Bool {
        value: bool,
    },
    Verbatim {
        format: String,
        value: String,
    },
    Push {
        value: Vec<TaggedReply>,
    },
    Many {
        value: Vec<TaggedReply>,
    },
}

/// Splits a typed command line into arguments as `redis-cli` does (it uses the same
/// `sdssplitargs` as inline commands): `SET greeting "hello world"` is three arguments.
/// `None` on unbalanced quotes, where redis-cli prints `Invalid argument(s)`; an empty or
/// blank line is no arguments.
pub fn split_line(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    Some(crate::resp::split_args(line)?.into_iter().map(std::borrow::Cow::into_owned).collect())
}

/// Runs one console line in `session` at `now_ms`.
pub fn console_line(engine: &Engine, session: &mut Session, line: &str, now_ms: u64) -> ConsoleReply {
    console_line_with(line, |argv| {
        let reply = engine.call(session, argv, now_ms);
        (reply, session.resp3, session.db)
    })
}

/// [`console_line`] for a host that runs the command its own way: `run` runs the split line
/// and answers the reply, whether the session now speaks RESP3 (after the command, so
/// `HELLO 3` prints in RESP3 at once, as redis-cli does) and the database it is now in.
pub fn console_line_with(line: &str, run: impl FnOnce(&[Vec<u8>]) -> (Reply, bool, usize)) -> ConsoleReply {
    let Some(argv) = split_line(line.as_bytes()) else {
        return ConsoleReply::Invalid { text: "Invalid argument(s)\n".into() };
    };
    let Some(first) = argv.first() else {
        return ConsoleReply::Empty { text: String::new() };
    };
    if first.eq_ignore_ascii_case(b"help") || first == b"?" {
        return ConsoleReply::Help { text: commands::help(&argv[1..]) };
    }
    if argv.len() == 1 && first.eq_ignore_ascii_case(b"clear") {
        return ConsoleReply::Clear { text: String::new() };
    }
    let (reply, resp3, db) = run(&argv);
    ConsoleReply::Reply {
        db: db as u32,
        text: reply_cli::format_for_command(&argv, &reply, resp3),
        resp: Bytes(reply.to_resp(resp3)),
        reply: reply.to_json(),
        argv: argv.into_iter().map(Bytes).collect(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testing::TestEngine;

    fn line(t: &mut TestEngine, text: &str) -> Json {
        let TestEngine { engine, session, now, .. } = t;
        serde_json::to_value(console_line(engine, session, text, *now)).unwrap()
    }

    fn v(items: &[&[u8]]) -> Vec<Vec<u8>> {
        items.iter().map(|i| i.to_vec()).collect()
    }

    #[test]
    fn split_line_follows_redis_cli() {
        assert_eq!(split_line(b"SET greeting \"hello world\""), Some(v(&[b"SET", b"greeting", b"hello world"])));
        assert_eq!(split_line(b"  "), Some(vec![]));
        assert_eq!(split_line(b"GET \"k"), None);
        assert_eq!(split_line(b"SET k '\\x41'"), Some(v(&[b"SET", b"k", b"\\x41"])));
    }

    #[test]
    fn lines_are_split_run_and_printed_as_redis_cli() {
        let mut t = TestEngine::default();
        let out = line(&mut t, r#"SET greeting "hello world""#);
        assert_eq!(out["kind"], "reply");
        assert_eq!(out["argv"], json!(["SET", "greeting", "hello world"]));
        assert_eq!(out["text"], "OK\n");
        let out = line(&mut t, "MGET greeting nope");
        assert_eq!(out["text"], "1) \"hello world\"\n2) (nil)\n");
        assert_eq!(out["resp"], "*2\r\n$11\r\nhello world\r\n$-1\r\n");
        assert_eq!(out["reply"]["type"], "array");
        line(&mut t, r#"SET bin "\xff""#);
        let out = line(&mut t, "GET bin");
        assert_eq!(out["text"], "\"\\xff\"\n");
        assert_eq!(out["resp"], json!({ "base64": "JDENCv8NCg==" }));
        assert_eq!(
            line(&mut t, "HELLO 3")["text"].as_str().unwrap().lines().next(),
            Some("1# \"server\" => \"redis\"")
        );
        assert_eq!(line(&mut t, "GET nope")["resp"], "_\r\n");
    }

    #[test]
    fn lines_answered_without_the_engine() {
        let mut t = TestEngine::default();
        assert_eq!(line(&mut t, "   "), json!({ "kind": "empty", "text": "" }));
        assert_eq!(line(&mut t, "GET 'k"), json!({ "kind": "invalid", "text": "Invalid argument(s)\n" }));
        assert_eq!(line(&mut t, "clear"), json!({ "kind": "clear", "text": "" }));
        assert_eq!(line(&mut t, "HELP get")["kind"], "help");
        assert_eq!(line(&mut t, "? get")["text"], commands::help(&[b"get".to_vec()]));
        assert_eq!(line(&mut t, "clear screen")["kind"], "reply");
        assert_eq!(t.engine.snapshot(t.now).commands_processed, 1);
    }
}
