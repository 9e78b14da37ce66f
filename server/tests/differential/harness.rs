//! The harness every family shares: both servers, one RESP2 client each, how replies are
//! compared, and the seeded generator with the keys, values, numbers and times all families draw.

use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::common::{RedisServer, Server};
use crate::hashes_sets::same_sample;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// Seeds run by default, and random operations per seed (an operation is one command, or a
/// few for the composite ones such as SET then OBJECT ENCODING).
pub const SEEDS: std::ops::Range<u64> = 1..9;
pub const OPS_PER_SEED: usize = 400;

/// How far apart TTL and PTTL (and EXPIRETIME, PEXPIRETIME) may be between the two servers:
/// the same command reaches them a moment apart.
const TTL_TOLERANCE_S: i64 = 2;
const TTL_TOLERANCE_MS: i64 = 2_000;

/// The keys every command picks from: few, so commands collide, and some awkward (a space,
/// NUL and non-UTF-8 bytes, CR LF, the empty key, glob metacharacters).
pub const KEYS: [&[u8]; 8] =
    [b"a", b"key:1", b"key:22", b"two words", b"nul\x00byte", b"\xff\xfe\r\n", b"", b"h[e]*llo"];

/// The seeds a random test runs: `DIFFERENTIAL_SEED` when set, else `SEEDS`.
pub fn seeds() -> Vec<u64> {
    match std::env::var("DIFFERENTIAL_SEED") {
        Ok(seeds) => parse_seeds(&seeds),
        Err(_) => SEEDS.collect(),
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

// --- Talking to the servers ------------------------------------------------------------------

/// A RESP2 reply.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Resp {
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
pub struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    pub fn new(stream: TcpStream) -> Conn {
        Conn { reader: BufReader::new(stream.try_clone().expect("clone stream")), writer: stream }
    }

    pub fn call(&mut self, argv: &[Vec<u8>]) -> Result<Resp, String> {
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
pub enum Check {
    Exact,
    /// TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 and -1 exactly; otherwise both non-negative and
    /// within the tolerance of the command's unit.
    Ttl,
    /// KEYS: the same elements in any order.
    Unordered,
    /// RANDOMKEY: nil from both, or from each a key of the key set (they pick independently).
    RandomKey,
    /// A per-key SCAN answered in one page (ZSCAN with a large COUNT): the same cursor and
    /// the same (element, value) pairs in any order.
    ScanPairs,
    /// SSCAN answered in one page: the same cursor and the same members in any order.
    ScanMembers,
    /// HGETALL: the same (field, value) pairs in any order.
    UnorderedPairs,
    /// SRANDMEMBER, SPOP, HRANDFIELD: the same size, each element one that could be there.
    Sample,
    /// HRANDFIELD WITHVALUES: as `Sample`, fields checked, values not.
    SamplePairs,
    /// COMMAND INFO: see `same_command_info` for what is compared.
    CommandInfo,
    /// Replies whose numbers and texts are measurements (SLOWLOG GET, LATENCY HISTOGRAM):
    /// the same shape (types, array lengths), statuses and errors; integers and bulk strings
    /// may differ.
    Shape,
}

/// One thing to do: a command sent to both servers, a full SCAN iteration on each, a pause.
pub enum Step {
    Call(Vec<Vec<u8>>, Check),
    /// The arguments after the cursor.
    Scan(Vec<Vec<u8>>),
    Sleep(Duration),
}

/// An operation of a family's random test: the steps it runs.
pub type FamilyOp = fn(&mut Gen) -> Vec<Step>;

/// A family's random test: for each seed, FLUSHALL and the family's `fixtures`, then
/// `OPS_PER_SEED` operations, each picked by weight from `ops`.
pub fn run_family(peers: &mut Peers, family: &str, fixtures: FamilyOp, ops: &[(u32, FamilyOp)]) {
    for seed in seeds() {
        peers.begin(&format!("{family}, seed {seed}"));
        peers.run(Step::Call(args!["FLUSHALL"], Check::Exact));
        let mut gen = Gen::new(seed);
        for step in fixtures(&mut gen) {
            peers.run(step);
        }
        for n in 0..OPS_PER_SEED {
            peers.op = n;
            let op = gen.weighted(ops);
            for step in op(&mut gen) {
                peers.run(step);
            }
        }
    }
}

/// A fresh `redis-server` and `vitrine`, one pair per test, stopped when dropped.
pub struct Servers {
    redis: RedisServer,
    vitrine: Server,
}

impl Servers {
    /// Both servers, or `None` (after saying why) where `redis-server` is missing outside CI.
    pub fn start_or_skip(test: &str) -> Option<Servers> {
        let redis = RedisServer::start_or_skip(test)?;
        Some(Servers { redis, vitrine: Server::start(&[]) })
    }

    /// A new raw connection to each server (vitrine's, redis-server's), for tests that
    /// compare bytes (RESP3, pushes) rather than parsed RESP2 replies.
    pub fn raw_pair(&self) -> (TcpStream, TcpStream) {
        (self.vitrine.connect(), self.redis.connect())
    }

    /// A new client connection to each server.
    pub fn peers(&self) -> Peers {
        Peers::new(&self.vitrine, &self.redis)
    }
}

/// Both servers, and what the report of a mismatch needs: where we are and what came before.
pub struct Peers {
    pub vitrine: Conn,
    pub redis: Conn,
    label: String,
    pub op: usize,
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

    pub fn begin(&mut self, label: &str) {
        self.label = label.to_string();
        self.op = 0;
        self.calls = 0;
        self.history.clear();
    }

    pub fn run(&mut self, step: Step) {
        match step {
            Step::Call(argv, check) => self.call(&argv, check),
            Step::Scan(opts) => self.scan(&opts),
            Step::Sleep(d) => std::thread::sleep(d),
        }
    }

    pub fn call(&mut self, argv: &[Vec<u8>], check: Check) {
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
        (Check::ScanPairs, Resp::Array(a), Resp::Array(b)) => same_scan_page(a, b),
        (Check::ScanMembers, Resp::Array(a), Resp::Array(b)) => same_member_page(a, b),
        (Check::UnorderedPairs, Resp::Array(a), Resp::Array(b)) => same_pairs(a, b),
        (Check::Sample, _, _) => same_sample(v, r, false),
        (Check::SamplePairs, _, _) => same_sample(v, r, true),
        (Check::Shape, _, _) => same_shape(v, r),
        (Check::CommandInfo, Resp::Array(a), Resp::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_command_info(a, b))
        }
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

pub fn show_argv(argv: &[Vec<u8>]) -> String {
    argv.iter().map(|a| format!("\"{}\"", a.escape_ascii())).collect::<Vec<_>>().join(" ")
}

// --- Generating commands ---------------------------------------------------------------------

/// Anything that can be a command argument.
pub trait Arg {
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
pub(crate) use args;

/// Edge integers, and strings that look like integers but are not ones to Redis.
pub const EDGE_INTS: &[&str] = &[
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
pub const FLOATS: &[&str] = &[
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
pub const BAD_FLOATS: &[&str] = &["inf", "-inf", "abc", "", "1e5000", " 1", "1 ", "1,5", "nan", "1e", "--1"];

/// Expiry times that are invalid, not integers, or that overflow once converted to ms or
/// added to now (for the EXPIRE family, zero and negative times delete the key instead).
pub const BAD_EXPIRES: &[&str] =
    &["0", "-1", "-100", "abc", "1.5", "", "9223372036854775807", "9223372036854775808", "9223372036854775", " 10"];

/// A unix time in ms about 11 days ahead: later than any relative expiry the tests set.
pub fn far_future_ms() -> i64 {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).expect("clock after 1970").as_millis() as i64;
    now + 1_000_000_000
}

pub struct Gen {
    pub rng: StdRng,
    /// Slots of 100 s taken by relative expiries this seed (see `rel_ms`).
    used_slots: HashSet<i64>,
    /// A unix time (ms) later than any relative expiry can reach: EXAT/PXAT values start here.
    pub far_ms: i64,
}

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen { rng: StdRng::seed_from_u64(seed), used_slots: HashSet::new(), far_ms: far_future_ms() }
    }

    pub fn chance(&mut self, percent: u32) -> bool {
        self.rng.gen_range(0..100) < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        *items.choose(&mut self.rng).expect("non-empty")
    }

    pub fn key(&mut self) -> Vec<u8> {
        self.pick(&KEYS).to_vec()
    }

    /// 1 to `max` keys, repeats allowed.
    pub fn keys(&mut self, max: usize) -> Vec<Vec<u8>> {
        let n = self.rng.gen_range(1..=max);
        (0..n).map(|_| self.key()).collect()
    }

    /// A value to store: text, integers (edges too), decimals, long text (past the 44 bytes
    /// of an embedded string), binary.
    pub fn value(&mut self) -> Vec<u8> {
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
    pub fn int(&mut self, small: std::ops::Range<i64>) -> Vec<u8> {
        if self.chance(85) {
            self.rng.gen_range(small).to_string().into_bytes()
        } else {
            self.pick(EDGE_INTS).into()
        }
    }

    /// A number for INCRBYFLOAT: mostly a simple decimal, sometimes one written otherwise,
    /// now and then one it refuses.
    pub fn float(&mut self) -> Vec<u8> {
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
    pub fn rel_ms(&mut self) -> i64 {
        loop {
            let slot = self.rng.gen_range(1..=5_000);
            if self.used_slots.insert(slot) {
                return slot * 100_000 + self.rng.gen_range(0..10_000);
            }
        }
    }

    /// An absolute unix time in ms, beyond every relative expiry (so no race either).
    pub fn abs_ms(&mut self) -> i64 {
        self.far_ms + self.rng.gen_range(0..1_000_000_000)
    }

    /// An expiry clause for SET or GETEX: `EX s`, `PX ms`, `EXAT s` or `PXAT ms`.
    pub fn expiry(&mut self) -> Vec<Vec<u8>> {
        let unit = self.pick(&["EX", "PX", "EXAT", "PXAT"]);
        args![unit, self.expiry_time(unit)]
    }

    /// A valid time for an expiry option: relative for EX and PX, far ahead for EXAT, PXAT.
    pub fn expiry_time(&mut self, unit: &str) -> String {
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
    pub fn bad_expire(&mut self, unit: &str) -> &'static str {
        loop {
            let bad = self.pick(BAD_EXPIRES);
            if !(matches!(unit, "PX" | "PSETEX" | "PEXPIRE") && bad == "9223372036854775") {
                return bad;
            }
        }
    }

    /// Upper, lower or mixed case, as clients may send names and options.
    pub fn casing(&mut self, word: &str) -> Vec<u8> {
        match self.rng.gen_range(0..10) {
            0 => word.to_ascii_lowercase().into_bytes(),
            1 => word.bytes().map(|c| if self.rng.gen_bool(0.5) { c.to_ascii_lowercase() } else { c }).collect(),
            _ => word.as_bytes().to_vec(),
        }
    }

    /// A command from `arities` (Redis 7.0's: positive is exact, negative is a minimum) with
    /// too few arguments or, for an exact arity, one too many, each drawn by `arg`. `at_most`
    /// says first how many words to send for the arities it knows: commands that take a few
    /// optional arguments and check their count themselves.
    pub fn wrong_arity_of(
        &mut self,
        arities: &[(&'static str, i32)],
        arg: fn(&mut Gen) -> Vec<u8>,
        at_most: fn(&mut Gen, i32) -> Option<i32>,
    ) -> Vec<Step> {
        let (name, arity) = self.pick(arities);
        let argc = match at_most(self, arity) {
            Some(argc) => argc,
            None if arity < 0 => self.rng.gen_range(1..-arity),
            None if arity == 1 || self.chance(50) => arity + 1,
            None => arity - 1,
        };
        let rest = (1..argc).map(|_| arg(self)).collect();
        self.exact(name, rest)
    }

    /// One of `table`'s items, each as likely as its weight.
    pub fn weighted<T: Copy>(&mut self, table: &[(u32, T)]) -> T {
        let total: u32 = table.iter().map(|(w, _)| w).sum();
        let mut pick = self.rng.gen_range(0..total);
        for &(weight, item) in table {
            if pick < weight {
                return item;
            }
            pick -= weight;
        }
        unreachable!("weights sum to {total}")
    }

    pub fn call(&mut self, name: &str, rest: Vec<Vec<u8>>, check: Check) -> Vec<Step> {
        let mut argv = vec![self.casing(name)];
        argv.extend(rest);
        vec![Step::Call(argv, check)]
    }

    pub fn exact(&mut self, name: &str, rest: Vec<Vec<u8>>) -> Vec<Step> {
        self.call(name, rest, Check::Exact)
    }
}

/// Whether two per-key SCAN pages hold the same cursor and the same (element, value) pairs
/// in any order (anything else is compared as it is).
pub fn same_scan_page(a: &[Resp], b: &[Resp]) -> bool {
    fn pairs(page: &[Resp]) -> Option<(&Resp, Vec<(&Resp, &Resp)>)> {
        let [cursor, Resp::Array(items)] = page else { return None };
        if items.len() % 2 == 1 {
            return None;
        }
        let mut pairs: Vec<(&Resp, &Resp)> = items.chunks_exact(2).map(|p| (&p[0], &p[1])).collect();
        pairs.sort();
        Some((cursor, pairs))
    }
    match (pairs(a), pairs(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// HGETALL: the same (field, value) pairs in any order.
pub fn same_pairs(a: &[Resp], b: &[Resp]) -> bool {
    let pairs = |items: &[Resp]| {
        let mut p: Vec<(Resp, Resp)> =
            items.chunks(2).map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or(Resp::NilBulk))).collect();
        p.sort();
        p
    };
    a.len() == b.len() && pairs(a) == pairs(b)
}

/// SSCAN in one page: the same cursor and the same members in any order.
pub fn same_member_page(a: &[Resp], b: &[Resp]) -> bool {
    match (a, b) {
        ([ca, Resp::Array(x)], [cb, Resp::Array(y)]) => {
            let (mut x, mut y) = (x.clone(), y.clone());
            x.sort();
            y.sort();
            ca == cb && x == y
        }
        _ => a == b,
    }
}

/// One COMMAND INFO entry (or nil) of each server, compared where Vitrine's table means to
/// agree with Redis 7.0: name, arity and key positions (first, last, step); for a command
/// without subcommands also the `write`, `readonly` and `admin` flags; and each subcommand
/// Vitrine lists, by the same rules, which Redis must list too.
///
/// Not compared here: other flags, ACL categories, tips and key specs (`command_table`
/// compares those for every command), subcommands Vitrine does not have (CLIENT PAUSE, ...), the Redis 7.2 subcommands Vitrine has and 7.0 has not (`SINCE_7_2`), and the order
/// of subcommands (Redis's is its dict's).
/// See `Check::Shape`.
pub fn same_shape(v: &Resp, r: &Resp) -> bool {
    match (v, r) {
        (Resp::Int(_), Resp::Int(_)) | (Resp::Bulk(_), Resp::Bulk(_)) => true,
        (Resp::Array(a), Resp::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_shape(a, b)),
        _ => v == r,
    }
}

pub fn same_command_info(v: &Resp, r: &Resp) -> bool {
    // COMMAND GETKEYS and GETKEYSANDFLAGS are 7.2's too: their arity became -3 (a command
    // without arguments may be asked about).
    const SINCE_7_2: &[&[u8]] =
        &[b"client|setinfo", b"client|no-touch", b"command|getkeys", b"command|getkeysandflags"];
    let (Resp::Array(v), Resp::Array(r)) = (v, r) else { return v == r };
    if v.len() != 10 || r.len() != 10 || v[..2] != r[..2] || v[3..6] != r[3..6] {
        return false;
    }
    let (Resp::Array(v_subs), Resp::Array(r_subs)) = (&v[9], &r[9]) else { return false };
    if r_subs.is_empty() {
        let flags = |entry: &Resp| -> Vec<Resp> {
            let Resp::Array(flags) = entry else { return vec![] };
            let mut kept: Vec<Resp> = flags
                .iter()
                .filter(|f| matches!(f, Resp::Status(s) if [&b"write"[..], b"readonly", b"admin"].contains(&&s[..])))
                .cloned()
                .collect();
            kept.sort();
            kept
        };
        return v_subs.is_empty() && flags(&v[2]) == flags(&r[2]);
    }
    let name = |e: &Resp| if let Resp::Array(e) = e { e.first().cloned() } else { None };
    let newer = |e: &Resp| matches!(name(e), Some(Resp::Bulk(n)) if SINCE_7_2.contains(&&n[..]));
    !v_subs.is_empty()
        && v_subs
            .iter()
            .filter(|sub| !newer(sub))
            .all(|sub| r_subs.iter().find(|r| name(r) == name(sub)).is_some_and(|r| same_command_info(sub, r)))
}
