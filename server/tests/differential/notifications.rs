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
//! tests cover those events). Streams run their own family's random commands (`xadd`,
//! `xtrim`, `xdel`, `xsetid`, `new`, `del`), then a fixed sequence of group commands for the
//! `xgroup-*` events, kept to cases where 7.0 and 7.2 agree (a consumer is created by a
//! read that delivers, or by a claim). An expiry the active cycle may reach first is still published before the command
//! that would have found it, so the order is the same whichever server expires it first.

use std::net::TcpStream;

use crate::harness::*;
use crate::pubsub::{drain, send};

/// Runs every seed's random stream with `flags`, comparing the subscribers after each
/// operation.
fn same_events(test: &str, flags: &str) {
    same_events_of(test, flags, |_| Vec::new(), Gen::op, &[]);
}

/// `same_events` for any generator: `fixtures` starts each seed, `next` gives each
/// operation's steps, and `after` runs once at the end (fixed commands, compared likewise).
fn same_events_of(test: &str, flags: &str, fixtures: FamilyOp, next: FamilyOp, after: &[Vec<Vec<u8>>]) {
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
        for step in fixtures(&mut gen) {
            peers.run(step);
        }
        for op in 0..OPS_PER_SEED {
            peers.op = op;
            let steps = next(&mut gen);
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
    peers.begin(&format!("notifications {flags}, fixed commands"));
    for argv in after {
        peers.run(Step::Call(argv.clone(), Check::Exact));
        let (v, r) = (drain(&mut v_sub, false), drain(&mut r_sub, false));
        assert_eq!(
            v.escape_ascii().to_string(),
            r.escape_ascii().to_string(),
            "flags {flags}: {}\n(left: vitrine, right: redis)",
            show_argv(argv)
        );
    }
}

/// Group commands, each with an event or deliberately none (a consumer that exists, a group
/// that does not).
fn group_commands() -> Vec<Vec<Vec<u8>>> {
    vec![
        args!["FLUSHALL"],
        args!["XADD", "gs", "1-1", "f", "v"],
        args!["XADD", "gs", "2-1", "f", "v"],
        args!["XGROUP", "CREATE", "gs", "g", "0"],
        args!["XGROUP", "CREATE", "new", "g", "$", "MKSTREAM"],
        args!["XGROUP", "CREATECONSUMER", "gs", "g", "alice"],
        args!["XGROUP", "CREATECONSUMER", "gs", "g", "alice"],
        args!["XREADGROUP", "GROUP", "g", "bob", "COUNT", "1", "STREAMS", "gs", ">"],
        args!["XREADGROUP", "GROUP", "g", "bob", "STREAMS", "gs", ">"],
        args!["XCLAIM", "gs", "g", "carol", "0", "1-1", "JUSTID"],
        args!["XAUTOCLAIM", "gs", "g", "dave", "0", "0", "JUSTID"],
        args!["XGROUP", "SETID", "gs", "g", "$"],
        args!["XGROUP", "DELCONSUMER", "gs", "g", "alice"],
        args!["XGROUP", "DELCONSUMER", "gs", "g", "nobody"],
        args!["XACK", "gs", "g", "1-1", "2-1"],
        args!["XGROUP", "DESTROY", "gs", "g"],
        args!["XGROUP", "DESTROY", "gs", "g"],
        args!["XDEL", "gs", "9-9"],
        args!["XTRIM", "gs", "MAXLEN", "0"],
        args!["XSETID", "gs", "5-5"],
        args!["DEL", "gs", "new"],
    ]
}

#[test]
fn stream_events_match_redis() {
    use crate::streams::{stream_fixtures, STREAM_OPS};
    same_events_of(
        "stream_events_match_redis",
        "KEA",
        stream_fixtures,
        |g| g.weighted(STREAM_OPS)(g),
        &group_commands(),
    );
}

#[test]
fn hyperloglog_events_match_redis() {
    use crate::hyperloglog::{hll_fixtures, HLL_OPS};
    same_events_of("hyperloglog_events_match_redis", "KEAn", hll_fixtures, |g| g.weighted(HLL_OPS)(g), &[]);
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

/// Bitmap commands (and strings written over them) with every class on, `new` and `keymiss`
/// too: `setbit` only when a bit or the length changed, BITOP's `set` or `del`.
#[test]
fn bitmap_events_match_redis() {
    use crate::bitmaps::{bitmap_fixtures, BITMAP_OPS};
    same_events_of("bitmap_events_match_redis", "KEAnm", bitmap_fixtures, |g| g.weighted(BITMAP_OPS)(g), &[]);
}
