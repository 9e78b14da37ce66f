//! Functions against the real binary: libraries and the writes their functions make survive a
//! restart of the append-only file and a rewrite, FUNCTION DELETE too; and FUNCTION DUMP's
//! payload goes both ways between Vitrine and redis-server 7.

mod common;

use common::aof::Dir;
use common::{RedisServer, Server};

const LIB: &str = "#!lua name=counter\n\
    redis.register_function('bump', function(keys, args) return redis.call('INCRBY', keys[1], args[1]) end)\n\
    redis.register_function{function_name='peek', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}}";

fn start(dir: &Dir) -> Server {
    Server::start(&["--dir", dir.arg(), "--appendonly", "yes", "--appendfsync", "always"])
}

fn conn(url: &str) -> redis::Connection {
    redis::Client::open(url).unwrap().get_connection().unwrap()
}

fn bump(c: &mut redis::Connection, by: i64) -> redis::RedisResult<i64> {
    redis::cmd("FCALL").arg("bump").arg(1).arg("n").arg(by).query(c)
}

fn libraries(c: &mut redis::Connection) -> usize {
    let list: Vec<redis::Value> = redis::cmd("FUNCTION").arg("LIST").query(c).unwrap();
    list.len()
}

#[test]
fn libraries_and_their_writes_survive_restarts_and_a_rewrite() {
    let dir = Dir::new("functions");
    let server = start(&dir);
    let mut c = conn(&server.url());
    let name: String = redis::cmd("FUNCTION").arg("LOAD").arg(LIB).query(&mut c).unwrap();
    assert_eq!(name, "counter");
    assert_eq!(bump(&mut c, 5).unwrap(), 5);
    drop(server);

    let server = start(&dir);
    let mut c = conn(&server.url());
    assert_eq!(bump(&mut c, 2).unwrap(), 7, "the library and the write are back");
    let reply: String = redis::cmd("BGREWRITEAOF").query(&mut c).unwrap();
    assert!(reply.contains("rewriting started"), "{reply}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let info: String = redis::cmd("INFO").arg("persistence").query(&mut c).unwrap();
        if info.contains("aof_rewrites:1") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{info}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(bump(&mut c, 1).unwrap(), 8);
    drop(server);
    let log = std::fs::read(dir.aof()).unwrap();
    assert!(log.windows(8).any(|w| w == b"FUNCTION"), "the rewrite loads the library");
    assert!(!log.windows(5).any(|w| w == b"FCALL"), "calls are logged as their effects");

    let server = start(&dir);
    let mut c = conn(&server.url());
    let n: i64 = redis::cmd("FCALL_RO").arg("peek").arg(1).arg("n").query(&mut c).unwrap();
    assert_eq!(n, 8, "after the rewrite and a restart");
    let _: () = redis::cmd("FUNCTION").arg("DELETE").arg("counter").query(&mut c).unwrap();
    drop(server);

    let server = start(&dir);
    let mut c = conn(&server.url());
    assert_eq!(libraries(&mut c), 0, "the delete survives the restart");
    let e = bump(&mut c, 1).unwrap_err();
    assert!(e.to_string().contains("Function not found"), "{e}");
    let n: i64 = redis::cmd("GET").arg("n").query(&mut c).unwrap();
    assert_eq!(n, 8);
}

#[test]
fn dump_payloads_restore_both_ways_with_redis_server() {
    let Some(redis_server) = RedisServer::start_or_skip("dump_payloads_restore_both_ways_with_redis_server") else {
        return;
    };
    let server = Server::start(&[]);
    let mut ours = conn(&server.url());
    let mut theirs = conn(&format!("redis://{}/", redis_server.addr()));
    for c in [&mut ours, &mut theirs] {
        let _: String = redis::cmd("FUNCTION").arg("LOAD").arg(LIB).query(c).unwrap();
    }
    let our_dump: Vec<u8> = redis::cmd("FUNCTION").arg("DUMP").query(&mut ours).unwrap();
    let their_dump: Vec<u8> = redis::cmd("FUNCTION").arg("DUMP").query(&mut theirs).unwrap();
    // The same bytes, LZF compression included.
    assert_eq!(our_dump, their_dump);

    // Each restores the other's payload (and refuses it while the library is there).
    let other = "#!lua name=other\nredis.register_function('twice', function(keys, args) return args[1] * 2 end)";
    let _: String = redis::cmd("FUNCTION").arg("LOAD").arg(other).query(&mut theirs).unwrap();
    let theirs_now: Vec<u8> = redis::cmd("FUNCTION").arg("DUMP").query(&mut theirs).unwrap();
    let e = redis::cmd("FUNCTION").arg("RESTORE").arg(&theirs_now).query::<()>(&mut ours).unwrap_err();
    assert!(e.to_string().contains("Library counter already exists"), "{e}");
    let _: () = redis::cmd("FUNCTION").arg("RESTORE").arg(&theirs_now).arg("FLUSH").query(&mut ours).unwrap();
    let twice: i64 = redis::cmd("FCALL").arg("twice").arg(0).arg(21).query(&mut ours).unwrap();
    assert_eq!(twice, 42);
    assert_eq!(libraries(&mut ours), 2);

    let _: () = redis::cmd("FUNCTION").arg("FLUSH").query(&mut theirs).unwrap();
    let ours_now: Vec<u8> = redis::cmd("FUNCTION").arg("DUMP").query(&mut ours).unwrap();
    let _: () = redis::cmd("FUNCTION").arg("RESTORE").arg(&ours_now).query(&mut theirs).unwrap();
    let twice: i64 = redis::cmd("FCALL").arg("twice").arg(0).arg(4).query(&mut theirs).unwrap();
    assert_eq!(twice, 8);
    assert_eq!(libraries(&mut theirs), 2);

    // A damaged payload gets the same error from both.
    let mut bad = ours_now.clone();
    bad[6] ^= 0x20;
    for c in [&mut ours, &mut theirs] {
        let e = redis::cmd("FUNCTION").arg("RESTORE").arg(&bad).arg("REPLACE").query::<()>(c).unwrap_err();
        assert!(e.to_string().contains("payload version or checksum are wrong"), "{e}");
    }
}
