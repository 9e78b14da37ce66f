//! Socket-level tests of transactions (MULTI/EXEC/WATCH) and pub/sub against the real
//! `vitrine` binary: exact bytes over raw RESP2 and RESP3, across connections, the slow
//! subscriber's disconnection at the output buffer limit, and the `redis` crate's pipelines
//! and pub/sub.

mod common;

use std::io::Read;
use std::time::{Duration, Instant};

use common::{cmd, expect, expect_closed, expect_silence, read_line, roundtrip, send, Server};

/// RESP2 reply bytes for a bulk string.
fn bulk(s: &str) -> String {
    format!("${}\r\n{s}\r\n", s.len())
}

#[test]
fn multi_exec_queues_then_runs_everything_at_once() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["MULTI"]), b"+OK\r\n");
    // Keys spread over many shards.
    let mut request = Vec::new();
    for i in 0..20 {
        request.extend(cmd(&["SET", &format!("key:{i}"), &i.to_string()]));
    }
    request.extend(cmd(&["MGET", "key:0", "key:19"]));
    send(&mut s, &request);
    expect(&mut s, &b"+QUEUED\r\n".repeat(21));
    // Not visible to anyone before EXEC.
    let mut other = server.connect();
    roundtrip(&mut other, &cmd(&["EXISTS", "key:0"]), b":0\r\n");
    let mut reply = "*21\r\n".to_string() + &"+OK\r\n".repeat(20);
    reply += &format!("*2\r\n{}{}", bulk("0"), bulk("19"));
    roundtrip(&mut s, &cmd(&["EXEC"]), reply.as_bytes());
    roundtrip(&mut other, &cmd(&["GET", "key:7"]), bulk("7").as_bytes());
}

#[test]
fn exec_is_atomic_for_readers_on_other_connections() {
    let server = Server::start(&[]);
    let mut setup = server.connect();
    let keys: Vec<String> = (0..8).map(|i| format!("acct:{i}")).collect();
    for k in &keys {
        roundtrip(&mut setup, &cmd(&["SET", k, "100"]), b"+OK\r\n");
    }
    let addr = server.addr();
    let writer_keys = keys.clone();
    let writer = std::thread::spawn(move || {
        let mut w = common::connect_to(addr);
        for i in 0..300 {
            let (from, to) = (&writer_keys[i % 8], &writer_keys[(i * 3 + 1) % 8]);
            let mut batch = cmd(&["MULTI"]);
            batch.extend(cmd(&["DECRBY", from, "5"]));
            batch.extend(cmd(&["INCRBY", to, "5"]));
            batch.extend(cmd(&["EXEC"]));
            send(&mut w, &batch);
            for _ in 0..3 {
                read_line(&mut w);
            }
            assert_eq!(read_line(&mut w), b"*2\r\n");
            read_line(&mut w);
            read_line(&mut w);
        }
    });
    let mut r = server.connect();
    for _ in 0..300 {
        let mut batch = cmd(&["MULTI"]);
        for k in &keys {
            batch.extend(cmd(&["GET", k]));
        }
        batch.extend(cmd(&["EXEC"]));
        send(&mut r, &batch);
        assert_eq!(read_line(&mut r), b"+OK\r\n");
        for _ in 0..8 {
            assert_eq!(read_line(&mut r), b"+QUEUED\r\n");
        }
        assert_eq!(read_line(&mut r), b"*8\r\n");
        let mut sum = 0i64;
        for _ in 0..8 {
            read_line(&mut r); // $len
            let value = read_line(&mut r);
            sum += std::str::from_utf8(&value).unwrap().trim().parse::<i64>().unwrap();
        }
        assert_eq!(sum, 800, "a reader saw half a transfer");
    }
    writer.join().unwrap();
}

#[test]
fn a_refused_command_aborts_exec_and_runtime_errors_do_not() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["MULTI"]), b"+OK\r\n");
    roundtrip(&mut s, &cmd(&["SET", "a", "1"]), b"+QUEUED\r\n");
    roundtrip(&mut s, &cmd(&["NOSUCH"]), b"-ERR unknown command 'NOSUCH', with args beginning with: \r\n");
    roundtrip(&mut s, &cmd(&["SET", "a"]), b"-ERR wrong number of arguments for 'set' command\r\n");
    roundtrip(&mut s, &cmd(&["EXEC"]), b"-EXECABORT Transaction discarded because of previous errors.\r\n");
    roundtrip(&mut s, &cmd(&["GET", "a"]), b"$-1\r\n");

    let mut batch = cmd(&["MULTI"]);
    batch.extend(cmd(&["SET", "a", "x"]));
    batch.extend(cmd(&["INCR", "a"]));
    batch.extend(cmd(&["SADD", "a", "m"]));
    batch.extend(cmd(&["APPEND", "a", "y"]));
    batch.extend(cmd(&["EXEC"]));
    let reply = "+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*4\r\n+OK\r\n\
                 -ERR value is not an integer or out of range\r\n\
                 -WRONGTYPE Operation against a key holding the wrong kind of value\r\n:2\r\n";
    roundtrip(&mut s, &batch, reply.as_bytes());
    roundtrip(&mut s, &cmd(&["EXEC"]), b"-ERR EXEC without MULTI\r\n");
    roundtrip(&mut s, &cmd(&["DISCARD"]), b"-ERR DISCARD without MULTI\r\n");
}

#[test]
fn watch_and_a_write_from_another_connection_make_exec_nil() {
    let server = Server::start(&[]);
    let (mut a, mut b) = (server.connect(), server.connect());
    roundtrip(&mut a, &cmd(&["SET", "balance", "10"]), b"+OK\r\n");
    roundtrip(&mut a, &cmd(&["WATCH", "balance"]), b"+OK\r\n");
    roundtrip(&mut b, &cmd(&["INCRBY", "balance", "5"]), b":15\r\n");
    roundtrip(&mut a, &cmd(&["MULTI"]), b"+OK\r\n");
    roundtrip(&mut a, &cmd(&["DECRBY", "balance", "10"]), b"+QUEUED\r\n");
    roundtrip(&mut a, &cmd(&["EXEC"]), b"*-1\r\n");
    roundtrip(&mut a, &cmd(&["GET", "balance"]), b"$2\r\n15\r\n");
    // Untouched, the same transaction runs; over RESP3 an aborted EXEC is `_`.
    roundtrip(&mut a, &cmd(&["WATCH", "balance"]), b"+OK\r\n");
    roundtrip(&mut a, &cmd(&["MULTI"]), b"+OK\r\n");
    roundtrip(&mut a, &cmd(&["DECRBY", "balance", "10"]), b"+QUEUED\r\n");
    roundtrip(&mut a, &cmd(&["EXEC"]), b"*1\r\n:5\r\n");
    send(&mut a, &cmd(&["HELLO", "3"]));
    let mut hello = vec![0u8; 256];
    let n = a.read(&mut hello).unwrap();
    assert!(hello[..n].starts_with(b"%8\r\n"), "Redis's 7 HELLO pairs and vitrine's own");
    roundtrip(&mut a, &cmd(&["WATCH", "balance"]), b"+OK\r\n");
    roundtrip(&mut b, &cmd(&["DEL", "balance"]), b":1\r\n");
    roundtrip(&mut a, &cmd(&["MULTI"]), b"+OK\r\n");
    roundtrip(&mut a, &cmd(&["EXEC"]), b"_\r\n");
}

#[test]
fn subscribe_and_publish_across_connections_in_resp2() {
    let server = Server::start(&[]);
    let (mut sub, mut publisher) = (server.connect(), server.connect());
    let confirm = |kind: &str, ch: &str, n: usize| format!("*3\r\n{}{}:{n}\r\n", bulk(kind), bulk(ch));
    roundtrip(
        &mut sub,
        &cmd(&["SUBSCRIBE", "news", "sport"]),
        (confirm("subscribe", "news", 1) + &confirm("subscribe", "sport", 2)).as_bytes(),
    );
    roundtrip(&mut publisher, &cmd(&["PUBLISH", "news", "hello world"]), b":1\r\n");
    expect(&mut sub, format!("*3\r\n{}{}{}", bulk("message"), bulk("news"), bulk("hello world")).as_bytes());
    roundtrip(&mut publisher, &cmd(&["PUBLISH", "weather", "rain"]), b":0\r\n");
    expect_silence(&mut sub, Duration::from_millis(50));
    // The subscribed context: PING answers as a message, other commands are refused.
    roundtrip(&mut sub, &cmd(&["PING"]), format!("*2\r\n{}{}", bulk("pong"), bulk("")).as_bytes());
    roundtrip(
        &mut sub,
        &cmd(&["GET", "k"]),
        b"-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n",
    );
    roundtrip(
        &mut publisher,
        &cmd(&["PUBSUB", "NUMSUB", "news", "sport"]),
        b"*4\r\n$4\r\nnews\r\n:1\r\n$5\r\nsport\r\n:1\r\n",
    );
    roundtrip(&mut sub, &cmd(&["UNSUBSCRIBE", "news"]), confirm("unsubscribe", "news", 1).as_bytes());
    roundtrip(&mut sub, &cmd(&["UNSUBSCRIBE"]), confirm("unsubscribe", "sport", 0).as_bytes());
    roundtrip(&mut sub, &cmd(&["GET", "k"]), b"$-1\r\n");
    roundtrip(&mut publisher, &cmd(&["PUBLISH", "news", "x"]), b":0\r\n");
}

#[test]
fn resp3_subscribers_get_push_messages_between_replies() {
    let server = Server::start(&[]);
    let (mut sub, mut publisher) = (server.connect(), server.connect());
    send(&mut sub, &cmd(&["HELLO", "3"]));
    let mut hello = vec![0u8; 256];
    let n = sub.read(&mut hello).unwrap();
    assert!(hello[..n].starts_with(b"%8\r\n"), "Redis's 7 HELLO pairs and vitrine's own");
    roundtrip(
        &mut sub,
        &cmd(&["SUBSCRIBE", "c"]),
        format!(">3\r\n{}{}:1\r\n", bulk("subscribe"), bulk("c")).as_bytes(),
    );
    roundtrip(&mut publisher, &cmd(&["PUBLISH", "c", "m1"]), b":1\r\n");
    expect(&mut sub, format!(">3\r\n{}{}{}", bulk("message"), bulk("c"), bulk("m1")).as_bytes());
    // Any command runs; a message to itself arrives before PUBLISH's own reply.
    roundtrip(&mut sub, &cmd(&["SET", "k", "v"]), b"+OK\r\n");
    roundtrip(
        &mut sub,
        &cmd(&["PUBLISH", "c", "self"]),
        format!(">3\r\n{}{}{}:1\r\n", bulk("message"), bulk("c"), bulk("self")).as_bytes(),
    );
}

#[test]
fn psubscribe_delivers_pmessages() {
    let server = Server::start(&[]);
    let (mut sub, mut publisher) = (server.connect(), server.connect());
    roundtrip(
        &mut sub,
        &cmd(&["PSUBSCRIBE", "user:*"]),
        format!("*3\r\n{}{}:1\r\n", bulk("psubscribe"), bulk("user:*")).as_bytes(),
    );
    roundtrip(&mut publisher, &cmd(&["PUBSUB", "NUMPAT"]), b":1\r\n");
    roundtrip(&mut publisher, &cmd(&["PUBLISH", "user:42", "login"]), b":1\r\n");
    roundtrip(&mut publisher, &cmd(&["PUBLISH", "order:1", "x"]), b":0\r\n");
    expect(
        &mut sub,
        format!("*4\r\n{}{}{}{}", bulk("pmessage"), bulk("user:*"), bulk("user:42"), bulk("login")).as_bytes(),
    );
    expect_silence(&mut sub, Duration::from_millis(50));
    // Closing the connection unsubscribes it.
    drop(sub);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        send(&mut publisher, &cmd(&["PUBSUB", "NUMPAT"]));
        if read_line(&mut publisher) == b":0\r\n" {
            break;
        }
        assert!(Instant::now() < deadline, "the closed subscriber's pattern stayed registered");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_subscriber_that_does_not_read_is_disconnected_at_the_output_limit() {
    let server = Server::start(&[]);
    let mut publisher = server.connect();
    roundtrip(&mut publisher, &cmd(&["CONFIG", "SET", "client-output-buffer-limit", "pubsub 256kb 0 0"]), b"+OK\r\n");
    let mut sub = server.connect();
    roundtrip(
        &mut sub,
        &cmd(&["SUBSCRIBE", "firehose"]),
        format!("*3\r\n{}{}:1\r\n", bulk("subscribe"), bulk("firehose")).as_bytes(),
    );
    // The subscriber reads nothing from now on. Socket buffers absorb some megabytes; then
    // the server's queue for it fills up to the limit and it is dropped.
    let payload = "p".repeat(64 * 1024);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut published = 0;
    loop {
        send(&mut publisher, &cmd(&["PUBLISH", "firehose", &payload]));
        let reply = read_line(&mut publisher);
        if reply == b":0\r\n" {
            break;
        }
        assert_eq!(reply, b":1\r\n");
        published += 1;
        assert!(published < 5_000 && Instant::now() < deadline, "the subscriber was never disconnected");
    }
    // Its connection ends: whatever the socket buffers held, then EOF.
    let mut buf = vec![0u8; 1 << 20];
    let mut received = 0usize;
    loop {
        match sub.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => received += n,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("reading the dropped subscriber: {e} after {received} bytes"),
        }
    }
    assert!(received < published * (payload.len() + 64), "more arrived than was published");
    roundtrip(&mut publisher, &cmd(&["PUBSUB", "NUMSUB", "firehose"]), b"*2\r\n$8\r\nfirehose\r\n:0\r\n");
    expect_closed(&mut sub);
}

#[test]
fn redis_crate_atomic_pipeline() {
    let server = Server::start(&[]);
    let client = redis::Client::open(server.url()).unwrap();
    let mut con = client.get_connection_with_timeout(common::IO_TIMEOUT).unwrap();
    con.set_read_timeout(Some(common::IO_TIMEOUT)).unwrap();
    let (set, incr, got): (String, i64, String) = redis::pipe()
        .atomic()
        .cmd("SET")
        .arg("counter")
        .arg(41)
        .cmd("INCR")
        .arg("counter")
        .cmd("GET")
        .arg("counter")
        .query(&mut con)
        .unwrap();
    assert_eq!((set.as_str(), incr, got.as_str()), ("OK", 42, "42"));
    // A runtime error inside the transaction comes back as that command's error.
    let result: redis::RedisResult<(i64,)> = redis::pipe().atomic().cmd("INCR").arg("counter").query(&mut con);
    assert_eq!(result.unwrap(), (43,));
    let bad: redis::RedisResult<(i64, i64)> = redis::pipe()
        .atomic()
        .cmd("SET")
        .arg("s")
        .arg("x")
        .ignore()
        .cmd("INCR")
        .arg("s")
        .cmd("INCR")
        .arg("counter")
        .query(&mut con);
    assert!(bad.is_err(), "{bad:?}");
    // The connection is still usable and the last INCR ran.
    let now: i64 = redis::cmd("GET").arg("counter").query(&mut con).unwrap();
    assert_eq!(now, 44);
}

#[test]
fn redis_crate_pubsub_round_trip() {
    let server = Server::start(&[]);
    let client = redis::Client::open(server.url()).unwrap();
    let mut sub_con = client.get_connection_with_timeout(common::IO_TIMEOUT).unwrap();
    let mut pub_con = client.get_connection_with_timeout(common::IO_TIMEOUT).unwrap();
    pub_con.set_read_timeout(Some(common::IO_TIMEOUT)).unwrap();
    let mut pubsub = sub_con.as_pubsub();
    pubsub.set_read_timeout(Some(common::IO_TIMEOUT)).unwrap();
    pubsub.subscribe("greetings").unwrap();
    pubsub.psubscribe("events.*").unwrap();
    let receivers: i64 = redis::cmd("PUBLISH").arg("greetings").arg("hello").query(&mut pub_con).unwrap();
    assert_eq!(receivers, 1);
    let msg = pubsub.get_message().unwrap();
    assert_eq!(msg.get_channel_name(), "greetings");
    assert_eq!(msg.get_payload::<String>().unwrap(), "hello");
    let receivers: i64 = redis::cmd("PUBLISH").arg("events.login").arg("ann").query(&mut pub_con).unwrap();
    assert_eq!(receivers, 1);
    let msg = pubsub.get_message().unwrap();
    assert_eq!(msg.get_channel_name(), "events.login");
    assert_eq!(msg.get_pattern::<String>().unwrap(), "events.*");
    assert_eq!(msg.get_payload::<String>().unwrap(), "ann");
    pubsub.unsubscribe("greetings").unwrap();
    pubsub.punsubscribe("events.*").unwrap();
    drop(pubsub);
    // Back to a normal connection.
    let pong: String = redis::cmd("PING").query(&mut sub_con).unwrap();
    assert_eq!(pong, "PONG");
}
