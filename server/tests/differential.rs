//! Differential test: the same seeded random sequence of string and key commands goes to the
//! real `vitrine` binary and to a real `redis-server` (Debian's 7.0), and every reply must
//! agree. Replies are parsed as RESP2 and compared as values; TTLs by class and within a
//! tolerance, key listings as sets.
//!
//! A failure names the seed and the command. Rerun one seed alone with
//! `DIFFERENTIAL_SEED=<seed> cargo test -p vitrine-server --test differential`, explore more
//! seeds with `DIFFERENTIAL_SEED=100..300`, and print every command and reply with
//! `DIFFERENTIAL_TRACE=1` (and `-- --nocapture`).
//!
//! Without `redis-server` on PATH the tests say so and pass, except under CI, where they fail.
//!
//! Deliberate differences, each avoided by the generator or normalized where noted:
//! - INFO and HELLO are not sent: Vitrine answers them with its own fields.
//! - SELECT is not sent: Vitrine has one database.
//! - OBJECT ENCODING is asked only right after a plain SET (see `set_then_encoding`).
//! - An error that quotes an argument holds its raw bytes in Redis; Vitrine's error texts
//!   are strings, so bytes that are not UTF-8 become U+FFFD. Errors are compared after the
//!   same lossy decoding (see `normalized`).
//! - Redis compares option names as C strings, so `NX\0junk` counts as NX there; Vitrine
//!   compares whole arguments. Option names are never sent with a NUL byte inside.
//! - SET with EXAT/PXAT in the past writes nothing in Vitrine, and in Redis 7.0 a key that
//!   has already expired, which DBSIZE counts until Redis's active expiry gets to it. The
//!   key is read right after, so lazy expiry removes it in both (see `expire_past`).
//! - Timing: GT/LT never compare two expiries set a moment apart (see `rel_ms`), absolute
//!   times are either far ahead or long past, and a key given a TTL of a few ms is touched
//!   right after a pause, so lazy expiry decides in both (see `short_expiry`).

mod common;

use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{RedisServer, Server};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// Seeds run by default, and random operations per seed (an operation is one command, or a
/// few for the composite ones such as SET then OBJECT ENCODING).
const SEEDS: std::ops::Range<u64> = 1..9;
const OPS_PER_SEED: usize = 400;

/// How far apart TTL and PTTL (and EXPIRETIME, PEXPIRETIME) may be between the two servers:
/// the same command reaches them a moment apart.
const TTL_TOLERANCE_S: i64 = 2;
const TTL_TOLERANCE_MS: i64 = 2_000;

/// The keys every command picks from: few, so commands collide, and some awkward (a space,
/// NUL and non-UTF-8 bytes, CR LF, the empty key, glob metacharacters).
const KEYS: [&[u8]; 8] = [b"a", b"key:1", b"key:22", b"two words", b"nul\x00byte", b"\xff\xfe\r\n", b"", b"h[e]*llo"];

/// Patterns for KEYS and SCAN MATCH, including the corners of Redis's glob syntax.
const PATTERNS: &[&[u8]] = &[
    b"*",
    b"a",
    b"key:*",
    b"key:?",
    b"key:[0-9]*",
    b"key:[2-1]*",
    b"*o*",
    b"[^k]*",
    b"h\\[e\\]\\*llo",
    b"h[e]*llo",
    b"*\x00*",
    b"\xff*",
    b"?",
    b"",
    b"**",
    b"*?",
    b"[a-z]",
    b"*[",
    b"[",
    b"\\",
    b"[]",
    b"[^]*",
    b"two\\ words",
    b"*\r\n",
];

#[test]
fn random_string_and_key_commands_match_redis() {
    let Some(redis) = RedisServer::start_or_skip("random_string_and_key_commands_match_redis") else {
        return;
    };
    let vitrine = Server::start(&[]);
    let seeds = match std::env::var("DIFFERENTIAL_SEED") {
        Ok(seeds) => parse_seeds(&seeds),
        Err(_) => SEEDS.collect(),
    };
    let mut peers = Peers::new(&vitrine, &redis);
    for seed in seeds {
        peers.begin(&format!("seed {seed}"));
        peers.call(&[b"FLUSHALL".to_vec()], Check::Exact);
        let mut gen = Gen::new(seed);
        for op in 0..OPS_PER_SEED {
            peers.op = op;
            for step in gen.op() {
                peers.run(step);
            }
        }
    }
}

/// `DIFFERENTIAL_SEED`: one seed (`17`) or a range (`100..200`), to rerun a failure or to
/// explore beyond the default seeds.
fn parse_seeds(text: &str) -> Vec<u64> {
    let number = |n: &str| n.trim().parse::<u64>().expect("DIFFERENTIAL_SEED is N or A..B");
    match text.split_once("..") {
        Some((a, b)) => (number(a)..number(b)).collect(),
        None => vec![number(text)],
    }
}

/// Fixed cases that the random test found, or that pin down a corner it may rarely reach.
#[test]
fn edge_cases_match_redis() {
    let Some(redis) = RedisServer::start_or_skip("edge_cases_match_redis") else {
        return;
    };
    let vitrine = Server::start(&[]);
    let mut peers = Peers::new(&vitrine, &redis);
    peers.begin("edge cases");
    let far = far_future_ms();
    let cases: Vec<Vec<Vec<u8>>> = vec![
        args!["FLUSHALL"],
        // Integer edges.
        args!["SET", "n", i64::MAX.to_string()],
        args!["INCR", "n"],
        args!["INCRBY", "n", "-1"],
        args!["DECRBY", "n", i64::MIN.to_string()],
        args!["INCRBYFLOAT", "n", "1.5"],
        args!["SET", "n", i64::MIN.to_string()],
        args!["DECR", "n"],
        args!["INCRBY", "n", i64::MAX.to_string()],
        args!["INCRBYFLOAT", "n", "-0.5"],
        args!["SET", "z", "-0"],
        args!["INCRBYFLOAT", "z", "-0"],
        args!["INCRBYFLOAT", "f", "0.1"],
        args!["INCRBYFLOAT", "f", "0.2"],
        args!["INCRBYFLOAT", "f", "1e2"],
        args!["INCRBYFLOAT", "f", "0x10"],
        args!["INCRBYFLOAT", "f", "inf"],
        // Expiry edges: overflow, far future, the past.
        args!["SET", "t", "v", "EX", "9223372036854775"],
        args!["SET", "t", "v", "PX", i64::MAX.to_string()],
        args!["SET", "t", "v", "EXAT", "9223372036854775"],
        args!["SET", "t", "v", "PXAT", far.to_string()],
        args!["PEXPIRETIME", "t"],
        args!["PEXPIREAT", "t", i64::MAX.to_string(), "GT"],
        args!["PEXPIRETIME", "t"],
        args!["EXPIRE", "t", "9223372036854775"],
        args!["EXPIRE", "t", "-9223372036854775"],
        args!["EXPIRE", "t", "-9223372036854776"],
        args!["EXPIREAT", "t", "1", "LT"],
        args!["EXISTS", "t"],
        args!["SET", "t", "v"],
        args!["EXPIRE", "t", "100", "GT"],
        args!["EXPIRE", "t", "100", "LT"],
        args!["TTL", "t"],
        args!["GETEX", "t", "PXAT", "1"],
        args!["EXISTS", "t"],
        // Ranges.
        args!["SET", "s", "Hello World"],
        args!["GETRANGE", "s", i64::MIN.to_string(), i64::MAX.to_string()],
        args!["GETRANGE", "s", "-1", "-5"],
        args!["SETRANGE", "s", "20", "!"],
        args!["GET", "s"],
        args!["SETRANGE", "missing", "5", ""],
        args!["EXISTS", "missing"],
        // Glob corners against the empty key and metacharacters.
        args!["MSET", "", "empty", "h[e]*llo", "meta", "[", "bracket", "\\", "backslash"],
        args!["KEYS", "**"],
        args!["KEYS", "*?"],
        args!["KEYS", "[[]"],
        args!["KEYS", "\\\\"],
        args!["KEYS", "[\\]"],
        args!["KEYS", "h\\[e\\]\\*llo"],
        args!["KEYS", "[^]*"],
        args!["KEYS", ""],
        // Errors quote arguments as C's printf does: up to a NUL byte, within 128 bytes, and
        // with CR/LF trimmed off the end of the text.
        args!["NOSUCH", "a\0b", "x".repeat(100), "y".repeat(100), "z"],
        args!["N".repeat(140), "a"],
        args!["EXPIRE", "n", "10", "F\0OO"],
        args!["EXPIRE", "n", "10", "a\rb\r\n"],
        args!["OBJECT", "EN\0C", "n"],
        args!["OBJECT", "e".repeat(200), "n"],
    ];
    for argv in cases {
        let check = match &argv[0][..] {
            b"KEYS" => Check::Unordered,
            b"TTL" | b"PTTL" | b"EXPIRETIME" | b"PEXPIRETIME" => Check::Ttl,
            _ => Check::Exact,
        };
        peers.call(&argv, check);
    }
    // SCAN MATCH goes through the same glob as KEYS (a lone "*" is every key, the empty one too).
    for pattern in ["*", "**", ""] {
        peers.run(Step::Scan(args!["MATCH", pattern, "COUNT", "3"]));
    }
}

// --- Talking to the servers ------------------------------------------------------------------

/// A RESP2 reply.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Resp {
    Status(Vec<u8>),
    Error(Vec<u8>),
    Int(i64),
    Bulk(Vec<u8>),
    NilBulk,
    Array(Vec<Resp>),
    NilArray,
}

impl fmt::Debug for Resp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Resp::Status(s) => write!(f, "+{}", s.escape_ascii()),
            Resp::Error(e) => write!(f, "-{}", e.escape_ascii()),
            Resp::Int(n) => write!(f, ":{n}"),
            Resp::Bulk(b) => write!(f, "\"{}\"", b.escape_ascii()),
            Resp::NilBulk => f.write_str("(nil)"),
            Resp::Array(items) => f.debug_list().entries(items).finish(),
            Resp::NilArray => f.write_str("(nil array)"),
        }
    }
}

/// One client connection: writes commands as multibulk arrays, reads one reply each.
struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    fn new(stream: TcpStream) -> Conn {
        Conn { reader: BufReader::new(stream.try_clone().expect("clone stream")), writer: stream }
    }

    fn call(&mut self, argv: &[Vec<u8>]) -> Result<Resp, String> {
        let mut out = format!("*{}\r\n", argv.len()).into_bytes();
        for a in argv {
            out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            out.extend_from_slice(a);
            out.extend_from_slice(b"\r\n");
        }
        self.writer.write_all(&out).map_err(|e| format!("write failed: {e}"))?;
        self.reply()
    }

    fn line(&mut self) -> Result<Vec<u8>, String> {
        let mut line = Vec::new();
        self.reader.read_until(b'\n', &mut line).map_err(|e| format!("read failed: {e}"))?;
        match line.strip_suffix(b"\r\n") {
            Some(body) if !body.is_empty() => Ok(body.to_vec()),
            _ if line.is_empty() => Err("connection closed".into()),
            _ => Err(format!("bad reply line {:?}", line.escape_ascii().to_string())),
        }
    }

    /// Reads exactly one reply, nested arrays included.
    fn reply(&mut self) -> Result<Resp, String> {
        let line = self.line()?;
        let (kind, rest) = (line[0], &line[1..]);
        let number = || -> Result<i64, String> {
            std::str::from_utf8(rest)
                .ok()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| format!("bad number in {:?}", line.escape_ascii().to_string()))
        };
        Ok(match kind {
            b'+' => Resp::Status(rest.to_vec()),
            b'-' => Resp::Error(rest.to_vec()),
            b':' => Resp::Int(number()?),
            b'$' => match usize::try_from(number()?) {
                Err(_) => Resp::NilBulk,
                Ok(len) => {
                    let mut body = vec![0; len + 2];
                    self.reader.read_exact(&mut body).map_err(|e| format!("read failed: {e}"))?;
                    if !body.ends_with(b"\r\n") {
                        return Err(format!("bulk of {len} bytes not followed by CRLF"));
                    }
                    body.truncate(len);
                    Resp::Bulk(body)
                }
            },
            b'*' => match usize::try_from(number()?) {
                Err(_) => Resp::NilArray,
                Ok(len) => Resp::Array((0..len).map(|_| self.reply()).collect::<Result<_, _>>()?),
            },
            _ => return Err(format!("unexpected reply {:?}", line.escape_ascii().to_string())),
        })
    }
}

/// How two replies to the same command are compared.
#[derive(Clone, Copy, Debug)]
enum Check {
    Exact,
    /// TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 and -1 exactly; otherwise both non-negative and
    /// within the tolerance of the command's unit.
    Ttl,
    /// KEYS: the same elements in any order.
    Unordered,
    /// RANDOMKEY: nil from both, or from each a key of the key set (they pick independently).
    RandomKey,
}

/// One thing to do: a command sent to both servers, a full SCAN iteration on each, a pause.
enum Step {
    Call(Vec<Vec<u8>>, Check),
    /// The arguments after the cursor.
    Scan(Vec<Vec<u8>>),
    Sleep(Duration),
}

/// Both servers, and what the report of a mismatch needs: where we are and what came before.
struct Peers {
    vitrine: Conn,
    redis: Conn,
    label: String,
    op: usize,
    calls: usize,
    history: VecDeque<String>,
}

impl Peers {
    fn new(vitrine: &Server, redis: &RedisServer) -> Peers {
        Peers {
            vitrine: Conn::new(vitrine.connect()),
            redis: Conn::new(redis.connect()),
            label: String::new(),
            op: 0,
            calls: 0,
            history: VecDeque::new(),
        }
    }

    fn begin(&mut self, label: &str) {
        self.label = label.to_string();
        self.op = 0;
        self.calls = 0;
        self.history.clear();
    }

    fn run(&mut self, step: Step) {
        match step {
            Step::Call(argv, check) => self.call(&argv, check),
            Step::Scan(opts) => self.scan(&opts),
            Step::Sleep(d) => std::thread::sleep(d),
        }
    }

    fn call(&mut self, argv: &[Vec<u8>], check: Check) {
        self.calls += 1;
        let v = self.vitrine.call(argv).unwrap_or_else(|e| self.fail(argv, &format!("vitrine: {e}")));
        let r = self.redis.call(argv).unwrap_or_else(|e| self.fail(argv, &format!("redis: {e}")));
        if !agree(check, argv, &v, &r) {
            self.fail(argv, &format!("replies differ ({check:?})\n  vitrine: {v:?}\n  redis:   {r:?}"));
        }
        if std::env::var_os("DIFFERENTIAL_TRACE").is_some() {
            eprintln!("TRACE {} -> {v:?}", show_argv(argv));
        }
        self.remember(format!("{} -> {v:?} / {r:?}", show_argv(argv)));
    }

    /// A whole SCAN iteration on each server (each follows its own cursors, which differ by
    /// design); the keys returned must be the same set. Errors must be the same error.
    fn scan(&mut self, opts: &[Vec<u8>]) {
        self.calls += 1;
        let mut argv = args!["SCAN", "0"];
        argv.extend(opts.iter().cloned());
        let v = scan_all(&mut self.vitrine, &argv).unwrap_or_else(|e| self.fail(&argv, &format!("vitrine: {e}")));
        let r = scan_all(&mut self.redis, &argv).unwrap_or_else(|e| self.fail(&argv, &format!("redis: {e}")));
        if v != r {
            self.fail(&argv, &format!("SCAN iterations differ\n  vitrine: {v:?}\n  redis:   {r:?}"));
        }
        self.remember(format!("{} (iterated) -> {v:?}", show_argv(&argv)));
    }

    fn remember(&mut self, line: String) {
        if self.history.len() == 12 {
            self.history.pop_front();
        }
        self.history.push_back(line);
    }

    fn fail(&self, argv: &[Vec<u8>], what: &str) -> ! {
        let history: Vec<&str> = self.history.iter().map(|s| s.as_str()).collect();
        panic!(
            "{}, operation {}, command {}: {}\n{what}\nprevious commands (vitrine / redis):\n  {}",
            self.label,
            self.op,
            self.calls,
            show_argv(argv),
            history.join("\n  ")
        );
    }
}

/// Iterates SCAN from cursor 0 until the server answers cursor 0; the sorted, deduplicated
/// keys, or the reply that was not a SCAN page (an error is compared as it is).
fn scan_all(conn: &mut Conn, argv: &[Vec<u8>]) -> Result<Result<Vec<Vec<u8>>, Resp>, String> {
    let mut argv = argv.to_vec();
    let mut keys = Vec::new();
    for _ in 0..10_000 {
        let reply = conn.call(&argv)?;
        let Resp::Array(page) = &reply else { return Ok(Err(reply)) };
        let [Resp::Bulk(cursor), Resp::Array(items)] = &page[..] else { return Ok(Err(reply)) };
        for item in items {
            let Resp::Bulk(key) = item else { return Ok(Err(reply)) };
            keys.push(key.clone());
        }
        if cursor == b"0" {
            keys.sort();
            keys.dedup();
            return Ok(Ok(keys));
        }
        argv[1] = cursor.clone();
    }
    Err("SCAN did not finish in 10000 calls".into())
}

fn agree(check: Check, argv: &[Vec<u8>], v: &Resp, r: &Resp) -> bool {
    let (v, r) = (&normalized(v), &normalized(r));
    match (check, v, r) {
        (Check::Exact, _, _) => v == r,
        (Check::Ttl, Resp::Int(a), Resp::Int(b)) => {
            let tolerance = if argv[0].eq_ignore_ascii_case(b"TTL") || argv[0].eq_ignore_ascii_case(b"EXPIRETIME") {
                TTL_TOLERANCE_S
            } else {
                TTL_TOLERANCE_MS
            };
            if *a < 0 || *b < 0 {
                a == b
            } else {
                a.abs_diff(*b) <= tolerance as u64
            }
        }
        (Check::Unordered, Resp::Array(a), Resp::Array(b)) => {
            let (mut a, mut b) = (a.clone(), b.clone());
            a.sort();
            b.sort();
            a == b
        }
        (Check::RandomKey, Resp::Bulk(a), Resp::Bulk(b)) => KEYS.contains(&&a[..]) && KEYS.contains(&&b[..]),
        _ => v == r,
    }
}

/// Deliberate difference: an error that quotes an argument (unknown command, unknown option)
/// holds its bytes as they are in Redis, while Vitrine's error texts are strings and bytes
/// that are not UTF-8 become U+FFFD. Which bytes are quoted (up to a NUL, within 128 bytes)
/// is the same, so errors are compared after the same lossy decoding.
fn normalized(reply: &Resp) -> Resp {
    match reply {
        Resp::Error(e) => Resp::Error(String::from_utf8_lossy(e).into_owned().into_bytes()),
        other => other.clone(),
    }
}

fn show_argv(argv: &[Vec<u8>]) -> String {
    argv.iter().map(|a| format!("\"{}\"", a.escape_ascii())).collect::<Vec<_>>().join(" ")
}

// --- Generating commands ---------------------------------------------------------------------

/// Anything that can be a command argument.
trait Arg {
    fn arg(self) -> Vec<u8>;
}
impl Arg for &str {
    fn arg(self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }
}
impl Arg for String {
    fn arg(self) -> Vec<u8> {
        self.into_bytes()
    }
}
impl Arg for &[u8] {
    fn arg(self) -> Vec<u8> {
        self.to_vec()
    }
}
impl Arg for Vec<u8> {
    fn arg(self) -> Vec<u8> {
        self
    }
}
impl Arg for &Vec<u8> {
    fn arg(self) -> Vec<u8> {
        self.clone()
    }
}

/// An argv from mixed strings and bytes.
macro_rules! args {
    ($($a:expr),* $(,)?) => { vec![$(Arg::arg($a)),*] };
}
use args;

/// Edge integers, and strings that look like integers but are not ones to Redis.
const EDGE_INTS: &[&str] = &[
    "9223372036854775807",
    "9223372036854775806",
    "-9223372036854775808",
    "-9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "0",
    "-1",
    "-0",
    "007",
    "+5",
    " 5",
    "5 ",
    "1.5",
    "0x10",
    "1e3",
    "",
    "abc",
];

/// Numbers as INCRBYFLOAT reads them.
const FLOATS: &[&str] = &[
    "1",
    "-1",
    "0.1",
    "0.2",
    "-0.3",
    "10.50",
    "1e2",
    "5.0e3",
    "2.0e-1",
    "-0",
    "0",
    "3.14159",
    "0x10",
    "1E3",
    "+2.5",
    "1e20",
    "-1.5e17",
    "123456789.123456789",
    "0.000001",
    "1e-10",
    ".5",
    "5.",
];

/// What INCRBYFLOAT refuses (not a number, or an infinite result).
const BAD_FLOATS: &[&str] = &["inf", "-inf", "abc", "", "1e5000", " 1", "1 ", "1,5", "nan", "1e", "--1"];

/// Expiry times that are invalid, not integers, or that overflow once converted to ms or
/// added to now (for the EXPIRE family, zero and negative times delete the key instead).
const BAD_EXPIRES: &[&str] =
    &["0", "-1", "-100", "abc", "1.5", "", "9223372036854775807", "9223372036854775808", "9223372036854775", " 10"];

/// An operation: from a random key and value, the steps to run.
type Op = fn(&mut Gen, Vec<u8>, Vec<u8>) -> Vec<Step>;

/// Every operation the random test runs, with its relative weight.
const OPS: &[(u32, Op)] = &[
    (60, |g, k, _| g.exact("GET", args![k])),
    (110, |g, k, v| g.set(k, v)),
    (15, |g, k, v| g.set_invalid(k, v)),
    (15, |g, k, v| g.exact("SETNX", args![k, v])),
    (20, |g, k, v| {
        let (name, time) = if g.chance(50) {
            ("SETEX", (g.rel_ms() / 1000).to_string().into_bytes())
        } else {
            ("PSETEX", g.rel_ms().to_string().into_bytes())
        };
        let time = if g.chance(20) { g.bad_expire(name).into() } else { time };
        g.exact(name, args![k, time, v])
    }),
    (20, |g, _, _| {
        let keys = g.keys(5);
        g.exact("MGET", keys)
    }),
    (25, |g, _, _| {
        let name = if g.chance(50) { "MSET" } else { "MSETNX" };
        let pairs = g.rng.gen_range(1..=4);
        let mut rest = Vec::new();
        for _ in 0..pairs {
            rest.push(g.key());
            rest.push(g.value());
        }
        if g.chance(5) {
            rest.pop(); // an odd count is an arity error
        }
        g.exact(name, rest)
    }),
    (15, |g, k, v| g.exact("GETSET", args![k, v])),
    (15, |g, k, _| g.exact("GETDEL", args![k])),
    (30, |g, k, _| g.getex(k)),
    (30, |g, k, v| g.exact("APPEND", args![k, v])),
    (15, |g, k, _| g.exact("STRLEN", args![k])),
    (20, |g, k, _| {
        let (start, end) = (g.int(-20..20), g.int(-20..20));
        g.exact("GETRANGE", args![k, start, end])
    }),
    (20, |g, k, v| {
        // Past proto-max-bulk-len (512 MB) is refused before anything is allocated.
        let offset = match g.rng.gen_range(0..20) {
            0 | 1 => g.int(-5..0),
            2 => g.pick(&["536870912", "9223372036854775807"]).into(),
            _ => g.rng.gen_range(0..20).to_string().into_bytes(),
        };
        let v = if g.chance(15) { Vec::new() } else { v };
        g.exact("SETRANGE", args![k, offset, v])
    }),
    (25, |g, k, _| g.exact("INCR", args![k])),
    (15, |g, k, _| g.exact("DECR", args![k])),
    (25, |g, k, _| {
        let by = g.int(-100..100);
        g.exact("INCRBY", args![k, by])
    }),
    (15, |g, k, _| {
        let by = g.int(-100..100);
        g.exact("DECRBY", args![k, by])
    }),
    (30, |g, k, _| {
        let by = g.float();
        g.exact("INCRBYFLOAT", args![k, by])
    }),
    (40, |g, _, _| {
        let name = g.pick(&["DEL", "UNLINK", "EXISTS", "EXISTS", "TOUCH"]);
        let keys = g.keys(4);
        g.exact(name, keys)
    }),
    (15, |g, k, _| g.exact("TYPE", args![k])),
    (70, |g, k, _| g.expire(k)),
    (60, |g, k, _| {
        let name = g.pick(&["TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"]);
        g.call(name, args![k], Check::Ttl)
    }),
    (15, |g, k, _| g.exact("PERSIST", args![k])),
    (20, |g, k, _| {
        let name = if g.chance(50) { "RENAME" } else { "RENAMENX" };
        let to = g.key();
        g.exact(name, args![k, to])
    }),
    (10, |g, _, _| g.exact("DBSIZE", args![])),
    (10, |g, _, _| g.call("RANDOMKEY", args![], Check::RandomKey)),
    (20, |g, _, _| {
        let pattern = g.pick(PATTERNS);
        g.call("KEYS", args![pattern], Check::Unordered)
    }),
    (20, |g, _, _| g.scan()),
    (10, |g, _, v| match g.rng.gen_range(0..3) {
        0 => g.exact("ECHO", args![v]),
        1 => g.exact("PING", args![]),
        _ => g.exact("PING", args![v]),
    }),
    (30, |g, k, v| g.set_then_encoding(k, v)),
    (40, |g, k, v| g.short_expiry(k, v)),
    (25, |g, k, v| g.expire_past(k, v)),
    (40, |g, _, _| g.wrong_arity()),
    (10, |g, k, _| g.object_invalid(k)),
    (10, |g, _, _| g.unknown_command()),
];

/// A unix time in ms about 11 days ahead: later than any relative expiry the tests set.
fn far_future_ms() -> i64 {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).expect("clock after 1970").as_millis() as i64;
    now + 1_000_000_000
}

struct Gen {
    rng: StdRng,
    /// Slots of 100 s taken by relative expiries this seed (see `rel_ms`).
    used_slots: HashSet<i64>,
    /// A unix time (ms) later than any relative expiry can reach: EXAT/PXAT values start here.
    far_ms: i64,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen { rng: StdRng::seed_from_u64(seed), used_slots: HashSet::new(), far_ms: far_future_ms() }
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.rng.gen_range(0..100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        *items.choose(&mut self.rng).expect("non-empty")
    }

    fn key(&mut self) -> Vec<u8> {
        self.pick(&KEYS).to_vec()
    }

    /// 1 to `max` keys, repeats allowed.
    fn keys(&mut self, max: usize) -> Vec<Vec<u8>> {
        let n = self.rng.gen_range(1..=max);
        (0..n).map(|_| self.key()).collect()
    }

    /// A value to store: text, integers (edges too), decimals, long text (past the 44 bytes
    /// of an embedded string), binary.
    fn value(&mut self) -> Vec<u8> {
        match self.rng.gen_range(0..100) {
            0..=19 => {
                let len = self.rng.gen_range(0..10);
                (0..len).map(|_| self.pick(b"abcxyz XYZ019-_:")).collect()
            }
            20..=54 => self.rng.gen_range(-1000..1000).to_string().into_bytes(),
            55..=64 => self.pick(EDGE_INTS).into(),
            65..=74 => self.float(),
            75..=84 => {
                let len = self.rng.gen_range(40..100);
                (0..len).map(|_| self.pick(b"abcdefgh")).collect()
            }
            _ => {
                let len = self.rng.gen_range(0..12);
                (0..len).map(|_| self.pick(b"\x00\x01\r\n\xff\x80 \"'\\a9")).collect()
            }
        }
    }

    /// An integer argument: mostly small, sometimes an edge or not an integer at all.
    fn int(&mut self, small: std::ops::Range<i64>) -> Vec<u8> {
        if self.chance(85) {
            self.rng.gen_range(small).to_string().into_bytes()
        } else {
            self.pick(EDGE_INTS).into()
        }
    }

    /// A number for INCRBYFLOAT: mostly a simple decimal, sometimes one written otherwise,
    /// now and then one it refuses.
    fn float(&mut self) -> Vec<u8> {
        match self.rng.gen_range(0..10) {
            0..=6 => {
                let cents: i64 = self.rng.gen_range(-10_000..10_000);
                let sign = if cents < 0 { "-" } else { "" };
                format!("{sign}{}.{:02}", cents.abs() / 100, cents.abs() % 100).into_bytes()
            }
            7 | 8 => self.pick(FLOATS).into(),
            _ => self.pick(BAD_FLOATS).into(),
        }
    }

    /// A relative expiry in milliseconds, 100 s to about 6 days. Each falls in its own
    /// 100 s slot, so any two differ by at least 90 s: GT and LT then never compare two
    /// expiries so close that the servers (which see each command a moment apart) could
    /// disagree. The whole test is far shorter than 90 s.
    fn rel_ms(&mut self) -> i64 {
        loop {
            let slot = self.rng.gen_range(1..=5_000);
            if self.used_slots.insert(slot) {
                return slot * 100_000 + self.rng.gen_range(0..10_000);
            }
        }
    }

    /// An absolute unix time in ms, beyond every relative expiry (so no race either).
    fn abs_ms(&mut self) -> i64 {
        self.far_ms + self.rng.gen_range(0..1_000_000_000)
    }

    /// An expiry clause for SET or GETEX: `EX s`, `PX ms`, `EXAT s` or `PXAT ms`.
    fn expiry(&mut self) -> Vec<Vec<u8>> {
        let unit = self.pick(&["EX", "PX", "EXAT", "PXAT"]);
        args![unit, self.expiry_time(unit)]
    }

    /// A valid time for an expiry option: relative for EX and PX, far ahead for EXAT, PXAT.
    fn expiry_time(&mut self, unit: &str) -> String {
        match unit {
            "EX" => self.rel_ms() / 1000,
            "PX" => self.rel_ms(),
            "EXAT" => self.abs_ms() / 1000,
            _ => self.abs_ms(),
        }
        .to_string()
    }

    /// One of `BAD_EXPIRES` for the command or option `unit`. A relative time in ms is added
    /// to now as it is, so 9223372036854775 is valid there, and two such expiries a moment
    /// apart could compare differently in the two servers under GT/LT: not for those.
    fn bad_expire(&mut self, unit: &str) -> &'static str {
        loop {
            let bad = self.pick(BAD_EXPIRES);
            if !(matches!(unit, "PX" | "PSETEX" | "PEXPIRE") && bad == "9223372036854775") {
                return bad;
            }
        }
    }

    /// Upper, lower or mixed case, as clients may send names and options.
    fn casing(&mut self, word: &str) -> Vec<u8> {
        match self.rng.gen_range(0..10) {
            0 => word.to_ascii_lowercase().into_bytes(),
            1 => word.bytes().map(|c| if self.rng.gen_bool(0.5) { c.to_ascii_lowercase() } else { c }).collect(),
            _ => word.as_bytes().to_vec(),
        }
    }

    fn call(&mut self, name: &str, rest: Vec<Vec<u8>>, check: Check) -> Vec<Step> {
        let mut argv = vec![self.casing(name)];
        argv.extend(rest);
        vec![Step::Call(argv, check)]
    }

    fn exact(&mut self, name: &str, rest: Vec<Vec<u8>>) -> Vec<Step> {
        self.call(name, rest, Check::Exact)
    }

    /// One random operation, picked by weight from `OPS`.
    fn op(&mut self) -> Vec<Step> {
        let (k, v) = (self.key(), self.value());
        let total: u32 = OPS.iter().map(|(w, _)| w).sum();
        let mut pick = self.rng.gen_range(0..total);
        for (weight, op) in OPS {
            if pick < *weight {
                return op(self, k, v);
            }
            pick -= weight;
        }
        unreachable!("weights sum to {total}")
    }

    /// SET with a random, valid mix of NX/XX, GET and one kind of expiry or KEEPTTL, in any
    /// order (repeating an option is allowed).
    fn set(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Step> {
        let mut opts: Vec<Vec<Vec<u8>>> = Vec::new();
        match self.rng.gen_range(0..4) {
            0 => opts.push(vec![self.casing("NX")]),
            1 => opts.push(vec![self.casing("XX")]),
            _ => {}
        }
        if self.chance(30) {
            opts.push(vec![self.casing("GET")]);
        }
        match self.rng.gen_range(0..6) {
            0 | 1 => {}
            2 => opts.push(vec![self.casing("KEEPTTL")]),
            _ => {
                let mut e = self.expiry();
                e[0] = self.casing(&String::from_utf8_lossy(&e[0]));
                opts.push(e);
            }
        }
        // The same option twice is still valid.
        if self.chance(5) {
            if let Some(again) = opts.last().cloned() {
                opts.push(again);
            }
        }
        opts.shuffle(&mut self.rng);
        let mut rest = args![k, v];
        rest.extend(opts.into_iter().flatten());
        self.exact("SET", rest)
    }

    /// SET with options Redis refuses: conflicts, a missing or invalid time, unknown words.
    fn set_invalid(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Step> {
        let ex = (self.rel_ms() / 1000).to_string();
        let unit = self.pick(&["EX", "PX", "EXAT", "PXAT"]);
        let bad = self.bad_expire(unit);
        let opts: Vec<Vec<u8>> = match self.rng.gen_range(0..10) {
            0 => args!["NX", "XX"],
            1 => args!["XX", "GET", "NX"],
            2 => args!["EX", ex.clone(), "PX", ex],
            3 => args!["KEEPTTL", "EX", ex],
            4 => args!["PXAT", ex, "KEEPTTL"],
            5 => args![unit],
            6 => args!["GET", unit],
            7 => args![unit, bad],
            8 => args!["PERSIST"],
            _ => args![self.pick(&["FOO", "EXX", "NXX", "KEEP", "GETT"])],
        };
        let mut rest = args![k, v];
        rest.extend(opts);
        self.exact("SET", rest)
    }

    fn getex(&mut self, k: Vec<u8>) -> Vec<Step> {
        let opts = match self.rng.gen_range(0..10) {
            0..=1 => args![],
            2..=4 => self.expiry(),
            5 => {
                // The same kind of expiry twice is allowed; the last one counts.
                let unit = self.pick(&["EX", "PX", "EXAT", "PXAT"]);
                args![unit, self.expiry_time(unit), unit, self.expiry_time(unit)]
            }
            6 => args![self.casing("PERSIST")],
            7 => {
                let unit = self.pick(&["EX", "PX", "EXAT", "PXAT"]);
                args![unit, self.bad_expire(unit)]
            }
            8 => {
                let mut e = self.expiry();
                e.push(self.casing("PERSIST"));
                e.shuffle(&mut self.rng);
                e
            }
            _ => args![self.pick(&["NX", "XX", "GET", "KEEPTTL", "FOO", "EX"])],
        };
        let mut rest = args![k];
        rest.extend(opts);
        self.exact("GETEX", rest)
    }

    /// EXPIRE, PEXPIRE, EXPIREAT or PEXPIREAT with NX/XX/GT/LT (valid or not), and now and
    /// then a time that is invalid or overflows.
    fn expire(&mut self, k: Vec<u8>) -> Vec<Step> {
        let (name, time) = match self.rng.gen_range(0..4) {
            0 => ("EXPIRE", (self.rel_ms() / 1000).to_string()),
            1 => ("PEXPIRE", self.rel_ms().to_string()),
            2 => ("EXPIREAT", (self.abs_ms() / 1000).to_string()),
            _ => ("PEXPIREAT", self.abs_ms().to_string()),
        };
        let time: Vec<u8> = if self.chance(10) { self.bad_expire(name).into() } else { time.into_bytes() };
        let mut rest = args![k, time];
        let flags = self.rng.gen_range(0..3).min(self.rng.gen_range(0..3));
        for _ in 0..flags {
            let flag = self.pick(&["NX", "XX", "GT", "LT", "NX", "XX", "GT", "LT", "FOO", "?"]);
            // "?" stands for any value: an unknown option, quoted in the error.
            let flag = if flag == "?" { self.value() } else { self.casing(flag) };
            rest.push(flag);
        }
        self.exact(name, rest)
    }

    /// Expiring a key at once: a time at or before now deletes it (and answers 1).
    fn expire_past(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Step> {
        let past_ms = self.far_ms - 1_000_000_000 - self.rng.gen_range(1_000_000..1_000_000_000);
        let (name, time) = match self.rng.gen_range(0..7) {
            0 => ("EXPIRE", "-1".to_string()),
            1 => ("PEXPIRE", "0".to_string()),
            2 => ("EXPIREAT", (past_ms / 1000).to_string()),
            3 => ("PEXPIREAT", past_ms.to_string()),
            4 => ("EXPIREAT", "1".to_string()),
            5 => {
                // GETEX to an absolute time in the past deletes the key too.
                let unit = if self.chance(50) { "EXAT" } else { "PXAT" };
                return self.exact("GETEX", args![k, unit, "1"]);
            }
            _ => {
                // SET to a time in the past: Vitrine writes nothing, Redis 7.0 writes a key
                // that has already expired, which DBSIZE counts until Redis's active expiry
                // (on its own timer) or an access removes it. A deliberate difference: the
                // key is read at once, so lazy expiry removes it in Redis too.
                let (unit, time) = if self.chance(50) { ("EXAT", past_ms / 1000) } else { ("PXAT", past_ms) };
                let mut rest = args![&k, v, unit, time.to_string()];
                if self.chance(40) {
                    rest.push(self.casing("GET"));
                }
                if self.chance(30) {
                    let cond = self.pick(&["NX", "XX"]);
                    rest.push(self.casing(cond));
                }
                let mut steps = self.exact("SET", rest);
                let read = self.pick(&["GET", "EXISTS", "TTL", "STRLEN"]);
                steps.extend(self.exact(read, args![k]));
                return steps;
            }
        };
        let mut rest = args![k, time];
        if self.chance(40) {
            let flag = self.pick(&["NX", "XX", "GT", "LT"]);
            rest.push(self.casing(flag));
        }
        self.exact(name, rest)
    }

    /// A TTL of a few milliseconds, a pause, then a command on the key: lazy expiry in both.
    /// The key is always touched right after the pause, so neither server can still count
    /// it (DBSIZE counts keys that expired but were not looked at yet, in Redis and here).
    fn short_expiry(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Step> {
        let ms = self.rng.gen_range(1..=3).to_string();
        let mut steps = match self.rng.gen_range(0..5) {
            0 => self.exact("SET", args![&k, v, "PX", ms]),
            1 => self.exact("SET", args![&k, v, "PX", ms, "GET"]),
            2 => self.exact("PSETEX", args![&k, ms, v]),
            3 => self.exact("PEXPIRE", args![&k, ms]),
            _ => self.exact("GETEX", args![&k, "PX", ms]),
        };
        steps.push(Step::Sleep(Duration::from_millis(5)));
        let other = self.key();
        let read: Vec<Vec<u8>> = match self.rng.gen_range(0..14) {
            0 => args!["GET", k],
            1 => args!["EXISTS", k],
            2 => args!["TTL", k],
            3 => args!["PTTL", k],
            4 => args!["TYPE", k],
            5 => args!["STRLEN", k],
            6 => args!["APPEND", k, "x"],
            7 => args!["INCR", k],
            8 => args!["SETNX", k, "x"],
            9 => args!["DEL", k],
            10 => args!["PERSIST", k],
            11 => args!["RENAME", k, other],
            12 => args!["GETDEL", k],
            _ => args!["MGET", k, other],
        };
        // By now the key is gone in both, so even TTL and PTTL must agree exactly.
        steps.push(Step::Call(read, Check::Exact));
        steps
    }

    /// SET, then OBJECT ENCODING of the value it just wrote. Only right after SET: Redis
    /// re-encodes a value as `raw` once APPEND or SETRANGE changes it in place, and INCRBYFLOAT
    /// stores `embstr`, while Vitrine derives the encoding from the content, as a fresh SET
    /// would. That is a deliberate difference (one representation instead of three).
    fn set_then_encoding(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Step> {
        let mut steps = self.exact("SET", args![&k, v]);
        steps.extend(self.exact("OBJECT", args!["ENCODING", k]));
        steps
    }

    /// A full SCAN iteration with random MATCH, COUNT and TYPE, or an invalid SCAN.
    fn scan(&mut self) -> Vec<Step> {
        if self.chance(20) {
            let rest = match self.rng.gen_range(0..8) {
                0 => args!["abc"],
                1 => args!["18446744073709551616"],
                2 => args![" 1"],
                3 => args!["0", "COUNT", "0"],
                4 => args!["0", "COUNT", "abc"],
                5 => args!["0", "MATCH"],
                6 => args!["0", "FOO", "bar"],
                _ => args!["0x10"],
            };
            return self.exact("SCAN", rest);
        }
        let mut opts = Vec::new();
        if self.chance(60) {
            opts.push(args!["MATCH", self.pick(PATTERNS)]);
        }
        if self.chance(60) {
            let count = if self.chance(90) { self.rng.gen_range(1..20) } else { i64::MAX };
            opts.push(args!["COUNT", count.to_string()]);
        }
        if self.chance(20) {
            opts.push(args!["TYPE", self.pick(&["string", "STRING", "list", "nosuch"])]);
        }
        opts.shuffle(&mut self.rng);
        vec![Step::Scan(opts.into_iter().flatten().collect())]
    }

    /// A command with too few (or, for fixed arities, too many) arguments.
    fn wrong_arity(&mut self) -> Vec<Step> {
        // Redis 7.0's arities: positive is exact, negative is a minimum.
        const ARITY: &[(&str, i32)] = &[
            ("GET", 2),
            ("SET", -3),
            ("SETNX", 3),
            ("SETEX", 4),
            ("PSETEX", 4),
            ("MGET", -2),
            ("MSET", -3),
            ("MSETNX", -3),
            ("GETSET", 3),
            ("GETDEL", 2),
            ("GETEX", -2),
            ("APPEND", 3),
            ("STRLEN", 2),
            ("GETRANGE", 4),
            ("SETRANGE", 4),
            ("INCR", 2),
            ("DECR", 2),
            ("INCRBY", 3),
            ("DECRBY", 3),
            ("INCRBYFLOAT", 3),
            ("DEL", -2),
            ("UNLINK", -2),
            ("EXISTS", -2),
            ("TYPE", 2),
            ("EXPIRE", -3),
            ("PEXPIRE", -3),
            ("EXPIREAT", -3),
            ("PEXPIREAT", -3),
            ("TTL", 2),
            ("PTTL", 2),
            ("EXPIRETIME", 2),
            ("PEXPIRETIME", 2),
            ("PERSIST", 2),
            ("RENAME", 3),
            ("RENAMENX", 3),
            ("KEYS", 2),
            ("SCAN", -2),
            ("RANDOMKEY", 1),
            ("DBSIZE", 1),
            ("TOUCH", -2),
            ("OBJECT", -2),
            ("ECHO", 2),
            ("PING", -1),
        ];
        let (name, arity) = self.pick(ARITY);
        let argc = match arity {
            // PING takes at most one argument, checked by the command itself.
            -1 => 3,
            n if n < 0 => self.rng.gen_range(1..-n),
            n if n == 1 || self.chance(50) => n + 1,
            n => n - 1,
        };
        let rest = (1..argc).map(|_| self.key()).collect();
        self.exact(name, rest)
    }

    fn object_invalid(&mut self, k: Vec<u8>) -> Vec<Step> {
        let rest = match self.rng.gen_range(0..5) {
            0 => args!["ENCODING"],
            1 => args!["ENCODING", &k, &k],
            2 => args![self.pick(&["FOO", "encodings", "FREQS"]), k],
            3 => args![self.value(), k],
            _ => args!["NOSUCH"],
        };
        self.exact("OBJECT", rest)
    }

    /// A command neither server knows, with some arguments: the error quotes them.
    fn unknown_command(&mut self) -> Vec<Step> {
        let name = self.pick(&["NOSUCH", "GETT", "set2", "FooBar"]);
        let n = self.rng.gen_range(0..4);
        let rest = (0..n).map(|_| self.value()).collect();
        // Not `exact`: the name keeps the case it is sent with.
        let mut argv = args![name];
        argv.extend::<Vec<Vec<u8>>>(rest);
        vec![Step::Call(argv, Check::Exact)]
    }
}
