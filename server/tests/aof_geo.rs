//! Geo indexes in the append-only file, against the real binary: GEOADD is logged as the
//! ZADD it runs, the STORE searches as themselves, and reads not at all; the indexes come
//! back the same after a restart.

mod common;

use common::aof::{start, Dir};

fn query(c: &mut redis::Connection, args: &[&str]) -> redis::Value {
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query(c).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

fn snapshot(c: &mut redis::Connection) -> Vec<String> {
    ["sicily", "near", "dists"]
        .iter()
        .map(|k| format!("{k}: {:?}", query(c, &["ZRANGE", k, "0", "-1", "WITHSCORES"])))
        .collect()
}

#[test]
fn geo_indexes_come_back_the_same_after_a_restart() {
    let dir = Dir::new("geo");
    let server = start(&dir);
    let mut c = redis::Client::open(server.url()).unwrap().get_connection().unwrap();
    query(&mut c, &["GEOADD", "sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"]);
    query(&mut c, &["GEOADD", "sicily", "XX", "CH", "13.5", "38", "Palermo"]);
    query(&mut c, &["GEOSEARCHSTORE", "near", "sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"]);
    query(&mut c, &["GEORADIUS", "sicily", "15", "37", "200", "km", "STOREDIST", "dists"]);
    query(&mut c, &["GEOSEARCH", "sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "10", "km"]);
    query(&mut c, &["GEORADIUS", "sicily", "15", "37", "200", "km"]);
    let before = snapshot(&mut c);
    assert!(before[2].contains("Catania"), "{before:?}");
    drop(server);

    let aof = String::from_utf8_lossy(&std::fs::read(dir.aof()).unwrap()).into_owned();
    assert!(aof.contains("ZADD") && !aof.contains("GEOADD"), "GEOADD is logged as ZADD:\n{aof}");
    assert_eq!(aof.matches("GEORADIUS").count(), 1, "only the STORE search is logged:\n{aof}");
    assert!(!aof.contains("GEOSEARCH\r\n"), "GEOSEARCH is not logged:\n{aof}");

    let server = start(&dir);
    let mut c = redis::Client::open(server.url()).unwrap().get_connection().unwrap();
    assert_eq!(snapshot(&mut c), before);
}
