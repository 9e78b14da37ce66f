//! Loading append-only files against the real binary: a damaged checksum record after
//! BGREWRITEAOF refuses the start and leaves the file alone (it used to become an empty start
//! and a 0-byte file), plain RESP files and Redis 7's multi-part directory written by the real
//! redis-server load with every key, value and TTL, and a cut or damaged plain file is cut
//! (with a copy) or refused as `aof-load-truncated` says.

mod common;

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::aof::{typed_value, wait_for_first_rewrite, Dir};
use common::Server;

fn start(dir: &Dir, extra: &[&str]) -> Server {
    let mut args = vec!["--dir", dir.arg(), "--appendonly", "yes", "--appendfsync", "always"];
    args.extend_from_slice(extra);
    Server::start(&args)
}

/// Runs the binary on `dir` expecting it to refuse to start; returns what it printed. One that
/// starts instead is killed after a few seconds and fails the test (it would serve forever).
fn refused(dir: &Dir, extra: &[&str]) -> String {
    refused_with(dir, extra, None)
}

fn refused_with(dir: &Dir, extra: &[&str], env: Option<(&str, &str)>) -> String {
    let log = dir.0.join("refused.log");
    let mut command = Command::new(env!("CARGO_BIN_EXE_vitrine"));
    command
        .args(["--port", "0", "--bind", "127.0.0.1", "--http-port", "0", "--dir", dir.arg(), "--appendonly", "yes"])
        .args(extra)
        .env_remove("VITRINE_AOF_LOAD_TRUNCATED")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap());
    if let Some((k, v)) = env {
        command.env(k, v);
    }
    let err = common::proc::refused_start(&mut command, &log);
    let _ = std::fs::remove_file(&log);
    err
}

fn conn(server: &Server) -> redis::Connection {
    redis::Client::open(server.url()).unwrap().get_connection().unwrap()
}

fn info(c: &mut redis::Connection) -> String {
    redis::cmd("INFO").arg("persistence").query(c).unwrap()
}

fn field(info: &str, name: &str) -> String {
    info.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .unwrap_or_else(|| panic!("no {name} in {info}"))
        .trim()
        .to_string()
}

/// Every key: type, contents (sorted where order means nothing) and PTTL.
fn dump(c: &mut redis::Connection) -> BTreeMap<String, (String, String, i64)> {
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(c).unwrap();
    keys.into_iter()
        .map(|k| {
            let (t, v) = typed_value(c, &k);
            let ttl: i64 = redis::cmd("PTTL").arg(&k).query(c).unwrap();
            (k, (t, v, ttl))
        })
        .collect()
}

/// Asserts two dumps hold the same keys, types and values, and the same expiry up to the
/// time that passed between them (TTLs are absolute times in both files).
fn assert_same(redis: &BTreeMap<String, (String, String, i64)>, ours: &BTreeMap<String, (String, String, i64)>) {
    assert_eq!(redis.keys().collect::<Vec<_>>(), ours.keys().collect::<Vec<_>>());
    for (k, (t, v, ttl)) in redis {
        let (t2, v2, ttl2) = &ours[k];
        assert_eq!((t, v), (t2, v2), "{k}");
        if *ttl < 0 {
            assert_eq!(ttl, ttl2, "{k}");
        } else {
            assert!(*ttl2 > 0 && ttl2 <= ttl && *ttl2 > ttl - 30_000, "{k}: redis {ttl} ms, vitrine {ttl2} ms");
        }
    }
}

#[test]
fn a_flipped_byte_in_the_checksum_record_after_bgrewriteaof_refuses_to_start_and_leaves_the_file() {
    let dir = Dir::new("vcheck");
    let server = start(&dir, &[]);
    let mut c = conn(&server);
    let mut pipe = redis::pipe();
    for i in 0..1000 {
        pipe.cmd("SET").arg(format!("key:{i}")).arg(format!("value-{i}")).ignore();
    }
    let _: () = pipe.query(&mut c).unwrap();
    let _: String = redis::cmd("BGREWRITEAOF").query(&mut c).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !info(&mut c).contains("aof_rewrites:1\r") {
        assert!(Instant::now() < deadline, "no rewrite: {}", info(&mut c));
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(c);
    drop(server);
    let good = std::fs::read(dir.aof()).unwrap();
    let record = good.len() - 30;
    assert_eq!(&good[record..record + 20], b"*2\r\n$6\r\nVCHECK\r\n$8\r\n", "one block after the rewrite");
    assert_eq!(good.windows(6).filter(|w| w == b"VCHECK").count(), 1, "one block after the rewrite");
    // `$8` -> `$9`, a checksum digit, the record's name, its array length.
    for at in [record + 17, record + 25, record + 9, record + 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x01;
        std::fs::write(dir.aof(), &bad).unwrap();
        let err = refused(&dir, &[]);
        assert!(err.contains("corrupt at offset") || err.contains("cannot be loaded in full at offset"), "{err}");
        assert!(
            err.contains(&format!("offset {record}")),
            "byte {at}: the record's offset {record} is not named: {err}"
        );
        assert_eq!(std::fs::read(dir.aof()).unwrap(), bad, "byte {at}: the file is left byte for byte");
        assert_eq!(dir.files().len(), 1, "byte {at}: no copy or other file was made: {:?}", dir.files().keys());
    }
    // The undamaged file loads all 1,000 keys.
    std::fs::write(dir.aof(), &good).unwrap();
    let server = start(&dir, &[]);
    let mut c = conn(&server);
    let n: i64 = redis::cmd("DBSIZE").query(&mut c).unwrap();
    assert_eq!(n, 1000);
}

#[test]
fn a_hand_written_plain_file_loads_and_vitrine_continues_in_its_own_format() {
    let dir = Dir::new("plain");
    let plain =
        b"*3\r\n$3\r\nSET\r\n$5\r\nhello\r\n$5\r\nworld\r\n*4\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$1\r\na\r\n$1\r\nb\r\n";
    std::fs::write(dir.aof(), plain).unwrap();
    let server = start(&dir, &[]);
    let mut c = conn(&server);
    let v: String = redis::cmd("GET").arg("hello").query(&mut c).unwrap();
    assert_eq!(v, "world");
    let l: Vec<String> = redis::cmd("LRANGE").arg("l").arg(0).arg(-1).query(&mut c).unwrap();
    assert_eq!(l, ["a", "b"]);
    let text = info(&mut c);
    assert_eq!(field(&text, "aof_loaded_format"), "resp", "{text}");
    let kept = field(&text, "aof_kept_copy");
    assert_eq!(std::fs::read(&kept).unwrap(), plain, "the plain file is kept as it was");
    let _: () = redis::cmd("SET").arg("after").arg("1").query(&mut c).unwrap();
    drop(c);
    drop(server);
    let server = start(&dir, &[]);
    let mut c = conn(&server);
    assert_eq!(field(&info(&mut c), "aof_loaded_format"), "vitrine");
    let n: i64 = redis::cmd("DBSIZE").query(&mut c).unwrap();
    assert_eq!(n, 3);
}

#[test]
fn a_plain_file_cut_in_its_last_command_loads_its_prefix_with_a_copy_or_is_refused() {
    let dir = Dir::new("plaincut");
    let complete = b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n".to_vec();
    let cut = [complete.clone(), b"*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$4\r\nthr".to_vec()].concat();
    std::fs::write(dir.aof(), &cut).unwrap();
    // aof-load-truncated no (flag or environment variable): refused, the file as it was.
    let err = refused(&dir, &["--aof-load-truncated", "no"]);
    assert!(err.contains(&format!("truncated at offset {}", complete.len())), "{err}");
    assert_eq!(std::fs::read(dir.aof()).unwrap(), cut);
    let err = refused_with(&dir, &[], Some(("VITRINE_AOF_LOAD_TRUNCATED", "no")));
    assert!(err.contains("aof-load-truncated is no"), "{err}");
    assert_eq!(std::fs::read(dir.aof()).unwrap(), cut);
    // aof-load-truncated yes (Redis's default): the prefix loads, the cut bytes are kept.
    let server = start(&dir, &[]);
    let mut c = conn(&server);
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut c).unwrap();
    assert_eq!(keys.len(), 2);
    let cfg: Vec<String> = redis::cmd("CONFIG").arg("GET").arg("aof-load-truncated").query(&mut c).unwrap();
    assert_eq!(cfg, ["aof-load-truncated", "yes"]);
    let text = info(&mut c);
    let dropped = (cut.len() - complete.len()) as u64;
    assert_eq!(field(&text, "aof_last_load_truncated_bytes"), dropped.to_string(), "{text}");
    let torn = field(&text, "aof_torn_copy");
    assert!(torn.contains("appendonly.aof.torn-"), "{text}");
    assert_eq!(std::fs::read(&torn).unwrap(), &cut[complete.len()..], "the copy holds exactly the cut bytes");
    assert_eq!(std::fs::read(field(&text, "aof_kept_copy")).unwrap(), complete, "the plain file as loaded");
    let stats = common::http::get(server.http_port, "/api/stats").json();
    let r = &stats["persistence"]["recovery"];
    assert_eq!(r["torn_copy"], torn.as_str(), "{stats}");
    assert_eq!(r["torn_copy_bytes"], dropped, "{stats}");
    assert_eq!(r["truncated_at"], complete.len() as u64, "{stats}");
    assert_eq!(r["format"], "resp", "{stats}");
    assert!(server.log().contains(&torn), "{}", server.log());
}

#[test]
fn a_plain_file_with_garbage_in_the_middle_is_refused_with_its_offset() {
    let dir = Dir::new("garbage");
    let first = b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n".to_vec();
    let bad = [first.clone(), b"garbage\r\n".to_vec(), first.clone()].concat();
    std::fs::write(dir.aof(), &bad).unwrap();
    let err = refused(&dir, &[]);
    assert!(err.contains(&format!("corrupt at offset {}", first.len())), "{err}");
    assert_eq!(dir.files().len(), 1);
    assert_eq!(std::fs::read(dir.aof()).unwrap(), bad);
    // A database Vitrine does not have (`databases` is 16), and a command it does not have:
    // refused, named.
    for (cmd, says) in [
        ("*2\r\n$6\r\nSELECT\r\n$2\r\n99\r\n", "DB index is out of range"),
        ("*2\r\n$11\r\nNOSUCHCMD21\r\n$1\r\nh\r\n", "'NOSUCHCMD21'"),
    ] {
        let bad = [first.clone(), cmd.as_bytes().to_vec(), first.clone()].concat();
        std::fs::write(dir.aof(), &bad).unwrap();
        let err = refused(&dir, &[]);
        assert!(err.contains(&format!("at offset {}", first.len())) && err.contains(says), "{err}");
        assert_eq!(std::fs::read(dir.aof()).unwrap(), bad);
    }
}

/// A real redis-server 7 writing its AOF into `dir`, stopped (SHUTDOWN) by [`RedisAof::stop`].
struct RedisAof {
    child: Child,
    port: u16,
}

impl RedisAof {
    fn start(binary: &Path, dir: &Dir, preamble: &str) -> RedisAof {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(binary)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--daemonize", "no"])
            .args(["--appendonly", "yes", "--appendfsync", "always", "--aof-use-rdb-preamble", preamble])
            .args(["--dir", dir.arg(), "--logfile", ""])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut r = RedisAof { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(mut c) = r.conn() {
                if redis::cmd("PING").query::<String>(&mut c).is_ok() {
                    return r;
                }
            }
            assert!(r.child.try_wait().unwrap().is_none(), "redis-server exited at start");
            assert!(Instant::now() < deadline, "redis-server did not answer");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn conn(&self) -> redis::RedisResult<redis::Connection> {
        redis::Client::open(format!("redis://127.0.0.1:{}/", self.port))?.get_connection()
    }

    fn stop(mut self) {
        if let Ok(mut c) = self.conn() {
            let _ = redis::cmd("SHUTDOWN").query::<()>(&mut c);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "redis-server did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for RedisAof {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes keys of every type Vitrine has, with and without expiries, through the commands
/// whose logged forms differ from what was sent (EX -> PXAT, EXPIRE -> PEXPIREAT, INCRBYFLOAT
/// -> SET KEEPTTL, a transaction, deletions).
fn write_every_type(c: &mut redis::Connection) {
    let q = |c: &mut redis::Connection, args: &[&str]| {
        let mut cmd = redis::cmd(args[0]);
        for a in &args[1..] {
            cmd.arg(*a);
        }
        let _: redis::Value = cmd.query(c).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    };
    q(c, &["SET", "str", "plain value"]);
    q(c, &["SET", "int", "12345"]);
    q(c, &["INCR", "int"]);
    q(c, &["SET", "long", &"x".repeat(300)]);
    q(c, &["APPEND", "long", "tail"]);
    q(c, &["SET", "ex", "v", "EX", "1000"]);
    q(c, &["SETEX", "setex", "2000", "v"]);
    q(c, &["SET", "float", "1.5", "PX", "3000000"]);
    q(c, &["INCRBYFLOAT", "float", "2.25"]);
    q(c, &["SET", "gone", "v"]);
    q(c, &["DEL", "gone"]);
    q(c, &["RPUSH", "list", "a", "b", "c", "d"]);
    q(c, &["LPUSH", "list", "z"]);
    q(c, &["LPOP", "list"]);
    q(c, &["LSET", "list", "1", "B"]);
    q(c, &["RPUSH", "tlist", "1", "2"]);
    q(c, &["EXPIRE", "tlist", "500"]);
    q(c, &["HSET", "hash", "f1", "v1", "f2", "v2", "n", "1"]);
    q(c, &["HINCRBY", "hash", "n", "41"]);
    q(c, &["HDEL", "hash", "f2"]);
    q(c, &["HSET", "thash", "f", "v"]);
    q(c, &["PEXPIRE", "thash", "700000"]);
    q(c, &["SADD", "intset", "1", "2", "3", "100000"]);
    q(c, &["SADD", "set", "apple", "banana", "cherry"]);
    q(c, &["SREM", "set", "banana"]);
    q(c, &["SADD", "tset", "m"]);
    let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 900;
    q(c, &["EXPIREAT", "tset", &at.to_string()]);
    q(c, &["ZADD", "zset", "1.5", "a", "-2", "b", "100", "c"]);
    q(c, &["ZINCRBY", "zset", "0.25", "a"]);
    q(c, &["ZREM", "zset", "c"]);
    q(c, &["ZADD", "tzset", "1", "x"]);
    q(c, &["EXPIRE", "tzset", "800"]);
    q(c, &["SET", "persisted", "v", "EX", "100"]);
    q(c, &["PERSIST", "persisted"]);
    q(c, &["SET", "old", "v"]);
    q(c, &["RENAME", "old", "renamed"]);
    let _: () = redis::cmd("MULTI").query(c).unwrap();
    let _: () = redis::cmd("INCR").arg("tx").query(c).unwrap();
    let _: () = redis::cmd("RPUSH").arg("txlist").arg("q").query(c).unwrap();
    let _: redis::Value = redis::cmd("EXEC").query(c).unwrap();
    // A key that expires while redis-server still runs: it logs its deletion.
    q(c, &["SET", "short", "v", "PX", "50"]);
    std::thread::sleep(Duration::from_millis(100));
    let _: Option<String> = redis::cmd("GET").arg("short").query(c).unwrap();
}

#[test]
fn redis_7_multi_part_aof_loads_with_every_key_value_and_ttl_and_is_not_modified() {
    let Some(binary) = common::tool_or_skip(
        "redis_7_multi_part_aof_loads_with_every_key_value_and_ttl_and_is_not_modified",
        "redis-server",
        "redis-server",
    ) else {
        return;
    };
    let dir = Dir::new("redis7");
    let redis = RedisAof::start(&binary, &dir, "no");
    let mut c = redis.conn().unwrap();
    write_every_type(&mut c);
    let expected = dump(&mut c);
    assert!(expected.len() >= 18, "{expected:?}");
    drop(c);
    redis.stop();
    let redis_files = dir.files();
    assert!(redis_files.contains_key("appendonlydir/appendonly.aof.manifest"), "{:?}", redis_files.keys());
    assert!(!redis_files.contains_key("appendonly.aof"));

    let server = start(&dir, &[]);
    let mut c = conn(&server);
    assert_same(&expected, &dump(&mut c));
    let text = info(&mut c);
    assert_eq!(field(&text, "aof_loaded_format"), "redis-multi-part", "{text}");
    let _: () = redis::cmd("SET").arg("written-by-vitrine").arg("1").query(&mut c).unwrap();
    drop(c);
    drop(server);
    let mut after = dir.files();
    assert!(after.remove("appendonly.aof").is_some(), "Vitrine writes its own file");
    assert_eq!(after, redis_files, "Redis's files are byte for byte as Redis left them");

    // The next start loads Vitrine's own file: the same keys, and the write after.
    let server = start(&dir, &[]);
    let mut c = conn(&server);
    let mut ours = dump(&mut c);
    assert!(ours.remove("written-by-vitrine").is_some());
    assert_same(&expected, &ours);
    assert_eq!(field(&info(&mut c), "aof_loaded_format"), "vitrine");
}

/// Collections big enough for Redis's other encodings (hashtable sets and hashes, skiplist
/// sorted sets, a quicklist of several listpacks), and long strings it LZF-compresses.
fn write_big_ones(c: &mut redis::Connection) {
    let mut pipe = redis::pipe();
    for i in 0..300 {
        pipe.cmd("HSET").arg("bighash").arg(format!("field:{i}")).arg(format!("value {i}")).ignore();
        pipe.cmd("SADD").arg("bigset").arg(format!("member:{i}")).ignore();
        pipe.cmd("SADD").arg("bigintset").arg(i * 1000 - 70_000).ignore();
        pipe.cmd("ZADD").arg("bigzset").arg(f64::from(i) / 3.0 - 20.0).arg(format!("m{i}")).ignore();
    }
    for i in 0..3000 {
        pipe.cmd("RPUSH").arg("biglist").arg(format!("element number {i} of a long list")).ignore();
    }
    pipe.cmd("ZADD").arg("bigzset").arg("+inf").arg("top").arg("-inf").arg("bottom").ignore();
    pipe.cmd("SET").arg("lzf").arg("abcabcabc".repeat(200)).ignore();
    pipe.cmd("SET").arg("neg").arg("-123456789012").ignore();
    pipe.cmd("RPUSH").arg("hugeelement").arg("y".repeat(20_000)).arg("small").ignore();
    pipe.cmd("EXPIRE").arg("bighash").arg(5000).ignore();
    let _: () = pipe.query(c).unwrap();
}

#[test]
fn redis_7_rdb_base_loads_with_every_key_value_and_ttl_and_a_flipped_byte_is_refused() {
    let Some(binary) = common::tool_or_skip(
        "redis_7_rdb_base_loads_with_every_key_value_and_ttl_and_a_flipped_byte_is_refused",
        "redis-server",
        "redis-server",
    ) else {
        return;
    };
    let dir = Dir::new("redisrdb");
    let redis = RedisAof::start(&binary, &dir, "yes");
    let mut c = redis.conn().unwrap();
    write_every_type(&mut c);
    write_big_ones(&mut c);
    let _: String = redis::cmd("BGREWRITEAOF").query(&mut c).unwrap();
    wait_for_first_rewrite(&mut c);
    // After the rewrite, writes go to an incr file: the load must follow both.
    let _: () = redis::cmd("SET").arg("after-rewrite").arg("1").arg("EX").arg("900").query(&mut c).unwrap();
    let _: i64 = redis::cmd("HDEL").arg("bighash").arg("field:7").query(&mut c).unwrap();
    let expected = dump(&mut c);
    drop(c);
    redis.stop();
    let redis_files = dir.files();
    let base = redis_files.keys().find(|k| k.ends_with(".base.rdb")).cloned();
    let base = base.unwrap_or_else(|| panic!("no RDB base: {:?}", redis_files.keys()));

    // A flipped byte in the RDB's body: its CRC-64 no longer matches (or, in a length or an
    // encoding, the walk fails first), and nothing is loaded or written.
    let good = redis_files[&base].clone();
    let mut bad = good.clone();
    bad[good.len() / 2] ^= 0x04;
    std::fs::write(dir.0.join(&base), &bad).unwrap();
    let err = refused(&dir, &[]);
    assert!(err.contains("corrupt at offset") && err.contains("in its RDB part"), "{err}");
    assert!(!dir.aof().exists(), "nothing was written");
    std::fs::write(dir.0.join(&base), &good).unwrap();

    let server = start(&dir, &[]);
    let mut c = conn(&server);
    assert_same(&expected, &dump(&mut c));
    let text = info(&mut c);
    assert_eq!(field(&text, "aof_loaded_format"), "redis-multi-part", "{text}");
    let stats = common::http::get(server.http_port, "/api/stats").json();
    let rdb_keys = stats["persistence"]["recovery"]["rdb_keys"].as_u64().unwrap_or(0);
    assert!(rdb_keys as usize + 1 >= expected.len(), "the keys came from the RDB base: {stats}");
    drop(c);
    drop(server);
    let mut after = dir.files();
    assert!(after.remove("appendonly.aof").is_some());
    assert_eq!(after, redis_files, "Redis's files are byte for byte as Redis left them");
}

/// Redis's RDB base holds function libraries (opcode 245, LZF-compressed code): Vitrine
/// loads them before the keys, and a library loaded after the rewrite (in the incr file) too.
#[test]
fn redis_7_rdb_base_with_function_libraries_loads_them() {
    let Some(binary) =
        common::tool_or_skip("redis_7_rdb_base_with_function_libraries_loads_them", "redis-server", "redis-server")
    else {
        return;
    };
    let dir = Dir::new("redisfunctions");
    let redis = RedisAof::start(&binary, &dir, "yes");
    let mut c = redis.conn().unwrap();
    let lib =
        "#!lua name=base\nredis.register_function('base_get', function(keys) return redis.call('GET', keys[1]) end)";
    let _: String = redis::cmd("FUNCTION").arg("LOAD").arg(lib).query(&mut c).unwrap();
    let _: () = redis::cmd("SET").arg("k").arg("v").query(&mut c).unwrap();
    let _: String = redis::cmd("BGREWRITEAOF").query(&mut c).unwrap();
    wait_for_first_rewrite(&mut c);
    let later = "#!lua name=later\nredis.register_function('later_set', function(keys, args) return redis.call('SET', keys[1], args[1]) end)";
    let _: String = redis::cmd("FUNCTION").arg("LOAD").arg(later).query(&mut c).unwrap();
    let _: () = redis::cmd("FCALL").arg("later_set").arg(1).arg("k2").arg("w").query(&mut c).unwrap();
    drop(c);
    redis.stop();

    let server = start(&dir, &[]);
    let mut c = conn(&server);
    let v: String = redis::cmd("FCALL").arg("base_get").arg(1).arg("k").query(&mut c).unwrap();
    assert_eq!(v, "v");
    let v: String = redis::cmd("FCALL").arg("base_get").arg(1).arg("k2").query(&mut c).unwrap();
    assert_eq!(v, "w");
    let code: Vec<redis::Value> =
        redis::cmd("FUNCTION").arg("LIST").arg("LIBRARYNAME").arg("later").query(&mut c).unwrap();
    assert_eq!(code.len(), 1);
}
