//! ACL users over a real RESP socket: AUTH and HELLO ... AUTH as a user, NOPERM on the wire,
//! a refused command in MULTI, ACL LOG, and ACL DELUSER closing the deleted user's connection
//! after the reply to the caller.

mod common;

use common::{cmd, expect, expect_closed, read_line, read_n, roundtrip, send, Server};

const WRONGPASS: &[u8] = b"-WRONGPASS invalid username-password pair or user is disabled.\r\n";

#[test]
fn users_authenticate_and_are_refused_on_the_wire() {
    let server = Server::start(&["--requirepass", "adminpw"]);
    let mut admin = server.connect();
    roundtrip(&mut admin, &cmd(&["AUTH", "adminpw"]), b"+OK\r\n");
    roundtrip(
        &mut admin,
        &cmd(&["ACL", "SETUSER", "reader", "on", ">pw", "~k*", "&news", "+@read", "+publish", "+multi", "+exec"]),
        b"+OK\r\n",
    );

    let mut c = server.connect();
    roundtrip(&mut c, &cmd(&["GET", "k"]), b"-NOAUTH Authentication required.\r\n");
    roundtrip(&mut c, &cmd(&["AUTH", "reader", "nope"]), WRONGPASS);
    roundtrip(&mut c, &cmd(&["AUTH", "reader", "pw"]), b"+OK\r\n");
    roundtrip(&mut c, &cmd(&["GET", "k1"]), b"$-1\r\n");
    roundtrip(&mut c, &cmd(&["SET", "k1", "v"]), b"-NOPERM this user has no permissions to run the 'set' command\r\n");
    roundtrip(
        &mut c,
        &cmd(&["GET", "x"]),
        b"-NOPERM this user has no permissions to access one of the keys used as arguments\r\n",
    );
    roundtrip(
        &mut c,
        &cmd(&["PUBLISH", "sports", "m"]),
        b"-NOPERM this user has no permissions to access one of the channels used as arguments\r\n",
    );
    roundtrip(
        &mut c,
        &cmd(&["ACL", "WHOAMI"]),
        b"-NOPERM this user has no permissions to run the 'acl|whoami' command\r\n",
    );
    // Refused at queue time: the transaction is discarded.
    roundtrip(&mut c, &cmd(&["MULTI"]), b"+OK\r\n");
    roundtrip(&mut c, &cmd(&["DEL", "k1"]), b"-NOPERM this user has no permissions to run the 'del' command\r\n");
    roundtrip(&mut c, &cmd(&["EXEC"]), b"-EXECABORT Transaction discarded because of previous errors.\r\n");

    // HELLO 3 AUTH: a RESP3 map, `server` first and Vitrine's own pair last.
    let mut h = server.connect();
    roundtrip(&mut h, &cmd(&["HELLO", "3", "AUTH", "reader", "bad"]), WRONGPASS);
    send(&mut h, &cmd(&["HELLO", "3", "AUTH", "reader", "pw"]));
    expect(&mut h, b"%8\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n");

    // Both of the reader's connections show it in CLIENT LIST.
    send(&mut admin, &cmd(&["CLIENT", "LIST"]));
    let header = read_line(&mut admin);
    let len: usize = String::from_utf8_lossy(&header[1..]).trim().parse().expect("a bulk length");
    let list = String::from_utf8_lossy(&read_n(&mut admin, len + 2)).into_owned();
    assert_eq!(list.matches(" user=reader ").count(), 2, "{list}");
    // The admin sees the refusals: newest first, the failed HELLO with its object as typed
    // (age-seconds and client-info follow; the connection is not used after).
    send(&mut admin, &cmd(&["ACL", "LOG", "1"]));
    expect(&mut admin, b"*1\r\n*14\r\n$5\r\ncount\r\n:1\r\n$6\r\nreason\r\n$4\r\nauth\r\n$7\r\ncontext\r\n$8\r\ntoplevel\r\n$6\r\nobject\r\n$5\r\nHELLO\r\n$8\r\nusername\r\n$6\r\nreader\r\n");
}

#[test]
fn deluser_closes_the_deleted_users_connections_after_the_reply() {
    let server = Server::start(&[]);
    let mut admin = server.connect();
    roundtrip(&mut admin, &cmd(&["ACL", "SETUSER", "victim", "on", ">pw", "~*", "+@all"]), b"+OK\r\n");
    let mut victim = server.connect();
    roundtrip(&mut victim, &cmd(&["AUTH", "victim", "pw"]), b"+OK\r\n");
    let mut bystander = server.connect();
    roundtrip(&mut bystander, &cmd(&["PING"]), b"+PONG\r\n");
    // Deleting itself: the reply is written, then the connection closes.
    let mut own = server.connect();
    roundtrip(&mut own, &cmd(&["AUTH", "victim", "pw"]), b"+OK\r\n");
    roundtrip(&mut own, &cmd(&["ACL", "DELUSER", "victim"]), b":1\r\n");
    expect_closed(&mut own);
    expect_closed(&mut victim);
    roundtrip(&mut bystander, &cmd(&["PING"]), b"+PONG\r\n");
    roundtrip(&mut admin, &cmd(&["CLIENT", "KILL", "USER", "victim"]), b"-ERR No such user 'victim'\r\n");
}
