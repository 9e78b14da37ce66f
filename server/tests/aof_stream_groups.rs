//! Stream consumer groups survive a restart from the append-only file, and again after
//! BGREWRITEAOF: groups with their last-delivered IDs and lag, pending entries with their
//! owners and delivery counts, and consumers (those without pending entries too).

mod common;

use std::time::{Duration, Instant};

use common::aof::{conn, start, Dir};
use redis::Value;

fn run(c: &mut redis::Connection, args: &[&str]) -> Value {
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query(c).unwrap()
}

/// A reply as text, with the values at the map keys in `masked` (idle times, which move
/// with the clock) replaced by `*`.
fn text(v: &Value, masked: &[&str]) -> String {
    fn go(v: &Value, masked: &[&str], out: &mut String) {
        match v {
            Value::Nil => out.push_str("nil"),
            Value::Int(n) => out.push_str(&n.to_string()),
            Value::BulkString(b) => out.push_str(&String::from_utf8_lossy(b)),
            Value::Array(items) | Value::Set(items) => {
                out.push('[');
                let mut mask_next = false;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    if mask_next {
                        out.push('*');
                        mask_next = false;
                        continue;
                    }
                    go(item, masked, out);
                    mask_next = matches!(item, Value::BulkString(b) if i % 2 == 0 && masked.iter().any(|m| m.as_bytes() == &b[..]));
                }
                out.push(']');
            }
            Value::SimpleString(s) => out.push_str(s),
            Value::Okay => out.push_str("OK"),
            other => out.push_str(&format!("{other:?}")),
        }
    }
    let mut out = String::new();
    go(v, masked, &mut out);
    out
}

/// What the groups of `s` look like: XINFO GROUPS, each group's consumers and pending
/// entries (idle times masked, delivery counts kept).
fn state(c: &mut redis::Connection) -> Vec<String> {
    let mut out = vec![text(&run(c, &["XINFO", "GROUPS", "s"]), &[])];
    for g in ["g", "g2"] {
        out.push(text(&run(c, &["XINFO", "CONSUMERS", "s", g]), &["idle", "inactive"]));
        out.push(text(&run(c, &["XPENDING", "s", g]), &[]));
        let pending = run(c, &["XPENDING", "s", g, "-", "+", "100"]);
        // [id, owner, idle, count] each: the idle time moves with the clock.
        let Value::Array(items) = pending else { panic!("{pending:?}") };
        for item in items {
            let Value::Array(f) = item else { panic!() };
            out.push(format!("{} {} {}", text(&f[0], &[]), text(&f[1], &[]), text(&f[3], &[])));
        }
    }
    out
}

fn wait_for(c: &mut redis::Connection, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let info: String = redis::cmd("INFO").arg("persistence").query(c).unwrap();
        if info.contains(what) {
            return;
        }
        assert!(Instant::now() < deadline, "no {what} in {info}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn groups_pending_entries_and_consumers_survive_a_restart_and_a_rewrite() {
    let dir = Dir::new("stream-groups");
    let server = start(&dir);
    let mut c = conn(&server);
    for ms in 1..=5 {
        run(&mut c, &["XADD", "s", &format!("{ms}-0"), "f", &format!("v{ms}")]);
    }
    run(&mut c, &["XGROUP", "CREATE", "s", "g", "0"]);
    run(&mut c, &["XGROUP", "CREATE", "s", "g2", "$"]);
    run(&mut c, &["XGROUP", "CREATECONSUMER", "s", "g", "idle"]);
    run(&mut c, &["XREADGROUP", "GROUP", "g", "alice", "COUNT", "3", "STREAMS", "s", ">"]);
    run(&mut c, &["XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"]);
    // A history read counts a delivery (not logged by Redis, so not compared after restart).
    assert_eq!(run(&mut c, &["XACK", "s", "g", "2-0"]), Value::Int(1));
    run(&mut c, &["XCLAIM", "s", "g", "bob", "0", "1-0", "RETRYCOUNT", "4"]);
    run(&mut c, &["XADD", "s", "6-0", "f", "v6"]);
    run(&mut c, &["XREADGROUP", "GROUP", "g2", "carol", "NOACK", "STREAMS", "s", ">"]);
    let before = state(&mut c);
    assert!(before[0].contains("last-delivered-id 5-0 entries-read 5 lag 1"), "{before:?}");
    assert!(before[0].contains("last-delivered-id 6-0 entries-read 6 lag 0"), "{before:?}");
    assert!(before.contains(&"1-0 bob 4".to_string()), "{before:?}");
    assert!(before[1].contains("idle pending 0"), "{before:?}");
    drop(server);
    let server = start(&dir);
    let mut c = conn(&server);
    assert_eq!(state(&mut c), before);
    let reply: String = redis::cmd("BGREWRITEAOF").query(&mut c).unwrap();
    assert!(reply.contains("rewriting started"), "{reply}");
    wait_for(&mut c, "aof_rewrites:1");
    drop(server);
    let server = start(&dir);
    let mut c = conn(&server);
    assert_eq!(state(&mut c), before);
}
