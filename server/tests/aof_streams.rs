//! Streams in the append-only file, against the real binary: XADD's `*` IDs, approximate
//! trims, deletions of the newest entries and an emptied stream come back the same after a
//! restart, and after BGREWRITEAOF (which writes XADDs and an XSETID per stream).

mod common;

use common::aof::{cmd, conn, start, typed_value, wait_for_first_rewrite, Dir};

/// What a stream shows: its type, length and entries.
fn state(c: &mut redis::Connection, key: &str) -> String {
    let (t, entries) = typed_value(c, key);
    let len: i64 = redis::cmd("XLEN").arg(key).query(c).unwrap();
    format!("{t} len={len} [{entries}]")
}

/// The last ID of `key`, read back through XADD `ms-*` on a copy: `ms-(seq+1)` when the last ID
/// is `ms-seq`.
fn next_in_ms(c: &mut redis::Connection, key: &str, ms: &str) -> String {
    let _: i64 = redis::cmd("COPY").arg(key).arg("probe").arg("REPLACE").query(c).unwrap();
    let next = redis::cmd("XADD").arg("probe").arg(format!("{ms}-*")).arg("p").arg("1").query::<String>(c);
    let _: i64 = redis::cmd("DEL").arg("probe").query(c).unwrap();
    next.unwrap_or_else(|e| e.to_string())
}

fn write_streams(c: &mut redis::Connection) {
    for i in 1..=250 {
        cmd(c, &["XADD", "big", "MAXLEN", "~", "120", "*", "n", &i.to_string()]);
    }
    for i in 1..=5 {
        cmd(c, &["XADD", "small", &format!("{i}-{i}"), "f", "v", "g", &i.to_string()]);
    }
    // The newest entries deleted: the last ID stays 5-5.
    cmd(c, &["XDEL", "small", "4-4", "5-5"]);
    cmd(c, &["XADD", "empty", "7-3", "f", "v"]);
    cmd(c, &["XTRIM", "empty", "MAXLEN", "0"]);
    cmd(c, &["XADD", "set", "1-1", "f", "v"]);
    cmd(c, &["XSETID", "set", "9-9", "ENTRIESADDED", "40", "MAXDELETEDID", "8-0"]);
}

fn snapshot(c: &mut redis::Connection) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["big", "small", "empty", "set"] {
        out.push(format!("{key}: {}", state(c, key)));
    }
    out.push(format!("small next: {}", next_in_ms(c, "small", "5")));
    out.push(format!("empty next: {}", next_in_ms(c, "empty", "7")));
    out.push(format!("set next: {}", next_in_ms(c, "set", "9")));
    out
}

#[test]
fn streams_come_back_the_same_after_a_restart_and_after_a_rewrite() {
    let dir = Dir::new("streams");
    let server = start(&dir);
    let mut c = conn(&server);
    write_streams(&mut c);
    let before = snapshot(&mut c);
    assert!(before[0].contains("len=150"), "{}", before[0]);
    assert_eq!(before[4], "small next: 5-6");
    assert_eq!(before[5], "empty next: 7-4");
    assert_eq!(before[6], "set next: 9-10");
    drop(server);

    let server = start(&dir);
    let mut c = conn(&server);
    assert_eq!(snapshot(&mut c), before);
    let reply: String = redis::cmd("BGREWRITEAOF").query(&mut c).unwrap();
    assert!(reply.contains("rewriting started"), "{reply}");
    wait_for_first_rewrite(&mut c);
    let aof = std::fs::read(dir.aof()).unwrap();
    assert!(aof.windows(6).any(|w| w == b"XSETID"), "the rewrite holds XSETID");
    drop(server);

    let server = start(&dir);
    let mut c = conn(&server);
    assert_eq!(snapshot(&mut c), before);
}
