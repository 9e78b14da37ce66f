//! HyperLogLogs in the append-only file, against the real binary: PFADD (sparse, across the
//! promotion, dense), PFMERGE, PFDEBUG TODENSE and PFCOUNT's cache refresh are logged as
//! Redis logs them, so a restart, and a restart after BGREWRITEAOF, give back the same bytes.

mod common;

use common::aof::{cmd, conn, start, wait_for_first_rewrite, Dir};

const KEYS: [&str; 5] = ["small", "grown", "dense", "merged", "counted"];

fn write_hlls(c: &mut redis::Connection) {
    cmd(c, &["PFADD", "small", "a", "b", "c"]);
    for i in 0..3000 {
        cmd(c, &["PFADD", "grown", &format!("g{i}")]);
    }
    cmd(c, &["PFADD", "dense", "x", "y"]);
    cmd(c, &["PFDEBUG", "TODENSE", "dense"]);
    cmd(c, &["PFMERGE", "merged", "small", "dense"]);
    cmd(c, &["PFADD", "counted", "1", "2", "3", "4"]);
    // The cache refresh is a change of the value: logged, so the bytes match after replay.
    cmd(c, &["PFCOUNT", "counted"]);
    cmd(c, &["PFCOUNT", "small", "grown"]);
}

/// Each key's bytes, as GET shows them.
fn snapshot(c: &mut redis::Connection) -> Vec<Vec<u8>> {
    KEYS.iter().map(|k| redis::cmd("GET").arg(*k).query::<Vec<u8>>(c).unwrap()).collect()
}

#[test]
fn hlls_come_back_byte_for_byte_after_a_restart_and_after_a_rewrite() {
    let dir = Dir::new("hll");
    let server = start(&dir);
    let mut c = conn(&server);
    write_hlls(&mut c);
    let before = snapshot(&mut c);
    assert_eq!(before[2].len(), 12304, "dense");
    assert_eq!(&before[4][8..16], &[4, 0, 0, 0, 0, 0, 0, 0], "the cached count");
    drop(server);
    let aof = String::from_utf8_lossy(&std::fs::read(dir.aof()).unwrap()).into_owned();
    assert_eq!(aof.matches("PFCOUNT").count(), 1, "only the refreshing PFCOUNT is logged");
    assert!(aof.contains("TODENSE"), "the conversion is logged");

    let server = start(&dir);
    let mut c = conn(&server);
    assert_eq!(snapshot(&mut c), before);
    let reply: String = redis::cmd("BGREWRITEAOF").query(&mut c).unwrap();
    assert!(reply.contains("rewriting started"), "{reply}");
    wait_for_first_rewrite(&mut c);
    drop(server);

    let server = start(&dir);
    let mut c = conn(&server);
    assert_eq!(snapshot(&mut c), before);
}
