//! Socket-level tests against the real `vitrine` binary on a free port: exact bytes in and
//! out, framing split anywhere, protocol errors, connection limits, and a real client library.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use common::{cmd, expect, expect_closed, expect_silence, half_close, read_line, roundtrip, send, show, Server};
use rand::{Rng, SeedableRng};

#[test]
fn ping_pong() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    roundtrip(&mut s, b"*1\r\n$4\r\nPING\r\n", b"+PONG\r\n");
    roundtrip(&mut s, &cmd(&["PING", "hello"]), b"$5\r\nhello\r\n");
}

#[test]
fn pipelined_commands_get_replies_in_order() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    roundtrip(&mut s, &b"*1\r\n$4\r\nPING\r\n".repeat(3), &b"+PONG\r\n".repeat(3));
}

#[test]
fn a_command_split_at_every_byte_is_answered_once_complete() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    let request = cmd(&["PING", "hello"]);
    for (i, byte) in request.iter().enumerate() {
        send(&mut s, &[*byte]);
        if i + 1 < request.len() {
            expect_silence(&mut s, Duration::from_millis(15));
        }
    }
    expect(&mut s, b"$5\r\nhello\r\n");
}

#[test]
fn a_pipeline_split_at_any_point_gives_the_same_replies() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    let mut request = cmd(&["PING", "first"]);
    request.extend(b"PING\r\n");
    request.extend(cmd(&["PING", "third"]));
    let reply = b"$5\r\nfirst\r\n+PONG\r\n$5\r\nthird\r\n";
    for split in 1..request.len() {
        send(&mut s, &request[..split]);
        std::thread::sleep(Duration::from_millis(2));
        send(&mut s, &request[split..]);
        expect(&mut s, reply);
    }
}

#[test]
fn a_long_pipeline_in_random_chunks() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    let mut request = Vec::new();
    let mut reply = Vec::new();
    for i in 0..2000 {
        let msg = format!("message-{i}-{}", "x".repeat(i % 50));
        request.extend(cmd(&["PING", &msg]));
        reply.extend(format!("${}\r\n{msg}\r\n", msg.len()).into_bytes());
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut reader = s.try_clone().unwrap();
    let expected = reply.clone();
    let check = std::thread::spawn(move || expect(&mut reader, &expected));
    let mut pos = 0;
    while pos < request.len() {
        let end = (pos + rng.gen_range(1..3000)).min(request.len());
        send(&mut s, &request[pos..end]);
        pos = end;
    }
    check.join().unwrap();
}

#[test]
fn inline_commands() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n");
    roundtrip(&mut s, b"PING \"two words\"\n", b"$9\r\ntwo words\r\n");
}

#[test]
fn a_client_that_half_closes_still_gets_its_replies() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    send(&mut s, b"PING\r\nPING hi\r\n");
    half_close(&s);
    expect(&mut s, b"+PONG\r\n$2\r\nhi\r\n");
    expect_closed(&mut s);
}

#[test]
fn broken_framing_gets_the_error_then_the_connection_closes() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    send(&mut s, b"*1\r\n+foo\r\n");
    expect(&mut s, b"-ERR Protocol error: expected '$', got '+'\r\n");
    expect_closed(&mut s);

    let mut s = server.connect();
    send(&mut s, b"*abc\r\n");
    expect(&mut s, b"-ERR Protocol error: invalid multibulk length\r\n");
    expect_closed(&mut s);
}

#[test]
fn replies_before_a_protocol_error_are_sent() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    send(&mut s, b"*1\r\n$4\r\nPING\r\n*1\r\n+foo\r\n");
    expect(&mut s, b"+PONG\r\n-ERR Protocol error: expected '$', got '+'\r\n");
    expect_closed(&mut s);
}

#[test]
fn http_requests_are_refused_silently() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    send(&mut s, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    expect_closed(&mut s);

    let mut s = server.connect();
    send(&mut s, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    expect_closed(&mut s);

    // The server is fine afterwards.
    let mut s = server.connect();
    send(&mut s, &cmd(&["NOPE"]));
    expect(&mut s, b"-ERR unknown command 'NOPE', with args beginning with: \r\n");
}

#[test]
fn unknown_commands_get_redis_error_text_and_the_connection_stays_open() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    roundtrip(
        &mut s,
        &cmd(&["FOO", "bar", "baz"]),
        b"-ERR unknown command 'FOO', with args beginning with: 'bar' 'baz' \r\n",
    );
    roundtrip(&mut s, &cmd(&["nope"]), b"-ERR unknown command 'nope', with args beginning with: \r\n");
}

#[test]
fn quit_replies_ok_then_closes() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    // Commands after QUIT in the same packet are not run.
    send(&mut s, b"*1\r\n$4\r\nQUIT\r\n*1\r\n$4\r\nPING\r\n");
    expect(&mut s, b"+OK\r\n");
    expect_closed(&mut s);
}

#[test]
fn maxclients_refuses_the_connection_over_the_limit() {
    let server = Server::start(&["--maxclients", "2"]);
    let mut a = server.connect();
    let mut b = server.connect();
    // A reply on each proves the server has accepted (and counted) both.
    for s in [&mut a, &mut b] {
        roundtrip(s, &cmd(&["NOPE"]), b"-ERR unknown command 'NOPE', with args beginning with: \r\n");
    }
    let mut c = server.connect();
    expect(&mut c, b"-ERR max number of clients reached\r\n");
    expect_closed(&mut c);

    // Once one leaves, a new client gets in.
    drop(a);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut d = server.connect();
        send(&mut d, &cmd(&["NOPE"]));
        let line = read_line(&mut d);
        if line.starts_with(b"-ERR unknown command") {
            break;
        }
        assert_eq!(show(&line), show(b"-ERR max number of clients reached\r\n"));
        assert!(Instant::now() < deadline, "the freed slot was never reused");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn concurrent_increments_are_all_counted() {
    const CLIENTS: usize = 100;
    const PER_CLIENT: usize = 1000;
    const BATCH: usize = 100;
    let server = Server::start(&["--threads", "4"]);
    let incr = cmd(&["INCR", "counter"]).repeat(BATCH);
    let workers: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let mut s = server.connect();
            let incr = incr.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(s.try_clone().unwrap());
                let mut line = String::new();
                for _ in 0..PER_CLIENT / BATCH {
                    s.write_all(&incr).unwrap();
                    for _ in 0..BATCH {
                        line.clear();
                        reader.read_line(&mut line).unwrap();
                        assert!(line.starts_with(':') && line.ends_with("\r\n"), "INCR replied {line:?}");
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["GET", "counter"]), b"$6\r\n100000\r\n");
}

#[test]
fn requirepass_demands_auth() {
    let server = Server::start(&["--requirepass", "secret"]);
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["GET", "x"]), b"-NOAUTH Authentication required.\r\n");
    roundtrip(&mut s, &cmd(&["AUTH", "wrong"]), b"-WRONGPASS invalid username-password pair or user is disabled.\r\n");
    roundtrip(&mut s, &cmd(&["AUTH", "secret"]), b"+OK\r\n");
    roundtrip(&mut s, &cmd(&["GET", "x"]), b"$-1\r\n");
}

#[test]
fn redis_crate_set_get_round_trip() {
    let server = Server::start(&[]);
    let client = redis::Client::open(server.url()).unwrap();
    let mut con = client.get_connection_with_timeout(common::IO_TIMEOUT).unwrap();
    con.set_read_timeout(Some(common::IO_TIMEOUT)).unwrap();
    con.set_write_timeout(Some(common::IO_TIMEOUT)).unwrap();
    let () = redis::cmd("SET").arg("greeting").arg("hello, vitrine").query(&mut con).unwrap();
    let got: String = redis::cmd("GET").arg("greeting").query(&mut con).unwrap();
    assert_eq!(got, "hello, vitrine");
    let missing: Option<String> = redis::cmd("GET").arg("missing").query(&mut con).unwrap();
    assert_eq!(missing, None);
    let binary: Vec<u8> = (0..=255).collect();
    let () = redis::cmd("SET").arg("bytes").arg(&binary).query(&mut con).unwrap();
    let got: Vec<u8> = redis::cmd("GET").arg("bytes").query(&mut con).unwrap();
    assert_eq!(got, binary);
}

#[test]
fn large_values_cross_many_reads() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    let value = "v".repeat(3 * 1024 * 1024 + 7);
    roundtrip(&mut s, &cmd(&["SET", "big", &value]), b"+OK\r\n");
    let mut reply = format!("${}\r\n", value.len()).into_bytes();
    reply.extend(value.as_bytes());
    reply.extend(b"\r\n");
    roundtrip(&mut s, &cmd(&["GET", "big"]), &reply);
    // Small commands still work after the buffers shrink back.
    roundtrip(&mut s, &cmd(&["GET", "nothing"]), b"$-1\r\n");
}

#[test]
fn a_query_buffer_over_the_limit_closes_the_connection() {
    let server = Server::start(&["--client-query-buffer-limit", "1mb"]);
    let mut s = server.connect();
    // One argument announced at 4 MB, never completed: the unprocessed input grows past 1 MiB.
    send(&mut s, b"*2\r\n$3\r\nSET\r\n$4000000\r\n");
    let chunk = vec![b'x'; 64 * 1024];
    for _ in 0..40 {
        if s.write_all(&chunk).is_err() {
            break; // the server already closed
        }
    }
    expect_closed(&mut s);
    assert!(server.log().contains("max query buffer length"), "log:\n{}", server.log());
    // Others are unaffected.
    let mut t = server.connect();
    roundtrip(&mut t, &cmd(&["NOPE"]), b"-ERR unknown command 'NOPE', with args beginning with: \r\n");
}

#[test]
fn idle_clients_are_closed_after_timeout() {
    let server = Server::start(&["--timeout", "1"]);
    let mut s = server.connect();
    let start = Instant::now();
    expect_closed(&mut s);
    let waited = start.elapsed();
    assert!(waited >= Duration::from_millis(900) && waited < Duration::from_secs(5), "closed after {waited:?}");
}

#[test]
fn client_kill_closes_the_other_connection() {
    let server = Server::start(&[]);
    let mut victim = server.connect();
    send(&mut victim, &cmd(&["CLIENT", "ID"]));
    let line = read_line(&mut victim);
    let id = std::str::from_utf8(&line[1..line.len() - 2]).unwrap().to_string();
    assert!(line[0] == b':', "CLIENT ID replied {:?}", show(&line));
    let mut killer = server.connect();
    roundtrip(&mut killer, &cmd(&["CLIENT", "KILL", "ID", &id]), b":1\r\n");
    // The victim is closed while idle, without sending anything.
    expect_closed(&mut victim);
}

#[cfg(unix)]
#[test]
fn sigterm_shuts_down_cleanly() {
    let mut server = Server::start(&[]);
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["NOPE"]), b"-ERR unknown command 'NOPE', with args beginning with: \r\n");
    let status = std::process::Command::new("kill").args(["-TERM", &server.pid().to_string()]).status().unwrap();
    assert!(status.success());
    expect_closed(&mut s);
    let exit = server.wait_exit(Duration::from_secs(10)).expect("vitrine did not exit after SIGTERM");
    assert!(exit.success(), "exit status {exit}; log:\n{}", server.log());
    assert!(server.log().contains("received SIGTERM"), "log:\n{}", server.log());
    // Idle connections are woken to close, not left for the drain timeout to cut.
    assert!(!server.log().contains("still open"), "log:\n{}", server.log());
}

#[test]
fn startup_log_names_the_bound_address() {
    let server = Server::start(&[]);
    let log = server.log();
    assert!(log.contains(&format!("\n  RESP        127.0.0.1:{}\n", server.port)), "log:\n{log}");
    assert!(log.contains(&format!("\n              redis-cli -p {}\n", server.port)), "log:\n{log}");
    assert!(!log.contains("protected mode is on"), "no warning on loopback:\n{log}");
}
