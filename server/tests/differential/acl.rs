//! ACL against Redis 7.0: SETUSER's error texts, LIST and GETUSER (RESP2 and RESP3) for users
//! whose rules print the same in both, USERS, WHOAMI, DELUSER, CAT, DRYRUN, GENPASS's lengths
//! and errors, ACL LOG after a failed AUTH, SAVE/LOAD without an aclfile, NOPERM texts; and
//! COMMAND LIST / COUNT against 7.0's command set.
//!
//! Deliberate differences:
//! - Redis 7.0 prints single-command rules in its command dict's order, which changes with
//!   each process's hash seed: the users here compact to categories or one command, and a
//!   reply with several is compared with the words of each LIST line sorted (`sorted_words`).
//! - `ACL CAT <category>` is in dict order too: compared as sets, without the rows one server
//!   has and the other not (Vitrine's `client|setinfo` and `client|no-touch` are Redis 7.2's).
//! - ACL LOG: `age-seconds` and `client-info` (ids, ports, ages, memory) are not compared.
//! - GENPASS is random: only its length is compared.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::clients::resp;
use crate::command_table::{both_have, names};
use crate::harness::*;

/// SETUSER lines whose errors must be Redis's, byte for byte.
const BAD_SETUSER: &[&[&str]] = &[
    &["u", "nosuchrule"],
    &["u", "%X~k"],
    &["u", "+get|"],
    &["u", "(foo)"],
    &["u", "+nosuch"],
    &["u", "-get|foo"],
    &["u", "-select|0"],
    &["u", "+@read|get"],
    &["u", "+@nosuch"],
    &["u", "+config|get|x"],
    &["u", "#abc"],
    &["u", "!abc"],
    &["u", "<nopw"],
    &["u", "allkeys", "~x"],
    &["u", "allchannels", "&x"],
    &["u", "on", "(~x", "+get"],
    &["a b", "on"],
    &["u", "on", ">ok", "+nosuch"],
];

/// Users whose LIST lines and GETUSER replies compact the same in both servers.
const USERS: &[&[&str]] = &[
    &["r", "on", ">p1", "~*", "+@read"],
    &["adm", "on", "nopass", "~*", "&*", "+@all", "-@admin"],
    &["g", "on", "nopass", "-@all", "+get"],
    &[
        "mix",
        "on",
        "#2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
        ">a",
        ">b",
        "~k*",
        "%R~r*",
        "&ch*",
        "+@string",
    ],
    &["sel", "on", "nopass", "-@all", "(~x* +get)", "(%W~w* +@write)"],
    &["rw", "%R~c", "%W~c", "+@hash"],
    &["z", "reset"],
];

fn call(peers: &mut Peers, argv: &[&str]) {
    let argv: Vec<Vec<u8>> = argv.iter().map(|a| a.as_bytes().to_vec()).collect();
    peers.call(&argv, Check::Exact);
}

#[test]
fn acl_users_and_errors_match_redis() {
    let Some(servers) = Servers::start_or_skip("acl_users_and_errors_match_redis") else { return };
    let mut peers = servers.peers();
    peers.begin("acl");
    for line in BAD_SETUSER {
        call(&mut peers, &[&["ACL", "SETUSER"], *line].concat());
    }
    call(&mut peers, &["ACL", "USERS"]);
    for line in USERS {
        call(&mut peers, &[&["ACL", "SETUSER"], *line].concat());
    }
    call(&mut peers, &["ACL", "LIST"]);
    call(&mut peers, &["ACL", "USERS"]);
    for name in ["default", "r", "adm", "g", "mix", "sel", "rw", "z", "nosuch"] {
        call(&mut peers, &["ACL", "GETUSER", name]);
    }
    call(&mut peers, &["ACL", "WHOAMI"]);
    call(&mut peers, &["ACL", "DELUSER", "z", "default"]);
    call(&mut peers, &["ACL", "DELUSER", "z", "nosuch", "g"]);
    call(&mut peers, &["ACL", "DELUSER", "z"]);
    call(&mut peers, &["ACL", "USERS"]);
    call(&mut peers, &["ACL", "FOO"]);
    call(&mut peers, &["ACL", "GETUSER"]);
    call(&mut peers, &["ACL", "SAVE"]);
    call(&mut peers, &["ACL", "LOAD"]);
    call(&mut peers, &["ACL", "HELP"]);
    call(&mut peers, &["ACL", "CAT"]);
    call(&mut peers, &["ACL", "CAT", "nosuch"]);
    call(&mut peers, &["ACL", "CAT", "read", "x"]);
    // Users with several single-command rules (first args too): each line's words compared
    // as a set.
    let rules = ["ACL", "SETUSER", "many", "on", "nopass", "+@read", "-@dangerous", "+set", "-get", "+config|get"];
    call(&mut peers, &rules);
    call(
        &mut peers,
        &["ACL", "SETUSER", "fa", "on", "nopass", "-@all", "+select|0", "+select|1", "+client|list", "allkeys"],
    );
    call(&mut peers, &["ACL", "SETUSER", "fb", "on", "nopass", "-@all", "+select|0", "+client|list", "+select"]);
    let list: Vec<Vec<u8>> = args!["ACL", "LIST"];
    let v = sorted_words(peers.vitrine.call(&list).expect("vitrine"));
    let r = sorted_words(peers.redis.call(&list).expect("redis"));
    assert_eq!(v, r, "ACL LIST with several single-command rules, words sorted");

    // RESP3: GETUSER's map and its set of flags, byte for byte (HELLO's own reply differs).
    let (mut v, mut r) = servers.raw_pair();
    let hello = resp(&[&["HELLO", "3"]]);
    exchange(&mut v, &hello);
    exchange(&mut r, &hello);
    for name in ["default", "mix", "sel", "nosuch"] {
        let getuser = resp(&[&["ACL", "GETUSER", name]]);
        assert_eq!(show(&exchange(&mut v, &getuser)), show(&exchange(&mut r, &getuser)), "RESP3 GETUSER {name}");
    }
}

/// Each LIST line's words, sorted (Redis prints single-command rules in hash order).
fn sorted_words(reply: Resp) -> Vec<Vec<Vec<u8>>> {
    let Resp::Array(lines) = reply else { panic!("{reply:?}") };
    lines
        .into_iter()
        .map(|l| {
            let Resp::Bulk(l) = l else { panic!("{l:?}") };
            let mut words: Vec<Vec<u8>> = l.split(|&b| b == b' ').map(<[u8]>::to_vec).collect();
            words.sort();
            words
        })
        .collect()
}

/// Rows Vitrine has that Redis 7.0.15 has not (7.2's CLIENT rows, and newer Redis's hash
/// field expiry and string digest commands).
const VITRINE_ONLY: &[&str] = &[
    "client|no-touch",
    "client|setinfo",
    "delex",
    "delifeq",
    "digest",
    "hexpire",
    "hexpireat",
    "hexpiretime",
    "hgetdel",
    "hgetex",
    "hpersist",
    "hpexpire",
    "hpexpireat",
    "hpexpiretime",
    "hpttl",
    "hsetex",
    "httl",
];

/// Redis 7.0.15's rows Vitrine does not implement (modules, cluster, replication, persistence,
/// debugging, ...): listed so that a row added to either side shows here.
const REDIS_ONLY: &[&str] = &[
    "asking",
    "bgsave",
    "cluster",
    "cluster|addslots",
    "cluster|addslotsrange",
    "cluster|bumpepoch",
    "cluster|count-failure-reports",
    "cluster|countkeysinslot",
    "cluster|delslots",
    "cluster|delslotsrange",
    "cluster|failover",
    "cluster|flushslots",
    "cluster|forget",
    "cluster|getkeysinslot",
    "cluster|help",
    "cluster|info",
    "cluster|keyslot",
    "cluster|links",
    "cluster|meet",
    "cluster|myid",
    "cluster|nodes",
    "cluster|replicas",
    "cluster|replicate",
    "cluster|reset",
    "cluster|saveconfig",
    "cluster|set-config-epoch",
    "cluster|setslot",
    "cluster|shards",
    "cluster|slaves",
    "cluster|slots",
    "debug",
    "failover",
    "lolwut",
    "migrate",
    "module",
    "module|help",
    "module|list",
    "module|load",
    "module|loadex",
    "module|unload",
    "psync",
    "readonly",
    "readwrite",
    "replconf",
    "replicaof",
    "restore-asking",
    "role",
    "save",
    "script|debug",
    "slaveof",
    "sync",
    "wait",
];

#[test]
fn acl_cat_dryrun_genpass_and_log_match_redis() {
    let Some(servers) = Servers::start_or_skip("acl_cat_dryrun_genpass_and_log_match_redis") else { return };
    let mut peers = servers.peers();
    peers.begin("acl cat");
    let cat: Vec<Vec<u8>> = args!["ACL", "CAT"];
    let Resp::Array(cats) = peers.redis.call(&cat).expect("redis") else { panic!() };
    let both = both_have(&mut peers);
    for cat in cats {
        let Resp::Bulk(cat) = cat else { panic!() };
        let argv = vec![b"ACL".to_vec(), b"CAT".to_vec(), cat.clone()];
        let v: BTreeSet<Vec<u8>> =
            names(peers.vitrine.call(&argv).expect("vitrine")).intersection(&both).cloned().collect();
        let r: BTreeSet<Vec<u8>> =
            names(peers.redis.call(&argv).expect("redis")).intersection(&both).cloned().collect();
        assert_eq!(v, r, "ACL CAT {}", String::from_utf8_lossy(&cat));
    }

    peers.begin("acl dryrun");
    call(
        &mut peers,
        &["ACL", "SETUSER", "d", "on", "nopass", "~x*", "&a*", "-@all", "+get", "+set", "+config|get", "+psubscribe"],
    );
    for line in [
        &["d", "get", "x1"][..],
        &["d", "get", "y"],
        &["d", "del", "x1"],
        &["d", "config", "set", "a", "b"],
        &["d", "config", "get", "a"],
        &["d", "config", "nosub"],
        &["nosuch", "get", "x"],
        &["d", "nosuch", "x"],
        &["d", "get"],
        &["d", "psubscribe", "a*"],
        &["d", "psubscribe", "a?"],
        &["d", "set", "x1", "v"],
        &["default", "flushall"],
    ] {
        call(&mut peers, &[&["ACL", "DRYRUN"], line].concat());
    }

    peers.begin("acl genpass");
    for bits in ["0", "-1", "4097", "x", "1 2"] {
        let mut argv = vec!["ACL", "GENPASS"];
        argv.extend(bits.split(' '));
        call(&mut peers, &argv);
    }
    for bits in [None, Some("1"), Some("5"), Some("255"), Some("4096")] {
        let mut argv = args!["ACL", "GENPASS"];
        argv.extend(bits.map(|b| b.as_bytes().to_vec()));
        let len = |reply: Resp| match reply {
            Resp::Bulk(p) if p.iter().all(u8::is_ascii_hexdigit) => p.len(),
            other => panic!("GENPASS {bits:?}: {other:?}"),
        };
        assert_eq!(len(peers.vitrine.call(&argv).unwrap()), len(peers.redis.call(&argv).unwrap()), "{bits:?}");
    }

    peers.begin("acl log");
    call(&mut peers, &["ACL", "LOG", "RESET"]);
    call(&mut peers, &["AUTH", "nosuch", "pw"]);
    call(&mut peers, &["ACL", "SETUSER", "pwu", "on", ">right"]);
    call(&mut peers, &["AUTH", "pwu", "wrong"]);
    call(&mut peers, &["HELLO", "2", "AUTH", "pwu", "wrong"]);
    call(&mut peers, &["AUTH", "pwu", "wrong"]);
    call(&mut peers, &["ACL", "LOG", "x"]);
    call(&mut peers, &["ACL", "LOG", "1", "2"]);
    call(&mut peers, &["ACL", "LOG", "-1"]);
    let log: Vec<Vec<u8>> = args!["ACL", "LOG"];
    let v = log_without_times(peers.vitrine.call(&log).expect("vitrine"));
    let r = log_without_times(peers.redis.call(&log).expect("redis"));
    assert_eq!(v, r, "ACL LOG (age-seconds and client-info aside)");
}

/// ACL LOG's entries with `age-seconds` and `client-info` blanked (measurements and ids).
fn log_without_times(reply: Resp) -> Resp {
    let Resp::Array(entries) = reply else { panic!("{reply:?}") };
    Resp::Array(
        entries
            .into_iter()
            .map(|e| {
                let Resp::Array(mut fields) = e else { panic!("{e:?}") };
                assert_eq!(fields.len(), 14, "7 fields");
                fields[11] = Resp::NilBulk;
                fields[13] = Resp::NilBulk;
                Resp::Array(fields)
            })
            .collect(),
    )
}

#[test]
fn noperm_texts_match_redis() {
    let Some(servers) = Servers::start_or_skip("noperm_texts_match_redis") else { return };
    let mut admin = servers.peers();
    admin.begin("noperm setup");
    call(
        &mut admin,
        &[
            "ACL",
            "SETUSER",
            "ro",
            "on",
            ">pw",
            "~k*",
            "&ch",
            "-@all",
            "+@read",
            "+multi",
            "+exec",
            "+subscribe",
            "+client|info",
            "+eval",
            "+auth",
        ],
    );
    call(&mut admin, &["SET", "k1", "v"]);
    let mut peers = servers.peers();
    peers.begin("noperm");
    call(&mut peers, &["AUTH", "ro", "wrong"]);
    call(&mut peers, &["AUTH", "ro", "pw"]);
    call(&mut peers, &["ACL", "WHOAMI"]);
    call(&mut peers, &["GET", "k1"]);
    call(&mut peers, &["GET", "other"]);
    call(&mut peers, &["SET", "k1", "v"]);
    call(&mut peers, &["CLIENT", "ID"]);
    call(&mut peers, &["CLIENT", "LIST"]);
    call(&mut peers, &["SUBSCRIBE", "nope"]);
    call(&mut peers, &["EVAL", "return redis.call('get', 'other')", "0"]);
    call(&mut peers, &["EVAL", "return redis.call('set', 'k1', 'x')", "0"]);
    call(&mut peers, &["MULTI"]);
    call(&mut peers, &["GET", "k1"]);
    call(&mut peers, &["SET", "k1", "x"]);
    call(&mut peers, &["EXEC"]);
}

/// COMMAND LIST and COUNT: Vitrine's rows are 7.0.15's, but for the ones listed either side.
#[test]
fn command_list_and_count_match_redis_but_for_the_listed_rows() {
    let Some(servers) = Servers::start_or_skip("command_list_and_count_match_redis_but_for_the_listed_rows") else {
        return;
    };
    let mut peers = servers.peers();
    let list: Vec<Vec<u8>> = args!["COMMAND", "LIST"];
    let v = names(peers.vitrine.call(&list).expect("vitrine"));
    let r = names(peers.redis.call(&list).expect("redis"));
    let only = |a: &BTreeSet<Vec<u8>>, b: &BTreeSet<Vec<u8>>| -> BTreeSet<String> {
        a.difference(b).map(|n| String::from_utf8_lossy(n).into_owned()).collect()
    };
    let listed = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(only(&v, &r), listed(VITRINE_ONLY), "rows Vitrine has and Redis 7.0.15 has not");
    assert_eq!(only(&r, &v), listed(REDIS_ONLY), "rows Redis 7.0.15 has and Vitrine has not");
    let top = |names: &BTreeSet<Vec<u8>>| names.iter().filter(|n| !n.contains(&b'|')).count() as i64;
    let count = |reply: Resp| match reply {
        Resp::Int(n) => n,
        other => panic!("{other:?}"),
    };
    let count_argv: Vec<Vec<u8>> = args!["COMMAND", "COUNT"];
    let v_count = count(peers.vitrine.call(&count_argv).unwrap());
    let r_count = count(peers.redis.call(&count_argv).unwrap());
    assert_eq!((r_count, r.len()), (240, 366), "Redis 7.0.15's counts");
    assert_eq!(v_count, top(&v), "COUNT counts the top-level rows of LIST");
    let redis_only_top = REDIS_ONLY.iter().filter(|n| !n.contains('|')).count() as i64;
    let vitrine_only_top = VITRINE_ONLY.iter().filter(|n| !n.contains('|')).count() as i64;
    assert_eq!(v_count, r_count - redis_only_top + vitrine_only_top, "COUNT differs by the listed commands");
}

/// Sends `bytes` and reads what comes back within 100 ms of quiet.
fn exchange(s: &mut TcpStream, bytes: &[u8]) -> Vec<u8> {
    s.write_all(bytes).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    let (mut got, deadline, mut buf) = (Vec::new(), Instant::now() + Duration::from_secs(2), [0u8; 4096]);
    while Instant::now() < deadline {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(_) if !got.is_empty() => break,
            Err(_) => {}
        }
    }
    got
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
