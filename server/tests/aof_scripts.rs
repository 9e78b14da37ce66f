//! The script cache in the append-only file, against the real binary: scripts SCRIPT LOAD and
//! EVAL cached survive a restart (and a rewrite), an EVAL one stays evictable, SCRIPT FLUSH
//! is replayed, a hot EVAL is logged once; and `lua-maxmemory` stops a script that allocates
//! without end while the server stays up.

mod common;

use std::time::{Duration, Instant};

use common::aof::{conn, start, Dir};
use common::Server;

fn info(c: &mut redis::Connection, section: &str) -> String {
    redis::cmd("INFO").arg(section).query(c).unwrap()
}

fn field(info: &str, name: &str) -> u64 {
    let line = info.lines().find(|l| l.starts_with(&format!("{name}:"))).unwrap_or_else(|| panic!("no {name}"));
    line[name.len() + 1..].trim().parse().unwrap()
}

fn load(c: &mut redis::Connection, body: &str) -> String {
    redis::cmd("SCRIPT").arg("LOAD").arg(body).query(c).unwrap()
}

fn evalsha(c: &mut redis::Connection, sha: &str) -> redis::RedisResult<redis::Value> {
    redis::cmd("EVALSHA").arg(sha).arg(0).query(c)
}

fn is_noscript(r: redis::RedisResult<redis::Value>) -> bool {
    matches!(r, Err(e) if e.code() == Some("NOSCRIPT"))
}

fn sha1(body: &str) -> String {
    sha1_smol::Sha1::from(body).digest().to_string()
}

/// Waits until the file holds `what` `times` times (the log is written right after the reply
/// under `always`; this covers the write itself).
fn wait_for_file(dir: &Dir, what: &[u8], times: usize) -> Vec<u8> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let data = std::fs::read(dir.aof()).unwrap_or_default();
        let n = data.windows(what.len()).filter(|w| *w == what).count();
        if n >= times || Instant::now() > deadline {
            assert_eq!(n, times, "{}", String::from_utf8_lossy(&data));
            return data;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn loaded_and_eval_scripts_survive_a_restart_and_eval_ones_stay_evictable() {
    let dir = Dir::new("scripts-restart");
    let server = start(&dir);
    let mut c = conn(&server);
    let loaded = load(&mut c, "return 'loaded'");
    let eval_body = "return redis.call('INCR', KEYS[1])";
    let n: i64 = redis::cmd("EVAL").arg(eval_body).arg(1).arg("n").query(&mut c).unwrap();
    assert_eq!(n, 1);
    wait_for_file(&dir, eval_body.as_bytes(), 1);
    drop(server);

    let server = start(&dir);
    let mut c = conn(&server);
    assert_eq!(evalsha(&mut c, &loaded).unwrap(), redis::Value::BulkString(b"loaded".to_vec()));
    let n: i64 = redis::cmd("EVALSHA").arg(sha1(eval_body)).arg(1).arg("n").query(&mut c).unwrap();
    assert_eq!(n, 2);
    assert_eq!(field(&info(&mut c, "memory"), "number_of_cached_scripts"), 2);
    // 500 more EVAL scripts: the restored EVAL one is evicted as the least recently used, the
    // loaded one never is.
    for i in 0..500 {
        let _: i64 = redis::cmd("EVAL").arg(format!("return {i}")).arg(0).query(&mut c).unwrap();
    }
    assert!(is_noscript(redis::cmd("EVALSHA").arg(sha1(eval_body)).arg(1).arg("n").query(&mut c)));
    assert_eq!(evalsha(&mut c, &loaded).unwrap(), redis::Value::BulkString(b"loaded".to_vec()));
    assert_eq!(field(&info(&mut c, "stats"), "evicted_scripts"), 1);
}

#[test]
fn script_flush_is_replayed_after_a_restart() {
    let dir = Dir::new("scripts-flush");
    let server = start(&dir);
    let mut c = conn(&server);
    let loaded = load(&mut c, "return 1");
    let _: i64 = redis::cmd("EVAL").arg("return 2").arg(0).query(&mut c).unwrap();
    let _: () = redis::cmd("SCRIPT").arg("FLUSH").query(&mut c).unwrap();
    let later = load(&mut c, "return 3");
    wait_for_file(&dir, b"return 3", 1);
    drop(server);

    let server = start(&dir);
    let mut c = conn(&server);
    assert!(is_noscript(evalsha(&mut c, &loaded)));
    assert!(is_noscript(evalsha(&mut c, &sha1("return 2"))));
    assert_eq!(evalsha(&mut c, &later).unwrap(), redis::Value::Int(3));
    assert_eq!(field(&info(&mut c, "memory"), "number_of_cached_scripts"), 1);
}

#[test]
fn bgrewriteaof_keeps_the_script_cache() {
    let dir = Dir::new("scripts-rewrite");
    let server = start(&dir);
    let mut c = conn(&server);
    let loaded = load(&mut c, "return 'loaded'");
    for i in 0..3 {
        let _: i64 = redis::cmd("EVAL").arg(format!("return {i}")).arg(0).query(&mut c).unwrap();
    }
    let _: () = redis::cmd("SET").arg("k").arg("v").query(&mut c).unwrap();
    let _: () = redis::cmd("SCRIPT").arg("FLUSH").query(&mut c).unwrap();
    let kept = load(&mut c, "return 'kept'");
    let _: i64 = redis::cmd("EVAL").arg("return 7").arg(0).query(&mut c).unwrap();
    let _: String = redis::cmd("BGREWRITEAOF").query(&mut c).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !info(&mut c, "persistence").contains("aof_rewrites:1") {
        assert!(Instant::now() < deadline, "no rewrite");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The rewritten file holds the cache as it is now (no flushed script, no FLUSH), first.
    let data = std::fs::read(dir.aof()).unwrap();
    let text = String::from_utf8_lossy(&data);
    assert!(!text.contains("return 'loaded'") && !text.contains("FLUSH"), "{text}");
    let (kept_at, eval_at, key_at) =
        (text.find("return 'kept'").unwrap(), text.find("return 7").unwrap(), text.find("SET").unwrap());
    assert!(kept_at < eval_at && eval_at < key_at, "{text}");
    assert!(text.contains("#vitrine:eval-script\r\n*3\r\n$6\r\nSCRIPT\r\n$4\r\nLOAD\r\n$8\r\nreturn 7"), "{text}");
    drop(server);

    let server = start(&dir);
    let mut c = conn(&server);
    assert!(is_noscript(evalsha(&mut c, &loaded)));
    assert_eq!(evalsha(&mut c, &kept).unwrap(), redis::Value::BulkString(b"kept".to_vec()));
    assert_eq!(evalsha(&mut c, &sha1("return 7")).unwrap(), redis::Value::Int(7));
    let v: String = redis::cmd("GET").arg("k").query(&mut c).unwrap();
    assert_eq!(v, "v");
}

#[test]
fn a_hot_eval_is_logged_once() {
    let dir = Dir::new("scripts-once");
    let server = start(&dir);
    let mut c = conn(&server);
    let body = "return redis.call('INCR', 'hits')";
    for _ in 0..1000 {
        let _: i64 = redis::cmd("EVAL").arg(body).arg(0).query(&mut c).unwrap();
    }
    for _ in 0..10 {
        let _: i64 = redis::cmd("EVALSHA").arg(sha1(body)).arg(0).query(&mut c).unwrap();
        let _: String = redis::cmd("SCRIPT").arg("LOAD").arg(body).query(&mut c).unwrap();
    }
    // The body once, and 1010 effects.
    let data = wait_for_file(&dir, b"$4\r\nINCR\r\n", 1010);
    let times = data.windows(body.len()).filter(|w| *w == body.as_bytes()).count();
    assert_eq!(times, 1);
    drop(server);
    let server = start(&dir);
    let mut c = conn(&server);
    let hits: i64 = redis::cmd("GET").arg("hits").query(&mut c).unwrap();
    assert_eq!(hits, 1010);
}

#[test]
fn lua_maxmemory_stops_a_hostile_script_and_the_server_stays_up() {
    let server = Server::start(&["--lua-maxmemory", "32mb"]);
    let mut c = conn(&server);
    let cap: Vec<String> = redis::cmd("CONFIG").arg("GET").arg("lua-maxmemory").query(&mut c).unwrap();
    assert_eq!(cap, ["lua-maxmemory", "33554432"]);
    let hog = "local t = {} local i = 0 while true do i = i + 1 t[i] = string.rep('x', 4096) .. i end";
    let err = redis::cmd("EVAL").arg(hog).arg(0).query::<redis::Value>(&mut c).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("Lua VM out of memory (lua-maxmemory is 33554432 bytes)"), "{text}");
    let rss = common::proc::status_bytes(server.pid(), "VmRSS");
    assert!(rss < 256 * 1024 * 1024, "RSS {rss}");
    let pong: String = redis::cmd("PING").query(&mut c).unwrap();
    assert_eq!(pong, "PONG");
    let v: i64 = redis::cmd("EVAL").arg("return #string.rep('y', 1000000)").arg(0).query(&mut c).unwrap();
    assert_eq!(v, 1_000_000);
    let vm = field(&info(&mut c, "memory"), "used_memory_vm_eval");
    assert!(vm < 8 * 1024 * 1024, "the VM holds {vm} bytes after the hog");
    // A lower cap set at run time is in force for the next script.
    let _: () = redis::cmd("CONFIG").arg("SET").arg("lua-maxmemory").arg("4mb").query(&mut c).unwrap();
    let err = redis::cmd("EVAL").arg("return #string.rep('z', 8000000)").arg(0).query::<i64>(&mut c).unwrap_err();
    assert!(err.to_string().contains("Lua VM out of memory (lua-maxmemory is 4194304 bytes)"), "{err}");
}
