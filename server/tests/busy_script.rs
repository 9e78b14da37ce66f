//! Busy scripts against the real binary: past `busy-reply-threshold` other clients get BUSY
//! (new connections on the spare event loop, existing ones on another loop, even those
//! already waiting for the script's shards), SCRIPT KILL stops a script that has not
//! written, one that has is UNKILLABLE until SHUTDOWN NOSAVE ends the server without its
//! writes, SHUTDOWN keeps acknowledged writes, and the admin API shows and kills the script.

mod common;

use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::aof::Dir;
use common::http::{get, request};
use common::{cmd, expect_closed, read_line, roundtrip, send, Server};

const SPIN: &str = "local i = 0 while true do i = i + 1 end";
const BUSY: &[u8] = b"-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n";

fn set_threshold(server: &Server, ms: &str) {
    roundtrip(&mut server.connect(), &cmd(&["CONFIG", "SET", "busy-reply-threshold", ms]), b"+OK\r\n");
}

/// Starts `body` as an EVAL on a connection of its own and returns the connection, whose
/// reply is read later.
fn start_script(server: &Server, body: &str) -> TcpStream {
    let mut c = server.connect();
    send(&mut c, &cmd(&["EVAL", body, "0"]));
    c
}

/// Waits (bounded) until the admin API says the script is busy.
fn wait_busy(server: &Server) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if get(server.http_port, "/api/running-script").json()["busy"] == true {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the script never became busy:\n{}", server.log());
}

fn line(c: &mut TcpStream) -> String {
    String::from_utf8_lossy(&read_line(c)).into_owned()
}

fn killed(c: &mut TcpStream) {
    let reply = line(c);
    assert!(reply.starts_with("-ERR Script killed by user with SCRIPT KILL... script: "), "{reply}");
}

#[test]
fn new_connections_get_busy_and_script_kill_stops_the_script() {
    // One event loop, as on a 2-core machine: the script holds it, newcomers go to the spare.
    let server = Server::start(&["--threads", "1"]);
    set_threshold(&server, "100");
    roundtrip(&mut server.connect(), &cmd(&["SET", "k", "v"]), b"+OK\r\n");
    let mut script = start_script(&server, SPIN);
    wait_busy(&server);
    let mut other = server.connect();
    roundtrip(&mut other, &cmd(&["GET", "k"]), BUSY);
    roundtrip(&mut other, &cmd(&["SHUTDOWN"]), BUSY);
    let view = get(server.http_port, "/api/running-script").json();
    assert_eq!((view["running"].as_bool(), view["kind"].as_str()), (Some(true), Some("eval")), "{view}");
    // The admin routes that would wait for the keyspace answer at once.
    let keys = get(server.http_port, "/api/keys");
    assert_eq!(keys.status, 503, "{}", keys.text());
    assert_eq!(keys.json()["error"]["code"], "busy_script");
    roundtrip(&mut other, &cmd(&["SCRIPT", "KILL"]), b"+OK\r\n");
    killed(&mut script);
    roundtrip(&mut other, &cmd(&["GET", "k"]), b"$1\r\nv\r\n");
    roundtrip(&mut script, &cmd(&["SCRIPT", "KILL"]), b"-NOTBUSY No scripts in execution right now.\r\n");
    assert_eq!(get(server.http_port, "/api/running-script").json()["running"], false);
}

#[test]
fn clients_on_another_loop_get_busy_even_while_waiting_for_the_keyspace() {
    let server = Server::start(&["--threads", "2"]);
    set_threshold(&server, "300");
    // Connections go to the loops in turn: the script's and this one's differ.
    let mut script = start_script(&server, SPIN);
    let mut waiting = server.connect();
    let deadline = Instant::now() + Duration::from_secs(10);
    while get(server.http_port, "/api/running-script").json()["running"] != true {
        assert!(Instant::now() < deadline, "the script never started");
        std::thread::sleep(Duration::from_millis(5));
    }
    // Sent before the script is busy: it waits for the shards, then gives up with BUSY.
    roundtrip(&mut waiting, &cmd(&["INCR", "n"]), BUSY);
    let r = request(server.http_port, "POST", "/api/running-script/kill", &[], None);
    assert_eq!(r.status, 200, "{}", r.text());
    killed(&mut script);
    roundtrip(&mut waiting, &cmd(&["INCR", "n"]), b":1\r\n");
}

#[test]
fn a_script_that_wrote_is_unkillable_and_shutdown_nosave_ends_the_server_without_its_writes() {
    let dir = Dir::new("busy-nosave");
    let aof = ["--dir", dir.arg(), "--appendonly", "yes", "--appendfsync", "always", "--threads", "1"];
    let mut server = Server::start(&aof);
    set_threshold(&server, "100");
    roundtrip(&mut server.connect(), &cmd(&["SET", "before", "1"]), b"+OK\r\n");
    let script = start_script(&server, &format!("redis.call('SET', 'during', '1') {SPIN}"));
    wait_busy(&server);
    let mut other = server.connect();
    let reply = {
        send(&mut other, &cmd(&["SCRIPT", "KILL"]));
        line(&mut other)
    };
    assert!(reply.starts_with("-UNKILLABLE Sorry the script already executed write commands"), "{reply}");
    let r = request(server.http_port, "POST", "/api/running-script/kill", &[], None);
    assert_eq!((r.status, r.json()["error"]["code"].as_str()), (409, Some("unkillable")), "{}", r.text());
    assert_eq!(get(server.http_port, "/api/running-script").json()["wrote"], true);
    send(&mut other, &cmd(&["SHUTDOWN", "NOSAVE"]));
    expect_closed(&mut other);
    let status = server.wait_exit(Duration::from_secs(10)).expect("the server stops");
    assert!(status.success(), "{status}\n{}", server.log());
    drop(script.shutdown(std::net::Shutdown::Both));
    drop(server);
    let server = Server::start(&aof);
    let mut c = server.connect();
    roundtrip(&mut c, &cmd(&["GET", "before"]), b"$1\r\n1\r\n");
    roundtrip(&mut c, &cmd(&["GET", "during"]), b"$-1\r\n");
}

#[test]
fn shutdown_keeps_acknowledged_writes_and_closes_the_connection() {
    let dir = Dir::new("busy-shutdown");
    let aof = ["--dir", dir.arg(), "--appendonly", "yes", "--appendfsync", "everysec"];
    let mut server = Server::start(&aof);
    let mut c = server.connect();
    roundtrip(&mut c, &cmd(&["SET", "kept", "yes"]), b"+OK\r\n");
    roundtrip(&mut c, &cmd(&["SHUTDOWN", "ABORT"]), b"-ERR No shutdown in progress.\r\n");
    roundtrip(&mut c, &cmd(&["SHUTDOWN", "SAVE", "NOSAVE"]), b"-ERR syntax error\r\n");
    send(&mut c, &cmd(&["SHUTDOWN"]));
    expect_closed(&mut c);
    let status = server.wait_exit(Duration::from_secs(10)).expect("the server stops");
    assert!(status.success(), "{status}");
    assert!(server.log().contains("received SHUTDOWN, shutting down"), "{}", server.log());
    drop(server);
    let server = Server::start(&aof);
    roundtrip(&mut server.connect(), &cmd(&["GET", "kept"]), b"$3\r\nyes\r\n");
}
