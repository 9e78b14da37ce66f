//! CLIENT TRACKING against Redis 7's behaviour (checked on redis-server 7.0.15): the
//! subcommands' errors and shapes, and the invalidations of every mode, as the bytes a
//! connection receives.

use crate::session::Session;
use crate::testing::*;

/// A connection of its own (RESP3 after `HELLO 3` when `resp3`).
fn conn(t: &TestEngine, resp3: bool) -> Session {
    let mut s = t.engine.new_session("127.0.0.1:9", "127.0.0.1:6379", t.now);
    if resp3 {
        send(t, &mut s, &["HELLO", "3"]);
    }
    s
}

/// Sends one command through `feed`, as a socket would, and returns everything the
/// connection then has to read: replies and pushes, in order.
fn send(t: &TestEngine, s: &mut Session, argv: &[&str]) -> String {
    let mut input = Vec::new();
    encode_command(&mut input, argv);
    let mut out = Vec::new();
    t.engine.feed(s, &input, &mut out, t.now).expect("well-formed command");
    s.client.take_pushes(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// What waits in a connection's outbox (pushes sent while it ran nothing).
fn pushes(s: &Session) -> String {
    let mut out = Vec::new();
    s.client.take_pushes(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn invalidate(keys: &[&str]) -> String {
    let mut s = format!(">2\r\n$10\r\ninvalidate\r\n*{}\r\n", keys.len());
    for k in keys {
        s.push_str(&format!("${}\r\n{k}\r\n", k.len()));
    }
    s
}

#[test]
fn default_mode_invalidates_a_read_key_once_on_anothers_write_and_own_writes_after_the_reply() {
    let mut t = TestEngine::default();
    let mut a = conn(&t, true);
    let mut b = conn(&t, false);
    assert_eq!(send(&t, &mut a, &["CLIENT", "TRACKING", "on"]), "+OK\r\n");
    assert_eq!(send(&t, &mut a, &["GET", "k"]), "_\r\n");
    // Its own write: the reply first, then the invalidation (Redis's pending keys).
    assert_eq!(send(&t, &mut a, &["SET", "k", "v"]), format!("+OK\r\n{}", invalidate(&["k"])));
    assert_eq!(send(&t, &mut a, &["GET", "k"]), "$1\r\nv\r\n");
    assert_eq!(send(&t, &mut b, &["SET", "k", "w"]), "+OK\r\n");
    assert_eq!(pushes(&a), invalidate(&["k"]));
    // Invalidated once: the key left the table until it is read again.
    send(&t, &mut b, &["SET", "k", "x"]);
    assert_eq!(pushes(&a), "");
    // A key not read is not sent; a write that changes nothing (DEL of a missing key) neither.
    send(&t, &mut a, &["GET", "gone"]);
    send(&t, &mut b, &["SET", "other", "1"]);
    send(&t, &mut b, &["DEL", "gone"]);
    assert_eq!(pushes(&a), "");
    // Reads of every kind remember their keys; a write inside MULTI and a script's write
    // invalidate like any other.
    send(&t, &mut a, &["MGET", "m1", "m2"]);
    send(&t, &mut b, &["MULTI"]);
    send(&t, &mut b, &["SET", "m1", "1"]);
    send(&t, &mut b, &["EXEC"]);
    assert_eq!(pushes(&a), invalidate(&["m1"]));
    let figures = t.engine.snapshot(t.now).tracking;
    assert_eq!((figures.clients, figures.keys, figures.items), (1, 2, 2), "gone and m2 are left");
    assert!(figures.invalidations >= 3);
    t.run(&["INFO"]);
    // Tracking off: nothing more is sent, and with no tracking client the table is empty.
    send(&t, &mut a, &["GET", "m2"]);
    send(&t, &mut a, &["CLIENT", "TRACKING", "off"]);
    send(&t, &mut b, &["SET", "m2", "1"]);
    assert_eq!(pushes(&a), "");
    assert_eq!(t.engine.snapshot(t.now).tracking.keys, 0);
}

#[test]
fn resp2_redirect_publishes_on_the_invalidate_channel_and_a_gone_target_breaks_it() {
    let t = TestEngine::default();
    let mut sub = conn(&t, false);
    let mut a = conn(&t, false);
    let mut b = conn(&t, false);
    send(&t, &mut sub, &["SUBSCRIBE", "__redis__:invalidate"]);
    let id = sub.id().to_string();
    assert_eq!(send(&t, &mut a, &["CLIENT", "TRACKING", "on", "REDIRECT", &id]), "+OK\r\n");
    assert_eq!(send(&t, &mut a, &["CLIENT", "GETREDIR"]), format!(":{id}\r\n"));
    send(&t, &mut a, &["GET", "k"]);
    send(&t, &mut b, &["SET", "k", "v"]);
    assert_eq!(pushes(&sub), "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\nk\r\n");
    // A flush is a null invalidation.
    send(&t, &mut b, &["FLUSHALL"]);
    assert_eq!(pushes(&sub), "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n$-1\r\n");
    // The target goes away: the next invalidation marks the redirect broken (flag R); a
    // RESP3 client is told with a `tracking-redir-broken` push.
    t.engine.end_session(&sub);
    send(&t, &mut a, &["HELLO", "3"]);
    send(&t, &mut a, &["GET", "k"]);
    send(&t, &mut b, &["SET", "k", "w"]);
    assert_eq!(pushes(&a), format!(">2\r\n$21\r\ntracking-redir-broken\r\n:{id}\r\n"));
    let info = send(&t, &mut a, &["CLIENT", "INFO"]);
    assert!(info.contains(" flags=tR ") && info.contains(&format!(" redir={id} ")), "{info}");
    let ti = send(&t, &mut a, &["CLIENT", "TRACKINGINFO"]);
    assert!(ti.contains("~2\r\n$2\r\non\r\n$15\r\nbroken_redirect\r\n"), "{ti}");
}

#[test]
fn bcast_sends_the_keys_under_each_prefix_and_noloop_leaves_out_ones_own() {
    let t = TestEngine::default();
    let mut a = conn(&t, true);
    let mut b = conn(&t, true);
    assert_eq!(send(&t, &mut a, &["CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "ab", "PREFIX", "c"]), "+OK\r\n");
    // Nothing need be read; one message per prefix with the keys changed under it.
    send(&t, &mut b, &["MSET", "abx", "1", "cz", "2", "d", "3"]);
    assert_eq!(pushes(&a), format!("{}{}", invalidate(&["abx"]), invalidate(&["cz"])));
    assert_eq!(t.engine.snapshot(t.now).tracking.prefixes, 2);
    // NOLOOP: a client's own changes are left out, the others' still come.
    send(&t, &mut b, &["CLIENT", "TRACKING", "on", "BCAST", "NOLOOP"]);
    send(&t, &mut b, &["SET", "abq", "1"]);
    assert_eq!(pushes(&b), "", "b's own key");
    assert_eq!(pushes(&a), invalidate(&["abq"]));
    send(&t, &mut a, &["SET", "e", "1"]);
    assert_eq!(pushes(&b), invalidate(&["e"]));
    let info = send(&t, &mut a, &["CLIENT", "TRACKINGINFO"]);
    assert_eq!(
        info,
        "%3\r\n$5\r\nflags\r\n~2\r\n$2\r\non\r\n$5\r\nbcast\r\n$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*2\r\n$2\r\nab\r\n$1\r\nc\r\n"
    );
    assert!(send(&t, &mut a, &["CLIENT", "INFO"]).contains(" flags=tB "));
}

#[test]
fn optin_tracks_after_caching_yes_and_optout_skips_after_caching_no() {
    let t = TestEngine::default();
    let mut a = conn(&t, true);
    let mut b = conn(&t, true);
    send(&t, &mut a, &["CLIENT", "TRACKING", "on", "OPTIN"]);
    send(&t, &mut a, &["GET", "k1"]);
    assert_eq!(send(&t, &mut a, &["CLIENT", "CACHING", "yes"]), "+OK\r\n");
    assert!(send(&t, &mut a, &["CLIENT", "TRACKINGINFO"]).contains("caching-yes"), "CLIENT keeps the flag");
    send(&t, &mut a, &["GET", "k2"]);
    send(&t, &mut a, &["GET", "k3"]);
    send(&t, &mut b, &["MSET", "k1", "1", "k2", "2", "k3", "3"]);
    assert_eq!(pushes(&a), invalidate(&["k2"]), "only the read right after CACHING YES");
    send(&t, &mut a, &["CLIENT", "TRACKING", "off"]);
    send(&t, &mut a, &["CLIENT", "TRACKING", "on", "OPTOUT"]);
    send(&t, &mut a, &["CLIENT", "CACHING", "no"]);
    send(&t, &mut a, &["GET", "k1"]);
    send(&t, &mut a, &["GET", "k2"]);
    send(&t, &mut b, &["MSET", "k1", "1", "k2", "2"]);
    assert_eq!(pushes(&a), invalidate(&["k2"]), "all reads but the one after CACHING NO");
}

#[test]
fn the_table_bound_invalidates_keys_until_it_holds_and_zero_means_none() {
    let mut t = TestEngine::default();
    let mut a = conn(&t, true);
    send(&t, &mut a, &["CLIENT", "TRACKING", "on"]);
    t.run(&["CONFIG", "SET", "tracking-table-max-keys", "3"]);
    let keys: Vec<String> = (0..10).map(|i| format!("k{i}")).collect();
    let mut mget = vec!["MGET"];
    mget.extend(keys.iter().map(|k| k.as_str()));
    let out = send(&t, &mut a, &mget);
    assert_eq!(t.engine.snapshot(t.now).tracking.keys, 3);
    assert_eq!(out.matches(">2\r\n$10\r\ninvalidate\r\n").count(), 7, "each evicted key is invalidated: {out}");
    t.run(&["CONFIG", "SET", "tracking-table-max-keys", "0"]);
    send(&t, &mut a, &mget);
    assert_eq!(t.engine.snapshot(t.now).tracking.keys, 10);
}

#[test]
fn expiry_eviction_and_flush_invalidate() {
    let mut t = TestEngine::default();
    let mut a = conn(&t, true);
    let mut b = conn(&t, false);
    send(&t, &mut a, &["CLIENT", "TRACKING", "on"]);
    send(&t, &mut b, &["SET", "lazy", "1", "PX", "100"]);
    send(&t, &mut b, &["SET", "active", "1", "PX", "100"]);
    send(&t, &mut a, &["MGET", "lazy", "active"]);
    t.advance(200);
    // Lazily, on another client's read.
    send(&t, &mut b, &["GET", "lazy"]);
    assert_eq!(pushes(&a), invalidate(&["lazy"]));
    // By the active cycle.
    t.engine.sweep(t.now, 100);
    assert_eq!(pushes(&a), invalidate(&["active"]));
    // By eviction.
    t.run(&["CONFIG", "SET", "maxmemory-policy", "allkeys-random"]);
    send(&t, &mut b, &["SET", "big", &"x".repeat(4000)]);
    send(&t, &mut a, &["GET", "big"]);
    t.run(&["CONFIG", "SET", "maxmemory", "1"]);
    send(&t, &mut b, &["SET", "other", "1"]);
    assert_eq!(pushes(&a), invalidate(&["big"]));
    t.run(&["CONFIG", "SET", "maxmemory", "0"]);
    // FLUSHDB by another client: a null; by the client itself, after its reply.
    send(&t, &mut b, &["FLUSHDB"]);
    assert_eq!(pushes(&a), ">2\r\n$10\r\ninvalidate\r\n_\r\n");
    assert_eq!(send(&t, &mut a, &["FLUSHALL"]), "+OK\r\n>2\r\n$10\r\ninvalidate\r\n_\r\n");
}

#[test]
fn subcommands_answer_with_redis_errors_and_shapes() {
    let t = TestEngine::default();
    let mut a = conn(&t, false);
    let e = |text: &str| format!("-{text}\r\n");
    let cases: &[(&[&str], &str)] = &[
        (&["CLIENT", "TRACKING", "maybe"], "ERR syntax error"),
        (&["CLIENT", "TRACKING", "on", "REDIRECT"], "ERR syntax error"),
        (&["CLIENT", "TRACKING", "on", "REDIRECT", "x"], NOT_INT),
        (&["CLIENT", "TRACKING", "on", "REDIRECT", "999"], "ERR The client ID you want redirect to does not exist"),
        (&["CLIENT", "TRACKING", "off", "REDIRECT", "999"], "ERR The client ID you want redirect to does not exist"),
        (&["CLIENT", "TRACKING", "on", "REDIRECT", "1", "REDIRECT", "1"], "ERR A client can only redirect to a single other client"),
        (&["CLIENT", "TRACKING", "on", "PREFIX", "a"], "ERR PREFIX option requires BCAST mode to be enabled"),
        (&["CLIENT", "TRACKING", "on", "OPTIN", "OPTOUT"], "ERR You can't specify both OPTIN mode and OPTOUT mode"),
        (&["CLIENT", "TRACKING", "on", "BCAST", "OPTIN"], "ERR OPTIN and OPTOUT are not compatible with BCAST"),
        (
            &["CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "ab", "PREFIX", "a"],
            "ERR Prefix 'ab' overlaps with another provided prefix 'a'. Prefixes for a single client must not overlap.",
        ),
        (
            &["CLIENT", "CACHING", "yes"],
            "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled",
        ),
    ];
    for (argv, text) in cases {
        assert_eq!(send(&t, &mut a, argv), e(text), "{argv:?}");
    }
    assert_eq!(
        send(&t, &mut a, &["CLIENT", "TRACKINGINFO"]),
        "*6\r\n$5\r\nflags\r\n*1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n$8\r\nprefixes\r\n*0\r\n"
    );
    assert_eq!(send(&t, &mut a, &["CLIENT", "GETREDIR"]), ":-1\r\n");
    assert!(send(&t, &mut a, &["CLIENT", "INFO"]).contains(" flags=N "));
    send(&t, &mut a, &["CLIENT", "TRACKING", "on"]);
    assert!(send(&t, &mut a, &["CLIENT", "INFO"]).contains(" flags=t "));
    assert_eq!(send(&t, &mut a, &["CLIENT", "GETREDIR"]), ":0\r\n");
    let switch = "You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.";
    assert_eq!(send(&t, &mut a, &["CLIENT", "TRACKING", "on", "BCAST"]), e(&format!("ERR {switch}")));
    assert_eq!(send(&t, &mut a, &["CLIENT", "TRACKING", "on", "OPTIN"]), "+OK\r\n");
    let optout = "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.";
    assert_eq!(send(&t, &mut a, &["CLIENT", "TRACKING", "on", "OPTOUT"]), e(optout));
    assert_eq!(
        send(&t, &mut a, &["CLIENT", "CACHING", "no"]),
        e("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
    );
    assert_eq!(send(&t, &mut a, &["CLIENT", "CACHING", "maybe"]), e("ERR syntax error"));
    send(&t, &mut a, &["CLIENT", "TRACKING", "off"]);
    send(&t, &mut a, &["CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "ab", "PREFIX", "c"]);
    assert_eq!(
        send(&t, &mut a, &["CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a"]),
        e("ERR Prefix 'a' overlaps with an existing prefix 'ab'. Prefixes for a single client must not overlap.")
    );
    // RESET turns it off.
    send(&t, &mut a, &["RESET"]);
    assert_eq!(send(&t, &mut a, &["CLIENT", "GETREDIR"]), ":-1\r\n");
    assert_eq!(t.engine.snapshot(t.now).tracking.clients, 0);
}

#[cfg(feature = "scripting")]
#[test]
fn a_scripts_reads_are_remembered_and_its_writes_invalidate() {
    let t = TestEngine::default();
    let mut a = conn(&t, true);
    let mut b = conn(&t, false);
    send(&t, &mut a, &["CLIENT", "TRACKING", "on"]);
    // The keys its redis.call reads are the tracking client's, as in Redis 7.
    send(&t, &mut a, &["EVAL", "return redis.call('GET', KEYS[1])", "1", "s"]);
    send(&t, &mut b, &["EVAL", "return redis.call('SET', KEYS[1], 'v')", "1", "s"]);
    assert_eq!(pushes(&a), invalidate(&["s"]));
    // CLIENT TRACKING is not allowed from a script (Redis's `noscript`).
    let refused = send(&t, &mut b, &["EVAL", "return redis.call('CLIENT', 'TRACKING', 'on')", "0"]);
    assert!(refused.starts_with('-'), "{refused}");
}
