//! Keyspace notifications: the main random test's command streams (every family's
//! operations, `Gen::op`) run on both servers with `notify-keyspace-events` set, while a
//! third connection on each has `PSUBSCRIBE __key*__:*`; after every operation, what the two
//! subscribers received must be the same bytes (channel and message, in the same order).
//!
//! Run with several flag sets: `KEA` (every class on both channel kinds), a narrow one
//! (`Elg`: list and generic events, keyevent channels only) and `KEAnm` where noted below.
//!
//! Limits, as Redis 7.0 is the reference: hash-field expiry (HEXPIRE, `hexpire`,
//! `hpersist`, `hexpired`, Redis 7.4) is not sent (7.0 has no such commands; the engine's
//! tests cover those events); streams are not generated (their events come with the stream
//! type). An expiry the active cycle may reach first is still published before the command
//! that would have found it, so the order is the same whichever server expires it first.

use std::net::TcpStream;

use crate::harness::*;
use crate::pubsub::{drain, send};

/// Runs every seed's random stream with `flags`, comparing the subscribers after each
/// operation.
fn same_events(test: &str, flags: &str) {
    let Some(servers) = Servers::start_or_skip(test) else {
        return;
    };
    let mut peers = servers.peers();
    let (mut v_sub, mut r_sub): (TcpStream, TcpStream) = servers.raw_pair();
    for s in [&mut v_sub, &mut r_sub] {
        send(s, &["PSUBSCRIBE", "__key*__:*"]);
        drain(s, false);
    }
    peers.run(Step::Call(args!["CONFIG", "SET", "notify-keyspace-events", flags], Check::Exact));
    peers.run(Step::Call(args!["CONFIG", "GET", "notify-keyspace-events"], Check::Exact));
    for seed in seeds() {
        peers.begin(&format!("notifications {flags}, seed {seed}"));
        peers.run(Step::Call(args!["FLUSHALL"], Check::Exact));
        let mut gen = Gen::new(seed);
        for op in 0..OPS_PER_SEED {
            peers.op = op;
            let steps = gen.op();
            let shown: Vec<String> = steps
                .iter()
                .map(|s| match s {
                    Step::Call(argv, _) => show_argv(argv),
                    Step::Scan(_) => "SCAN ...".into(),
                    Step::Sleep(d) => format!("sleep {d:?}"),
                })
                .collect();
            for step in steps {
                peers.run(step);
            }
            let (v, r) = (drain(&mut v_sub, false), drain(&mut r_sub, false));
            assert_eq!(
                v.escape_ascii().to_string(),
                r.escape_ascii().to_string(),
                "flags {flags}, seed {seed}, op {op}: {shown:?}\n(left: vitrine, right: redis)"
            );
        }
    }
}

#[test]
fn keyspace_events_match_redis_kea() {
    same_events("keyspace_events_match_redis_kea", "KEA");
}

#[test]
fn keyspace_events_match_redis_narrow() {
    same_events("keyspace_events_match_redis_narrow", "Elg");
}

#[test]
fn keyspace_events_match_redis_new_and_miss() {
    same_events("keyspace_events_match_redis_new_and_miss", "KEAnm");
}
