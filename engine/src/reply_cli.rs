//! Replies as `redis-cli` prints them on a terminal, for the browser playground and any other
//! console: `OK`, `(integer) 1`, `(nil)`, `"hello"` with redis-cli's escaping, `(error) ERR ...`,
//! numbered nested arrays, `(empty array)`.
//!
//! This follows redis-cli 7's `cliFormatReplyTTY` and `cliFormatReplyRaw` (src/redis-cli.c) on
//! the reply *as the connection receives it*: over RESP2 a map arrives as a flat array, a set
//! as an array, a double as a bulk string and a boolean as an integer, so they print that way;
//! over RESP3 (after `HELLO 3`) they print as `1# "k" => "v"`, `1~ "m"`, `(double) 1.5` and
//! `(true)`. Status and error lines are shown as they travel, with CR and LF turned into spaces.
//!
//! The text is exactly what redis-cli writes to stdout, final newline included. Commands that
//! redis-cli prints raw even on a terminal (INFO, CLIENT LIST, ...; see [`prints_raw`]) keep
//! their reply's own line endings (`\r\n` for INFO).

use std::fmt::Write as _;

use crate::num::format_double;
use crate::reply::Reply;

/// `argv`'s reply as redis-cli prints it on a terminal: raw for the commands it prints raw,
/// formatted otherwise. `resp3` says which protocol the session speaks.
pub fn format_for_command<A: AsRef<[u8]>>(argv: &[A], reply: &Reply, resp3: bool) -> String {
    if prints_raw(argv) {
        format_raw(reply, resp3)
    } else {
        format_tty(reply, resp3)
    }
}

/// redis-cli's terminal format (`cliFormatReplyTTY`), final newline included.
pub fn format_tty(reply: &Reply, resp3: bool) -> String {
    let mut out = String::new();
    tty(&mut out, reply, resp3, "");
    out
}

/// redis-cli's raw format (`cliFormatReplyRaw`): strings unquoted, aggregates one element per
/// line, nil as nothing. As for INFO on a terminal, no newline is added after the reply.
pub fn format_raw(reply: &Reply, resp3: bool) -> String {
    let mut out = Vec::new();
    raw(&mut out, reply, resp3);
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether redis-cli prints this command's reply raw even on a terminal, as its
/// `cliSendCommand` decides: INFO, LOLWUT, CLIENT LIST/INFO, MEMORY DOCTOR/MALLOC-STATS,
/// LATENCY DOCTOR/GRAPH, CLUSTER NODES/INFO, DEBUG HTSTATS/HTSTATS-KEY/CLIENT-EVICTION and
/// PROXY INFO.
pub fn prints_raw<A: AsRef<[u8]>>(argv: &[A]) -> bool {
    let Some(cmd) = argv.first().map(AsRef::as_ref) else { return false };
    let sub = argv.get(1).map(AsRef::as_ref).unwrap_or_default();
    let is = |a: &[u8], b: &str| a.eq_ignore_ascii_case(b.as_bytes());
    let argc = argv.len();
    is(cmd, "info")
        || is(cmd, "lolwut")
        || (argc >= 2 && is(cmd, "debug") && ["htstats", "htstats-key", "client-eviction"].iter().any(|s| is(sub, s)))
        || (argc >= 2 && is(cmd, "memory") && (is(sub, "malloc-stats") || is(sub, "doctor")))
        || (argc == 2 && is(cmd, "cluster") && (is(sub, "nodes") || is(sub, "info")))
        || (argc >= 2 && is(cmd, "client") && (is(sub, "list") || is(sub, "info")))
        || (argc == 3 && is(cmd, "latency") && is(sub, "graph"))
        || (argc == 2 && is(cmd, "latency") && is(sub, "doctor"))
        || (argc >= 2 && is(cmd, "proxy") && is(sub, "info"))
}

/// Quotes bytes as redis-cli does (`sdscatrepr`): `"..."` with `\\ \" \n \r \t \a \b`
/// escaped, printable ASCII as is, every other byte (UTF-8 included) as `\xHH`.
pub fn repr(out: &mut String, bytes: &[u8]) {
    out.push('"');
    for &c in bytes {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x20..=0x7e => out.push(c as char),
            _ => {
                let _ = write!(out, "\\x{c:02x}");
            }
        }
    }
    out.push('"');
}

/// A status or error line as it travels (the encoder turns CR and LF into spaces).
fn one_line(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().map(|c| if c == '\r' || c == '\n' { ' ' } else { c })
}

#[derive(Clone, Copy, PartialEq)]
enum Aggregate {
    Array,
    Set,
    Map,
    Push,
}

/// The elements of an aggregate as the connection receives them (`None` for a scalar): a map's
/// are its keys and values in turn; over RESP2 maps and sets arrive as plain arrays.
fn elements(reply: &Reply, resp3: bool) -> Option<(Aggregate, Vec<&Reply>)> {
    match reply {
        Reply::Array(items) => Some((Aggregate::Array, items.iter().collect())),
        Reply::Push(items) => Some((if resp3 { Aggregate::Push } else { Aggregate::Array }, items.iter().collect())),
        Reply::Set(items) => Some((if resp3 { Aggregate::Set } else { Aggregate::Array }, items.iter().collect())),
        Reply::Map(pairs) => Some((
            if resp3 { Aggregate::Map } else { Aggregate::Array },
            pairs.iter().flat_map(|(k, v)| [k, v]).collect(),
        )),
        _ => None,
    }
}

fn tty(out: &mut String, reply: &Reply, resp3: bool, prefix: &str) {
    match reply {
        Reply::Error(s) => {
            out.push_str("(error) ");
            out.extend(one_line(s));
            out.push('\n');
        }
        Reply::Ok => out.push_str("OK\n"),
        Reply::Status(s) => {
            out.extend(one_line(s));
            out.push('\n');
        }
        Reply::Int(n) => {
            let _ = writeln!(out, "(integer) {n}");
        }
        Reply::Bool(b) if resp3 => out.push_str(if *b { "(true)\n" } else { "(false)\n" }),
        Reply::Bool(b) => {
            let _ = writeln!(out, "(integer) {}", *b as i64);
        }
        Reply::HumanDouble(d) if resp3 => {
            let _ = writeln!(out, "(double) {}", crate::num::format_human(*d));
        }
        Reply::HumanDouble(d) => {
            repr(out, crate::num::format_human(*d).as_bytes());
            out.push('\n');
        }
        Reply::Double(d) if resp3 => {
            let _ = writeln!(out, "(double) {}", format_double(*d));
        }
        Reply::Double(d) => {
            repr(out, format_double(*d).as_bytes());
            out.push('\n');
        }
        Reply::Bulk(b) => {
            repr(out, b);
            out.push('\n');
        }
        // Verbatim strings print as they are (RESP3 INFO); over RESP2 they are bulk strings.
        Reply::Verbatim(s) if resp3 => {
            out.push_str(s);
            out.push('\n');
        }
        Reply::Verbatim(s) => {
            repr(out, s.as_bytes());
            out.push('\n');
        }
        Reply::Nil | Reply::NilArray => out.push_str("(nil)\n"),
        Reply::Array(_) | Reply::Set(_) | Reply::Map(_) | Reply::Push(_) => {
            let Some((kind, items)) = elements(reply, resp3) else { return };
            aggregate(out, kind, &items, resp3, prefix);
        }
        // Several replies to one command (SUBSCRIBE a b): redis-cli prints each as it reads it.
        Reply::Many(replies) => replies.iter().for_each(|r| tty(out, r, resp3, prefix)),
    }
}

fn aggregate(out: &mut String, kind: Aggregate, items: &[&Reply], resp3: bool, prefix: &str) {
    if items.is_empty() {
        out.push_str(match kind {
            Aggregate::Array => "(empty array)\n",
            Aggregate::Set => "(empty set)\n",
            Aggregate::Map => "(empty hash)\n",
            Aggregate::Push => "(empty push)\n",
        });
        return;
    }
    let count = if kind == Aggregate::Map { items.len() / 2 } else { items.len() };
    let width = count.to_string().len();
    // Nested elements line up under the first character after this level's `N) `.
    let child = format!("{prefix}{:width$}", "", width = width + 2);
    let sep = match kind {
        Aggregate::Array | Aggregate::Push => ')',
        Aggregate::Set => '~',
        Aggregate::Map => '#',
    };
    let step = if kind == Aggregate::Map { 2 } else { 1 };
    for (n, chunk) in items.chunks(step).enumerate() {
        // The first element follows the parent's own `N) ` on the same line.
        let lead = if n == 0 { "" } else { prefix };
        let _ = write!(out, "{lead}{:>width$}{sep} ", n + 1);
        tty(out, chunk[0], resp3, &child);
        if let Some(value) = chunk.get(1) {
            // `key => value` on one line; a value that spans lines starts on the next one.
            out.pop();
            out.push_str(" => ");
            if multiline(value, resp3) {
                out.push('\n');
                out.push_str(&child);
            }
            tty(out, value, resp3, &child);
        }
    }
}

/// redis-cli's `cliIsMultilineValueTTY`.
fn multiline(reply: &Reply, resp3: bool) -> bool {
    match elements(reply, resp3) {
        None => false,
        Some((Aggregate::Map, items)) => items.len() > 2 || items.get(1).is_some_and(|v| multiline(v, resp3)),
        Some((_, items)) => items.len() > 1 || items.first().is_some_and(|v| multiline(v, resp3)),
    }
}

fn raw(out: &mut Vec<u8>, reply: &Reply, resp3: bool) {
    match reply {
        Reply::Nil | Reply::NilArray => {}
        Reply::Error(s) => {
            out.extend(one_line(s).collect::<String>().as_bytes());
            out.push(b'\n');
        }
        Reply::Ok => out.extend_from_slice(b"OK"),
        Reply::Status(s) => out.extend(one_line(s).collect::<String>().as_bytes()),
        Reply::Bulk(b) => out.extend_from_slice(b),
        Reply::Verbatim(s) => out.extend_from_slice(s.as_bytes()),
        Reply::Int(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Reply::Bool(b) if resp3 => out.extend_from_slice(if *b { b"(true)" } else { b"(false)" }),
        Reply::Bool(b) => out.extend_from_slice(if *b { b"1" } else { b"0" }),
        Reply::Double(d) => out.extend_from_slice(format_double(*d).as_bytes()),
        Reply::HumanDouble(d) => out.extend_from_slice(crate::num::format_human(*d).as_bytes()),
        Reply::Many(replies) => {
            for (n, r) in replies.iter().enumerate() {
                if n > 0 {
                    out.push(b'\n');
                }
                raw(out, r, resp3);
            }
        }
        Reply::Array(_) | Reply::Set(_) | Reply::Map(_) | Reply::Push(_) => {
            let Some((kind, items)) = elements(reply, resp3) else { return };
            let step = if kind == Aggregate::Map { 2 } else { 1 };
            for (n, chunk) in items.chunks(step).enumerate() {
                if n > 0 {
                    out.push(b'\n');
                }
                raw(out, chunk[0], resp3);
                if let Some(value) = chunk.get(1) {
                    out.push(b' ');
                    raw(out, value, resp3);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{arr, bulk, err, int, nil, ok};

    fn tty2(r: &Reply) -> String {
        format_tty(r, false)
    }

    #[test]
    fn scalars() {
        assert_eq!(tty2(&ok()), "OK\n");
        assert_eq!(tty2(&Reply::status("PONG")), "PONG\n");
        assert_eq!(tty2(&int(-7)), "(integer) -7\n");
        assert_eq!(tty2(&nil()), "(nil)\n");
        assert_eq!(tty2(&Reply::NilArray), "(nil)\n");
        assert_eq!(tty2(&bulk("hello")), "\"hello\"\n");
        assert_eq!(tty2(&err("ERR syntax error")), "(error) ERR syntax error\n");
        assert_eq!(tty2(&err("ERR a\r\nb")), "(error) ERR a  b\n");
    }

    #[test]
    fn strings_are_quoted_as_sdscatrepr() {
        assert_eq!(
            tty2(&Reply::bulk(b"a\"b\\c\n\r\t\x07\x08\x00\x7f\xff")),
            "\"a\\\"b\\\\c\\n\\r\\t\\a\\b\\x00\\x7f\\xff\"\n"
        );
        assert_eq!(tty2(&bulk("café")), "\"caf\\xc3\\xa9\"\n");
        assert_eq!(tty2(&bulk("")), "\"\"\n");
    }

    #[test]
    fn arrays_are_numbered_and_nested_as_redis_cli() {
        assert_eq!(tty2(&arr(vec![])), "(empty array)\n");
        assert_eq!(tty2(&arr(vec![bulk("a"), nil(), int(3)])), "1) \"a\"\n2) (nil)\n3) (integer) 3\n");
        // Indexes are right-aligned to the widest; nested levels indent under their parent.
        let ten: Vec<Reply> = (1..=10).map(int).collect();
        let text = tty2(&arr(ten));
        assert!(text.starts_with(" 1) (integer) 1\n 2) (integer) 2\n"), "{text}");
        assert!(text.ends_with("10) (integer) 10\n"), "{text}");
        let nested = arr(vec![bulk("0"), arr(vec![bulk("k1"), arr(vec![bulk("x"), bulk("y")]), arr(vec![])])]);
        assert_eq!(tty2(&nested), "1) \"0\"\n2) 1) \"k1\"\n   2) 1) \"x\"\n      2) \"y\"\n   3) (empty array)\n");
    }

    #[test]
    fn resp2_shows_resp3_types_as_they_arrive() {
        let map = Reply::Map(vec![(bulk("a"), int(1)), (bulk("b"), Reply::Double(1.5))]);
        assert_eq!(tty2(&map), "1) \"a\"\n2) (integer) 1\n3) \"b\"\n4) \"1.5\"\n");
        assert_eq!(tty2(&Reply::Set(vec![bulk("m")])), "1) \"m\"\n");
        assert_eq!(tty2(&Reply::Bool(true)), "(integer) 1\n");
        assert_eq!(tty2(&Reply::Double(3.0)), "\"3\"\n");
        assert_eq!(tty2(&Reply::Verbatim("x".into())), "\"x\"\n");
    }

    #[test]
    fn several_replies_print_one_after_another() {
        let many = Reply::Many(vec![arr(vec![bulk("subscribe"), bulk("a"), int(1)]), int(2)]);
        assert_eq!(tty2(&many), "1) \"subscribe\"\n2) \"a\"\n3) (integer) 1\n(integer) 2\n");
    }

    #[test]
    fn resp3_types() {
        let tty3 = |r: &Reply| format_tty(r, true);
        let map = Reply::Map(vec![(bulk("a"), int(1)), (bulk("list"), arr(vec![bulk("x"), bulk("y")]))]);
        assert_eq!(tty3(&map), "1# \"a\" => (integer) 1\n2# \"list\" => \n   1) \"x\"\n   2) \"y\"\n");
        assert_eq!(tty3(&Reply::Map(vec![])), "(empty hash)\n");
        assert_eq!(tty3(&Reply::Set(vec![bulk("m")])), "1~ \"m\"\n");
        assert_eq!(tty3(&Reply::Set(vec![])), "(empty set)\n");
        assert_eq!(tty3(&Reply::Bool(false)), "(false)\n");
        assert_eq!(tty3(&Reply::Double(f64::INFINITY)), "(double) inf\n");
        assert_eq!(tty3(&Reply::Verbatim("# Server\r\nx:1".into())), "# Server\r\nx:1\n");
        let push = Reply::Push(vec![bulk("message"), bulk("c")]);
        assert_eq!(tty3(&push), "1) \"message\"\n2) \"c\"\n");
        assert_eq!(tty3(&Reply::Push(vec![])), "(empty push)\n");
        assert_eq!(tty2(&Reply::Push(vec![])), "(empty array)\n");
    }

    #[test]
    fn raw_output_for_info_and_client_list() {
        assert!(prints_raw(&["INFO"]));
        assert!(prints_raw(&["info", "memory"]));
        assert!(prints_raw(&["CLIENT", "list"]));
        assert!(!prints_raw(&["CLIENT", "ID"]));
        assert!(!prints_raw(&["GET", "info"]));
        assert!(!prints_raw::<&str>(&[]));
        let info = bulk("# Server\r\nredis_version:7\r\n");
        assert_eq!(format_for_command(&["INFO"], &info, false), "# Server\r\nredis_version:7\r\n");
        assert_eq!(format_for_command(&["GET", "k"], &info, false), "\"# Server\\r\\nredis_version:7\\r\\n\"\n");
        assert_eq!(format_raw(&arr(vec![bulk("a"), nil(), int(2)]), false), "a\n\n2");
        assert_eq!(format_raw(&err("ERR x"), false), "ERR x\n");
        assert_eq!(format_raw(&Reply::Map(vec![(bulk("k"), bulk("v"))]), true), "k v");
    }
}
