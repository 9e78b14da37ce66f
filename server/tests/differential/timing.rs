//! SLOWLOG and LATENCY: reply shapes and errors against Redis. Durations, ids, times and
//! client addresses differ by nature, so timed replies are compared by `Check::Shape`; the
//! rest (errors, counts, empty logs, HISTORY of a missing event, RESET counts) exactly.
//!
//! Deliberate differences, avoided here:
//! - LATENCY DOCTOR and GRAPH are verbatim text with measured numbers: only GRAPH's error.
//! - Whether a command crosses a latency threshold depends on the machine: the latency
//!   monitor is only asked about while it is off, or for events that cannot have happened.

use crate::harness::*;

#[test]
fn slowlog_and_latency_replies_match_redis() {
    let Some(servers) = Servers::start_or_skip("slowlog_and_latency_replies_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("slowlog and latency");
    let exact: Vec<Vec<Vec<u8>>> = vec![
        args!["CONFIG", "SET", "slowlog-log-slower-than", "-1"],
        args!["SLOWLOG", "RESET"],
        args!["SLOWLOG", "LEN"],
        args!["SLOWLOG", "GET"],
        args!["SLOWLOG"],
        args!["SLOWLOG", "FOO"],
        args!["SLOWLOG", "LEN", "x"],
        args!["SLOWLOG", "RESET", "x"],
        args!["SLOWLOG", "HELP", "x"],
        args!["SLOWLOG", "GET", "-2"],
        args!["SLOWLOG", "GET", "x"],
        args!["SLOWLOG", "GET", "1", "2"],
        args!["slowlog", "get", "-1"],
        args!["CONFIG", "SET", "slowlog-log-slower-than", "abc"],
        args!["CONFIG", "SET", "slowlog-log-slower-than", "-2"],
        args!["CONFIG", "SET", "slowlog-max-len", "-1"],
        args!["LATENCY"],
        args!["LATENCY", "FOO"],
        args!["LATENCY", "LATEST", "x"],
        args!["LATENCY", "HISTORY"],
        args!["LATENCY", "HISTORY", "a", "b"],
        args!["LATENCY", "GRAPH"],
        args!["LATENCY", "DOCTOR", "x"],
        args!["LATENCY", "HELP", "x"],
        args!["LATENCY", "LATEST"],
        args!["LATENCY", "HISTORY", "command"],
        args!["LATENCY", "GRAPH", "command"],
        args!["LATENCY", "GRAPH", "nosuch"],
        args!["LATENCY", "RESET"],
        args!["LATENCY", "RESET", "command", "nosuch"],
        args!["LATENCY", "HISTOGRAM", "nosuch"],
        args!["SLOWLOG", "HELP"],
        args!["LATENCY", "HELP"],
        args!["CONFIG", "SET", "latency-monitor-threshold", "-1"],
        // Every command slow: each logged with its arguments (cut as Redis cuts them).
        args!["CONFIG", "SET", "slowlog-log-slower-than", "0"],
        args!["SLOWLOG", "RESET"],
    ];
    for argv in &exact {
        peers.call(argv, Check::Exact);
    }
    // Redis lists a pattern's parameters in its dictionary's order.
    send(&mut peers, args!["CONFIG", "GET", "slowlog-*"], Check::UnorderedPairs);
    send(&mut peers, args!["CONFIG", "GET", "latency-*"], Check::UnorderedPairs);
    let long = "x".repeat(200);
    let mut many = args!["RPUSH", "list"];
    many.extend((0..40).map(|i| format!("v{i}").into_bytes()));
    let timed: Vec<Vec<Vec<u8>>> = vec![
        args!["SET", "k", long.as_str()],
        many,
        args!["CLIENT", "SETNAME", "differential"],
        args!["GET", "k"],
        args!["SLOWLOG", "LEN"],
        args!["SLOWLOG", "GET"],
        args!["SLOWLOG", "GET", "2"],
        args!["SLOWLOG", "GET", "0"],
        args!["MULTI"],
        args!["INCR", "n"],
        args!["EXEC"],
        args!["SLOWLOG", "GET", "3"],
        args!["CONFIG", "SET", "slowlog-max-len", "2"],
        args!["SLOWLOG", "LEN"],
        args!["SLOWLOG", "GET", "-1"],
        args!["LATENCY", "HISTOGRAM", "set", "nosuch", "client"],
        args!["LATENCY", "HISTOGRAM", "GET"],
        args!["CONFIG", "RESETSTAT"],
        args!["LATENCY", "HISTOGRAM"],
        args!["CONFIG", "SET", "slowlog-log-slower-than", "10000", "slowlog-max-len", "128"],
        args!["CLIENT", "SETNAME", ""],
    ];
    for argv in &timed {
        peers.call(argv, Check::Shape);
    }
    // The arguments a slow entry keeps, exactly: read them back from both.
    send(&mut peers, args!["CONFIG", "SET", "slowlog-log-slower-than", "0"], Check::Exact);
    send(&mut peers, args!["SLOWLOG", "RESET"], Check::Exact);
    let mut many = args!["RPUSH", "list2"];
    many.extend((0..40).map(|i| format!("{i}{long}").into_bytes()));
    peers.call(&many, Check::Exact);
    send(&mut peers, args!["CONFIG", "SET", "slowlog-log-slower-than", "-1"], Check::Exact);
    let get = args!["SLOWLOG", "GET", "-1"];
    let replies = [peers.vitrine.call(&get), peers.redis.call(&get)];
    let argvs: Vec<Resp> = replies
        .into_iter()
        .map(|reply| {
            let Ok(Resp::Array(entries)) = reply else { panic!("SLOWLOG GET: {reply:?}") };
            entries
                .into_iter()
                .find_map(|e| match e {
                    Resp::Array(fields) => match &fields[3] {
                        Resp::Array(a) if a.first() == Some(&Resp::Bulk(b"RPUSH".to_vec())) => Some(fields[3].clone()),
                        _ => None,
                    },
                    _ => None,
                })
                .expect("the RPUSH entry")
        })
        .collect();
    assert_eq!(argvs[0], argvs[1], "the RPUSH entry's arguments, vitrine then redis");
    send(&mut peers, args!["CONFIG", "SET", "slowlog-log-slower-than", "10000"], Check::Exact);
}

/// Sends one command to both and compares the replies.
fn send(peers: &mut Peers, argv: Vec<Vec<u8>>, check: Check) {
    peers.call(&argv, check);
}
