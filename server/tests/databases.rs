//! Numbered databases against the real binary: every database survives SIGKILL and an AOF
//! rewrite, clients select one by URL and CLIENT LIST shows it, blocking waits stay within
//! their database, and the admin API and /metrics read each database.

mod common;

use std::time::{Duration, Instant};

use common::aof::{typed_value, Dir};
use common::http::{get, request};
use common::Server;

fn conn_db(server: &Server, db: usize) -> redis::Connection {
    redis::Client::open(format!("{}/{db}", server.url())).unwrap().get_connection().unwrap()
}

/// Every key of every database with its type and contents, sorted.
fn dump_all(server: &Server) -> Vec<String> {
    let mut out = Vec::new();
    for db in 0..16 {
        let mut c = conn_db(server, db);
        let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut c).unwrap();
        for k in keys {
            let (t, v) = typed_value(&mut c, &k);
            out.push(format!("db{db} {k} {t} {v}"));
        }
    }
    out.sort();
    out
}

fn wait_for(c: &mut redis::Connection, what: &str) {
    let start = Instant::now();
    loop {
        let info: String = redis::cmd("INFO").arg("persistence").query(c).unwrap();
        if info.contains(what) {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "no {what} in {info}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn every_database_survives_sigkill_and_a_rewrite() {
    let dir = Dir::new("databases");
    let args = ["--dir", dir.arg(), "--appendonly", "yes", "--appendfsync", "always"];
    let server = Server::start(&args);
    let mut zero = conn_db(&server, 0);
    let mut three = conn_db(&server, 3);
    let _: () = redis::cmd("SET").arg("k").arg("zero").query(&mut zero).unwrap();
    let _: () = redis::cmd("SET").arg("k").arg("three").query(&mut three).unwrap();
    let _: () = redis::cmd("RPUSH").arg("l").arg("a").arg("b").query(&mut three).unwrap();
    let _: () = redis::cmd("SET").arg("ttl").arg("v").arg("EX").arg("1000").query(&mut three).unwrap();
    let _: i64 = redis::cmd("MOVE").arg("l").arg("5").query(&mut three).unwrap();
    let _: i64 = redis::cmd("COPY").arg("k").arg("copied").arg("DB").arg("7").query(&mut zero).unwrap();
    let _: () = redis::cmd("SWAPDB").arg("7").arg("8").query(&mut zero).unwrap();
    // A transaction that moves between databases.
    let mut pipe = redis::pipe();
    pipe.atomic().cmd("SET").arg("t").arg("in0").cmd("SELECT").arg("9").cmd("SET").arg("t").arg("in9");
    let _: redis::Value = pipe.query(&mut zero).unwrap();
    // The next write from another connection is in database 0 again.
    let mut other = conn_db(&server, 0);
    let _: () = redis::cmd("SET").arg("after").arg("tx").query(&mut other).unwrap();
    let before = dump_all(&server);
    assert!(before.iter().any(|l| l.starts_with("db5 l ")), "{before:?}");
    assert!(before.iter().any(|l| l.starts_with("db8 copied ")), "{before:?}");
    assert!(before.iter().any(|l| l.starts_with("db9 t ")) && before.iter().any(|l| l.starts_with("db0 after ")));
    drop(server);

    let server = Server::start(&args);
    assert_eq!(dump_all(&server), before, "restored from the log");
    let mut c = conn_db(&server, 3);
    let ttl: i64 = redis::cmd("PTTL").arg("ttl").query(&mut c).unwrap();
    assert!(ttl > 990_000, "{ttl}");
    let _: String = redis::cmd("BGREWRITEAOF").query(&mut c).unwrap();
    wait_for(&mut c, "aof_rewrites:1");
    // Written after the rewrite, in a database the image did not end in.
    let mut four = conn_db(&server, 4);
    let _: () = redis::cmd("SET").arg("late").arg("v").query(&mut four).unwrap();
    let _: () = redis::cmd("SET").arg("late0").arg("v").query(&mut conn_db(&server, 0)).unwrap();
    let before = dump_all(&server);
    drop(server);
    let server = Server::start(&args);
    assert_eq!(dump_all(&server), before, "restored from the rewritten log");
}

#[test]
fn clients_select_by_url_and_client_list_shows_it() {
    let server = Server::start(&[]);
    let mut c = conn_db(&server, 6);
    let _: () = redis::cmd("CLIENT").arg("SETNAME").arg("six").query(&mut c).unwrap();
    let list: String = redis::cmd("CLIENT").arg("LIST").query(&mut conn_db(&server, 0)).unwrap();
    let line = list.lines().find(|l| l.contains("name=six")).expect("the client is listed");
    assert!(line.contains(" db=6 "), "{line}");
    // HELLO 3 keeps the database, as in Redis.
    let _: redis::Value = redis::cmd("HELLO").arg("3").query(&mut c).unwrap();
    let _: () = redis::cmd("SET").arg("k").arg("v").query(&mut c).unwrap();
    let n: i64 = redis::cmd("DBSIZE").query(&mut c).unwrap();
    let zero: i64 = redis::cmd("DBSIZE").query(&mut conn_db(&server, 0)).unwrap();
    assert_eq!((n, zero), (1, 0));
}

#[test]
fn a_blocked_client_waits_on_its_own_database() {
    let server = Server::start(&[]);
    let mut waiter = conn_db(&server, 2);
    let handle = std::thread::spawn(move || {
        let got: Option<(String, String)> = redis::cmd("BLPOP").arg("q").arg("5").query(&mut waiter).unwrap();
        got
    });
    std::thread::sleep(Duration::from_millis(200));
    // The same name in database 0 does not serve it; database 2's does.
    let _: () = redis::cmd("RPUSH").arg("q").arg("wrong").query(&mut conn_db(&server, 0)).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let _: () = redis::cmd("RPUSH").arg("q").arg("right").query(&mut conn_db(&server, 2)).unwrap();
    assert_eq!(handle.join().unwrap(), Some(("q".into(), "right".into())));
    let left: i64 = redis::cmd("LLEN").arg("q").query(&mut conn_db(&server, 0)).unwrap();
    assert_eq!(left, 1);
}

#[test]
fn the_admin_api_and_metrics_read_each_database() {
    let server = Server::start(&[]);
    let port = server.http_port;
    let put = request(port, "PUT", "/api/keys/k3?db=3", &[], Some(r#"{"value":"three"}"#)).expect(200);
    assert_eq!(put["value"], "three");
    assert_eq!(get(port, "/api/keys/k3?db=3").expect(200)["value"], "three");
    get(port, "/api/keys/k3").expect(404);
    let page = get(port, "/api/keys?db=3").expect(200);
    assert_eq!(page["keys"].as_array().map(|k| k.len()), Some(1), "{page}");
    assert_eq!(get(port, "/api/keys").expect(200)["keys"].as_array().map(|k| k.len()), Some(0));
    let bad = get(port, "/api/keys?db=16").expect(400);
    assert_eq!(bad["error"]["message"], "db must be between 0 and 15", "{bad}");
    get(port, "/api/keys/k3?db=99").expect(400);
    let stats = get(port, "/api/stats").expect(200);
    assert_eq!(stats["databases"], 16);
    assert_eq!(stats["keyspace"][0]["db"], 3, "{stats}");
    assert_eq!(stats["keyspace"][0]["keys"], 1, "{stats}");
    let metrics = get(port, "/metrics").text();
    assert!(metrics.contains("vitrine_db_keys{db=\"db3\"} 1"), "{metrics}");
    assert!(metrics.contains("vitrine_db_keys{db=\"db0\"} 0"), "{metrics}");
    assert!(metrics.contains("vitrine_db_keys{db=\"db15\"} 0"), "{metrics}");
    assert!(metrics.contains("vitrine_db_keys_by_type{db=\"db3\",type=\"string\"} 1"), "{metrics}");
    request(port, "DELETE", "/api/keys/k3?db=3", &[], None).expect(200);
    get(port, "/api/keys/k3?db=3").expect(404);
    // INFO keyspace lists non-empty databases by number.
    let mut c = conn_db(&server, 12);
    let _: () = redis::cmd("SET").arg("x").arg("1").query(&mut c).unwrap();
    let info: String = redis::cmd("INFO").arg("keyspace").query(&mut c).unwrap();
    assert!(info.contains("db12:keys=1,expires=0,avg_ttl=0"), "{info}");
}
