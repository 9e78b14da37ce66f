//! COMMAND against Redis 7.0 for every command both servers have: COMMAND INFO (arity, key
//! range, flags, ACL categories, tips, key specs, subcommands), COMMAND DOCS's shape, COMMAND
//! GETKEYS and GETKEYSANDFLAGS on lines of every key layout (ranges, key counts, SORT's STORE,
//! SET's GET) and their errors, and COMMAND LIST FILTERBY ACLCAT.
//!
//! Deliberate differences (Vitrine's data is Redis 7.2's, the reference server is 7.0):
//! - Commands one server has and the other has not are not compared (`both_have`), nor are
//!   COMMAND COUNT and the unfiltered COMMAND LIST.
//! - COMMAND GETKEYS and GETKEYSANDFLAGS have 7.2's arity (-3, 7.0's is -4): a line of the
//!   command alone (`COMMAND GETKEYS PING`) is not sent (Vitrine answers "The command has no key
//!   arguments", 7.0 an arity error).
//! - `DIFFERENT_IN_7_2`: rows whose flags, categories or tips 7.2 changed are compared on
//!   arity, key range and key specs only.
//! - COMMAND DOCS is compared by shape: the same fields (but those 7.2 added,
//!   `DOCS_FIELDS_NEWER`), `arguments` by top-level type and token (7.2 renamed many; the
//!   rows it restructured, `DOCS_DIFFERENT_IN_7_2`, are skipped); the texts differ.

use std::collections::{BTreeMap, BTreeSet};

use crate::harness::*;

/// Rows whose COMMAND INFO flags or tips 7.2 changed: the blocking commands lost `noscript`,
/// tips were added (CLIENT SETNAME, CONFIG RESETSTAT/REWRITE, ACL SETUSER/DELUSER/SAVE's
/// all-nodes policies, RANDOMKEY's and SCAN's response policy, LATENCY RESET's sum of the
/// nodes' answers) or dropped (MSETNX).
const DIFFERENT_IN_7_2: &[&str] = &[
    "acl|deluser",
    "acl|save",
    "acl|setuser",
    "blmove",
    "blpop",
    "brpop",
    "brpoplpush",
    "bzpopmax",
    "bzpopmin",
    "client|setname",
    "config|resetstat",
    "config|rewrite",
    "latency|reset",
    "msetnx",
    "randomkey",
    "scan",
];

/// Rows whose COMMAND DOCS arguments 7.2 restructured (beyond renaming them): CLIENT LIST's ID
/// and CONFIG GET's parameters became plain multiple arguments, PSUBSCRIBE's pattern too,
/// ZRANK and ZREVRANK gained WITHSCORE, GETKEYS an argument list; XREAD lost its complexity,
/// XINFO STREAM's `FULL [COUNT count]` became a block without a token of its own;
/// GEORADIUS's and GEORADIUSBYMEMBER's two STORE keys became one `STORE | STOREDIST` choice;
/// and BITOP's operation a oneof of its four tokens.
const DOCS_DIFFERENT_IN_7_2: &[&str] = &[
    "georadius",
    "georadiusbymember",
    "client|list",
    "config|get",
    "psubscribe",
    "zrank",
    "zrevrank",
    "command|getkeys",
    "command|getkeysandflags",
    "xread",
    "xinfo|stream",
    "bitop",
];

/// COMMAND DOCS fields 7.2 added to some commands: history entries, and the deprecation of
/// SETNX, SETEX, PSETEX and QUIT.
const DOCS_FIELDS_NEWER: &[&[u8]] = &[b"history", b"doc_flags", b"deprecated_since", b"replaced_by"];

pub(crate) fn names(reply: Resp) -> BTreeSet<Vec<u8>> {
    let Resp::Array(items) = reply else { panic!("not a list: {reply:?}") };
    items.into_iter().map(|n| if let Resp::Bulk(n) = n { n } else { panic!("{n:?}") }).collect()
}

/// The full names (`get`, `client|list`) both servers list.
pub(crate) fn both_have(peers: &mut Peers) -> BTreeSet<Vec<u8>> {
    let list: Vec<Vec<u8>> = args!["COMMAND", "LIST"];
    let v = names(peers.vitrine.call(&list).expect("vitrine"));
    let r = names(peers.redis.call(&list).expect("redis"));
    v.intersection(&r).cloned().collect()
}

fn sorted(r: &Resp) -> Resp {
    match r {
        Resp::Array(a) => {
            let mut a = a.clone();
            a.sort();
            Resp::Array(a)
        }
        other => other.clone(),
    }
}

/// A RESP2 map (a flat array of pairs) by key.
fn map(r: &Resp) -> BTreeMap<Vec<u8>, Resp> {
    let Resp::Array(a) = r else { return BTreeMap::new() };
    a.chunks(2)
        .filter_map(|p| match p {
            [Resp::Bulk(k), v] => Some((k.clone(), v.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn command_info_of_every_shared_command_matches_redis() {
    let Some(servers) = Servers::start_or_skip("command_info_of_every_shared_command_matches_redis") else {
        return;
    };
    let mut peers = servers.peers();
    let shared = both_have(&mut peers);
    assert!(shared.len() > 150, "{} shared commands", shared.len());
    let mut differ = Vec::new();
    for name in &shared {
        let argv = vec![b"COMMAND".to_vec(), b"INFO".to_vec(), name.clone()];
        let v = peers.vitrine.call(&argv).expect("vitrine");
        let r = peers.redis.call(&argv).expect("redis");
        let (Resp::Array(v), Resp::Array(r)) = (&v, &r) else { panic!("{v:?} / {r:?}") };
        let [Resp::Array(v), Resp::Array(r)] = [&v[0], &r[0]] else { panic!() };
        assert_eq!(v.len(), 10, "{}", name.escape_ascii());
        // Name, arity, first, last, step, key specs: always the same (but GETKEYS's arity,
        // which 7.2 changed from -4 to -3).
        let fields: &[usize] =
            if name.starts_with(b"command|getkeys") { &[0, 3, 4, 5, 8] } else { &[0, 1, 3, 4, 5, 8] };
        for &i in fields {
            assert_eq!(v[i], r[i], "COMMAND INFO {} field {i}", name.escape_ascii());
        }
        let wording = String::from_utf8_lossy(name).into_owned();
        if DIFFERENT_IN_7_2.contains(&wording.as_str()) {
            continue;
        }
        // Flags, categories and tips as sets.
        for i in [2, 6, 7] {
            if sorted(&v[i]) != sorted(&r[i]) {
                differ.push(format!("{wording} field {i}: vitrine {:?} redis {:?}", v[i], r[i]));
            }
        }
    }
    assert!(differ.is_empty(), "COMMAND INFO differs:\n{}", differ.join("\n"));
}

#[test]
fn command_docs_of_every_shared_command_has_redis_shape() {
    let Some(servers) = Servers::start_or_skip("command_docs_of_every_shared_command_has_redis_shape") else {
        return;
    };
    let mut peers = servers.peers();
    let mut differ = Vec::new();
    for name in both_have(&mut peers) {
        let argv = vec![b"COMMAND".to_vec(), b"DOCS".to_vec(), name.clone()];
        let v = map(&peers.vitrine.call(&argv).expect("vitrine"));
        let r = map(&peers.redis.call(&argv).expect("redis"));
        let (v, r) = (map(&v[&name]), map(&r[&name]));
        let wording = String::from_utf8_lossy(&name).into_owned();
        if DOCS_DIFFERENT_IN_7_2.contains(&wording.as_str()) {
            continue;
        }
        let keys = |m: &BTreeMap<Vec<u8>, Resp>| {
            m.keys().filter(|k| !DOCS_FIELDS_NEWER.contains(&k.as_slice())).cloned().collect::<Vec<_>>()
        };
        if keys(&v) != keys(&r) {
            differ.push(format!("{wording}: fields {:?} / {:?}", keys(&v).escape(), keys(&r).escape()));
            continue;
        }
        assert_eq!(v[&b"group"[..]], r[&b"group"[..]], "{wording}");
        let top = |m: &BTreeMap<Vec<u8>, Resp>| -> Vec<(Resp, Resp)> {
            let Some(Resp::Array(args)) = m.get(&b"arguments"[..]) else { return vec![] };
            // By type and token: 7.2 renamed many arguments (`key_value` became `data`).
            let field = |a: &BTreeMap<Vec<u8>, Resp>, f: &[u8]| a.get(f).cloned().unwrap_or(Resp::NilBulk);
            args.iter().map(map).map(|a| (field(&a, b"type"), field(&a, b"token"))).collect()
        };
        if top(&v) != top(&r) {
            differ.push(format!("{wording}: arguments {:?} / {:?}", top(&v), top(&r)));
        }
    }
    assert!(differ.is_empty(), "COMMAND DOCS differs:\n{}", differ.join("\n"));
}

trait Escape {
    fn escape(&self) -> Vec<String>;
}
impl Escape for Vec<Vec<u8>> {
    fn escape(&self) -> Vec<String> {
        self.iter().map(|k| k.escape_ascii().to_string()).collect()
    }
}

#[test]
fn command_getkeys_matches_redis() {
    let Some(servers) = Servers::start_or_skip("command_getkeys_matches_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("COMMAND GETKEYS");
    let lines: &[&[&str]] = &[
        &["GET", "k"],
        &["SET", "k", "v"],
        &["SET", "k", "v", "GET"],
        &["SET", "k", "v", "EX", "10", "get"],
        &["MSET", "a", "1", "b", "2"],
        &["MGET", "a", "b", "c"],
        &["DEL", "a", "b"],
        &["RENAME", "a", "b"],
        &["COPY", "a", "b", "REPLACE"],
        &["LMOVE", "a", "b", "LEFT", "RIGHT"],
        &["BLPOP", "a", "b", "0"],
        &["BLMOVE", "a", "b", "LEFT", "RIGHT", "0"],
        &["LMPOP", "2", "a", "b", "LEFT", "COUNT", "3"],
        &["LMPOP", "1", "a", "RIGHT"],
        &["LMPOP", "0", "a", "RIGHT"],
        &["LMPOP", "x", "a", "RIGHT"],
        &["LMPOP", "5", "a", "RIGHT"],
        &["BLMPOP", "0", "2", "a", "b", "LEFT"],
        &["ZMPOP", "2", "a", "b", "MIN"],
        &["BZMPOP", "1", "1", "a", "MAX", "COUNT", "2"],
        &["SINTERCARD", "2", "a", "b", "LIMIT", "1"],
        &["ZINTERCARD", "3", "a", "b", "c"],
        &["ZUNION", "2", "a", "b", "WEIGHTS", "1", "2", "WITHSCORES"],
        &["ZINTER", "1", "a"],
        &["ZDIFF", "2", "a", "b"],
        &["ZUNIONSTORE", "d", "2", "a", "b", "AGGREGATE", "MAX"],
        &["ZINTERSTORE", "d", "1", "a"],
        &["ZDIFFSTORE", "d", "2", "a", "b"],
        &["ZRANGESTORE", "d", "s", "0", "-1"],
        &["SINTERSTORE", "d", "a", "b"],
        &["SMOVE", "a", "b", "m"],
        &["SORT", "k"],
        &["SORT", "k", "BY", "w_*", "GET", "#", "STORE", "d"],
        &["SORT", "k", "LIMIT", "0", "1", "STORE", "d1", "STORE", "d2"],
        &["SORT", "k", "GET", "store"],
        &["SORT_RO", "k", "BY", "x", "GET", "y"],
        &["OBJECT", "ENCODING", "k"],
        &["object", "freq", "k"],
        &["MEMORY", "USAGE", "k", "SAMPLES", "5"],
        &["WATCH", "a", "b"],
        &["EXISTS", "a"],
        &["TOUCH", "a", "b"],
        // Errors: unknown, no keys, wrong count.
        &["nosuch", "a"],
        &["OBJECT", "nosuch", "k"],
        &["SPUBLISH", "channel", "message"],
        &["SSUBSCRIBE", "a", "b"],
        &["CLIENT", "LIST"],
        &["OBJECT", "HELP"],
        &["GET", "a", "b"],
        &["MSET", "a"],
        &["LMPOP", "1"],
        &["ZUNIONSTORE", "d", "x", "a"],
    ];
    for line in lines {
        for sub in ["GETKEYS", "GETKEYSANDFLAGS"] {
            let mut argv = args!["COMMAND", sub];
            argv.extend(line.iter().map(|a| a.as_bytes().to_vec()));
            peers.call(&argv, Check::Exact);
        }
    }
    for bad in [&["COMMAND", "GETKEYS"][..], &["COMMAND", "GETKEYSANDFLAGS"]] {
        peers.call(&bad.iter().map(|a| a.as_bytes().to_vec()).collect::<Vec<_>>(), Check::Exact);
    }
}

#[test]
fn command_list_by_acl_category_matches_redis() {
    let Some(servers) = Servers::start_or_skip("command_list_by_acl_category_matches_redis") else {
        return;
    };
    let mut peers = servers.peers();
    let shared = both_have(&mut peers);
    let mut differ = Vec::new();
    for cat in [
        "keyspace",
        "read",
        "write",
        "set",
        "sortedset",
        "list",
        "hash",
        "string",
        "pubsub",
        "admin",
        "fast",
        "slow",
        "blocking",
        "dangerous",
        "connection",
        "transaction",
        "STRING",
        "nosuch",
        "@read",
    ] {
        let argv = args!["COMMAND", "LIST", "FILTERBY", "ACLCAT", cat];
        let v = names(peers.vitrine.call(&argv).expect("vitrine"));
        let r = names(peers.redis.call(&argv).expect("redis"));
        let only = |a: &BTreeSet<Vec<u8>>, b: &BTreeSet<Vec<u8>>| -> Vec<String> {
            a.difference(b).filter(|n| shared.contains(*n)).map(|n| n.escape_ascii().to_string()).collect()
        };
        let (v_only, r_only) = (only(&v, &r), only(&r, &v));
        if !v_only.is_empty() || !r_only.is_empty() {
            differ.push(format!("@{cat}: only vitrine {v_only:?}, only redis {r_only:?}"));
        }
    }
    assert!(differ.is_empty(), "COMMAND LIST FILTERBY ACLCAT differs:\n{}", differ.join("\n"));
}

/// A RESP3 reply with every string's bytes left out: its types, lengths of aggregates and
/// numbers (texts differ between 7.0 and 7.2; the shape must not).
fn skeleton(reply: &[u8]) -> String {
    let mut out = String::new();
    let mut lines = reply.split(|&b| b == b'\n');
    while let Some(line) = lines.next() {
        if line.first() == Some(&b'$') {
            out.push_str("$\n");
            lines.next();
        } else {
            out.push_str(&String::from_utf8_lossy(line));
            out.push('\n');
        }
    }
    out
}

/// RESP3: COMMAND INFO (sets, maps and arrays where Redis has them) byte for byte, COMMAND
/// DOCS by shape, GETKEYSANDFLAGS byte for byte. (Containers are left out: Redis orders their
/// subcommands by its dict.)
#[test]
fn command_replies_in_resp3_match_redis() {
    use crate::pubsub::{drain, send};
    let Some(servers) = Servers::start_or_skip("command_replies_in_resp3_match_redis") else {
        return;
    };
    let (mut v, mut r) = servers.raw_pair();
    for s in [&mut v, &mut r] {
        send(s, &["HELLO", "3"]);
        drain(s, false);
    }
    let mut ask = |argv: &[&str]| {
        send(&mut v, argv);
        send(&mut r, argv);
        (drain(&mut v, false), drain(&mut r, false))
    };
    for name in
        ["get", "set", "mset", "lmpop", "zunionstore", "sort", "object|encoding", "memory|usage", "lmove", "spublish"]
    {
        let (v, r) = ask(&["COMMAND", "INFO", name]);
        assert_eq!(v.escape_ascii().to_string(), r.escape_ascii().to_string(), "COMMAND INFO {name}");
    }
    for line in
        [&["GETKEYSANDFLAGS", "SET", "k", "v", "GET"][..], &["GETKEYSANDFLAGS", "ZUNIONSTORE", "d", "2", "a", "b"]]
    {
        let argv: Vec<&str> = std::iter::once("COMMAND").chain(line.iter().copied()).collect();
        let (v, r) = ask(&argv);
        assert_eq!(v.escape_ascii().to_string(), r.escape_ascii().to_string(), "{argv:?}");
    }
    for name in ["get", "lmove", "zadd", "lpos", "object|freq"] {
        let (v, r) = ask(&["COMMAND", "DOCS", name]);
        assert_eq!(skeleton(&v), skeleton(&r), "COMMAND DOCS {name}");
    }
}
