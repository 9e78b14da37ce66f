//! The load generator. Each client is a tokio task with its own TCP connection to the
//! server's RESP port over loopback, so a run measures the whole network path (syscalls,
//! framing, dispatch) as redis-benchmark does, not just the engine.
//!
//! A client sends `pipeline` commands at once (SET or GET chosen by the SET:GET ratio, keys
//! `bench:<12 digits>` drawn uniformly from the key space, values of `value_size` bytes of
//! `x`), then reads as many replies; each reply's latency is the time from sending its batch
//! to parsing it (redis-benchmark's and memtier's definition), recorded into a histogram that
//! is reported to [`Live`] each second.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::request::{parse_ratio, BenchParams};
use super::results::{new_histogram, Live};
use crate::now_ms;

/// Longest a client waits for the server on one read or write before the run fails.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Key names: this prefix and 12 digits, as redis-benchmark's `key:__rand_int__`.
const KEY_PREFIX: &[u8] = b"bench:";
const KEY_DIGITS: usize = 12;

/// Runs the clients until the duration passes, the requests are answered, or the run is
/// cancelled; the first client error fails the run.
pub(super) async fn drive(
    target: SocketAddr,
    params: &BenchParams,
    live: Arc<Live>,
    cancel: watch::Receiver<bool>,
    mut shutdown: watch::Receiver<bool>,
    password: Option<Vec<u8>>,
) -> Result<(), String> {
    let plan = Arc::new(Plan::new(params, password));
    let budget = params.requests.map(|n| Arc::new(AtomicU64::new(n)));
    let deadline = params.duration_s.map(|d| live.started + Duration::from_secs(d));
    let mut clients = JoinSet::new();
    for i in 0..params.clients {
        let client = Client {
            index: i,
            plan: plan.clone(),
            live: live.clone(),
            cancel: cancel.clone(),
            budget: budget.clone(),
            deadline,
        };
        clients.spawn(client.run(target));
    }
    let mut first_error = None;
    loop {
        tokio::select! {
            joined = clients.join_next() => match joined {
                None => break,
                Some(Ok(Ok(()))) => {}
                Some(failed) => {
                    let e = match failed {
                        Ok(Err(e)) => e,
                        Err(e) => format!("a client task failed: {e}"),
                        Ok(Ok(())) => continue,
                    };
                    if first_error.is_none() {
                        first_error = Some(e);
                        // One client failing means the figures are wrong: stop the others.
                        clients.abort_all();
                    }
                }
            },
            _ = async { let _ = shutdown.wait_for(|&stop| stop).await; } => {
                clients.abort_all();
                while clients.join_next().await.is_some() {}
                break;
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// What every client sends: the command mix and the value.
struct Plan {
    pipeline: usize,
    sets: u64,
    total: u64,
    key_space: u64,
    value: Vec<u8>,
    password: Option<Vec<u8>>,
}

impl Plan {
    fn new(params: &BenchParams, password: Option<Vec<u8>>) -> Plan {
        let (sets, gets) = parse_ratio(&params.ratio).unwrap_or((1, 10));
        Plan {
            pipeline: params.pipeline as usize,
            sets: u64::from(sets),
            total: u64::from(sets) + u64::from(gets),
            key_space: params.key_space,
            value: vec![b'x'; params.value_size],
            password,
        }
    }
}

struct Client {
    index: u32,
    plan: Arc<Plan>,
    live: Arc<Live>,
    cancel: watch::Receiver<bool>,
    budget: Option<Arc<AtomicU64>>,
    deadline: Option<Instant>,
}

/// A RESP command as a multibulk array, appended to `out` (no allocation: the load
/// generator shares the machine with the server it measures).
fn encode(out: &mut Vec<u8>, args: &[&[u8]]) {
    out.push(b'*');
    push_digits(out, args.len() as u64, 0);
    out.extend_from_slice(b"\r\n");
    for a in args {
        out.push(b'$');
        push_digits(out, a.len() as u64, 0);
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
}

/// Appends `n` in decimal, zero-padded to `width` digits.
fn push_digits(out: &mut Vec<u8>, mut n: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let start = i.min(buf.len() - width.min(buf.len()));
    out.extend_from_slice(&buf[start..]);
}

/// One complete reply at the start of `buf`: how many bytes it takes and whether it is an
/// error. `Ok(None)` when more bytes are needed.
fn parse_reply(buf: &[u8]) -> Result<Option<(usize, bool)>, String> {
    let Some(&kind) = buf.first() else { return Ok(None) };
    let Some(eol) = buf.windows(2).position(|w| w == b"\r\n") else { return Ok(None) };
    let line = &buf[1..eol];
    let after = eol + 2;
    let len = || -> Result<i64, String> {
        std::str::from_utf8(line)
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
            .ok_or_else(|| format!("bad length in reply: {:?}", String::from_utf8_lossy(line)))
    };
    match kind {
        b'+' | b':' | b'_' | b',' | b'#' | b'(' => Ok(Some((after, false))),
        b'-' => Ok(Some((after, true))),
        b'$' | b'=' | b'!' => {
            let n = len()?;
            if n < 0 {
                return Ok(Some((after, false)));
            }
            let end = usize::try_from(n).ok().and_then(|n| after.checked_add(n)?.checked_add(2));
            match end {
                Some(end) if buf.len() >= end => Ok(Some((end, kind == b'!'))),
                Some(_) => Ok(None),
                None => Err("reply length overflows".into()),
            }
        }
        b'*' | b'~' | b'%' | b'>' => {
            let n = len()?;
            let count = if kind == b'%' { n.saturating_mul(2) } else { n };
            let mut pos = after;
            for _ in 0..count.max(0) {
                match parse_reply(&buf[pos..])? {
                    Some((used, _)) => pos += used,
                    None => return Ok(None),
                }
            }
            Ok(Some((pos, false)))
        }
        other => Err(format!("unexpected reply type byte 0x{other:02x}")),
    }
}

impl Client {
    async fn run(mut self, target: SocketAddr) -> Result<(), String> {
        let mut stream = tokio::time::timeout(IO_TIMEOUT, TcpStream::connect(target))
            .await
            .map_err(|_| format!("connecting to {target} timed out"))?
            .map_err(|e| format!("cannot connect to {target}: {e}"))?;
        let _ = stream.set_nodelay(true);
        let mut input = Vec::with_capacity(64 * 1024);
        let mut out = Vec::with_capacity(64 * 1024);
        if let Some(pass) = self.plan.password.clone() {
            encode(&mut out, &[b"AUTH", &pass]);
        }
        encode(&mut out, &[b"CLIENT", b"SETNAME", b"vitrine-bench"]);
        let setup_replies = if self.plan.password.is_some() { 2 } else { 1 };
        let (errors, _) = self.exchange(&mut stream, &out, setup_replies, &mut input, &mut |_| {}).await?;
        if errors > 0 && self.plan.password.is_some() {
            return Err("the server refused the benchmark client's AUTH".into());
        }

        let mut rng = Rng::new(u64::from(self.index) + 1);
        let mut hist = new_histogram();
        let mut hist_s = 0u64;
        let mut latencies = Vec::with_capacity(self.plan.pipeline);
        let mut key = Vec::with_capacity(KEY_PREFIX.len() + KEY_DIGITS);
        loop {
            if *self.cancel.borrow() || self.deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let n = match &self.budget {
                Some(budget) => claim(budget, self.plan.pipeline as u64) as usize,
                None => self.plan.pipeline,
            };
            if n == 0 {
                break;
            }
            out.clear();
            let mut sets = 0u64;
            for _ in 0..n {
                key.clear();
                key.extend_from_slice(KEY_PREFIX);
                push_digits(&mut key, rng.next() % self.plan.key_space, KEY_DIGITS);
                if rng.next() % self.plan.total < self.plan.sets {
                    encode(&mut out, &[b"SET", &key, &self.plan.value]);
                    sets += 1;
                } else {
                    encode(&mut out, &[b"GET", &key]);
                }
            }
            let sent = Instant::now();
            latencies.clear();
            let (errors, got) = self
                .exchange(&mut stream, &out, n, &mut input, &mut |at: Instant| {
                    latencies.push(at.duration_since(sent).as_micros() as u64);
                })
                .await?;
            let t_s = self.live.started.elapsed().as_secs();
            if t_s != hist_s {
                self.live.report(hist_s, &mut hist);
                hist_s = t_s;
            }
            for &us in &latencies {
                hist.saturating_record(us.max(1));
            }
            if got < n {
                // Cancelled mid-batch: which replies arrived is unknown, so count none of the
                // batch's mix, only its replies.
                self.live.done.fetch_add(got as u64, Relaxed);
                break;
            }
            self.live.sets.fetch_add(sets, Relaxed);
            self.live.gets.fetch_add(n as u64 - sets, Relaxed);
            self.live.errors.fetch_add(errors, Relaxed);
            self.live.done.fetch_add(n as u64, Relaxed);
        }
        self.live.report(hist_s, &mut hist);
        Ok(())
    }

    /// Writes `request` and reads `replies` replies, calling `each` with each reply's arrival
    /// time. Answers how many were errors and how many arrived (fewer only when cancelled).
    /// Fails when the server is silent for `IO_TIMEOUT` or sends something that is not RESP.
    async fn exchange(
        &mut self,
        stream: &mut TcpStream,
        request: &[u8],
        replies: usize,
        input: &mut Vec<u8>,
        each: &mut impl FnMut(Instant),
    ) -> Result<(u64, usize), String> {
        let cancelled = |rx: &mut watch::Receiver<bool>| {
            let mut rx = rx.clone();
            async move {
                let _ = rx.wait_for(|&c| c).await;
            }
        };
        tokio::select! {
            r = tokio::time::timeout(IO_TIMEOUT, stream.write_all(request)) => match r {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Err(format!("write failed: {e}")),
                Err(_) => return Err("the server did not take the request in time".into()),
            },
            _ = cancelled(&mut self.cancel) => return Ok((0, 0)),
        }
        let mut got = 0;
        let mut errors = 0;
        let mut pos = 0;
        while got < replies {
            while got < replies {
                match parse_reply(&input[pos..])? {
                    Some((used, is_error)) => {
                        pos += used;
                        errors += u64::from(is_error);
                        each(Instant::now());
                        got += 1;
                    }
                    None => break,
                }
            }
            if got == replies {
                break;
            }
            input.drain(..pos);
            pos = 0;
            input.reserve(16 * 1024);
            tokio::select! {
                r = tokio::time::timeout(IO_TIMEOUT, stream.read_buf(input)) => match r {
                    Ok(Ok(0)) => return Err("the server closed the connection".into()),
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => return Err(format!("read failed: {e}")),
                    Err(_) => return Err(format!("no reply within {IO_TIMEOUT:?}")),
                },
                _ = cancelled(&mut self.cancel) => return Ok((errors, got)),
            }
        }
        input.drain(..pos);
        Ok((errors, got))
    }
}

/// Takes up to `want` requests from the shared budget; 0 when it is spent.
fn claim(budget: &AtomicU64, want: u64) -> u64 {
    let mut left = budget.load(Relaxed);
    loop {
        let take = left.min(want);
        if take == 0 {
            return 0;
        }
        match budget.compare_exchange_weak(left, left - take, Relaxed, Relaxed) {
            Ok(_) => return take,
            Err(now) => left = now,
        }
    }
}

/// xorshift64*: fast, per client, and plenty for picking keys.
struct Rng(u64);

impl Rng {
    fn new(stream: u64) -> Rng {
        let seed = now_ms() ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_framed() {
        assert_eq!(parse_reply(b"+OK\r\n"), Ok(Some((5, false))));
        assert_eq!(parse_reply(b"-ERR x\r\n+OK"), Ok(Some((8, true))));
        assert_eq!(parse_reply(b"$3\r\nabc\r\n"), Ok(Some((9, false))));
        assert_eq!(parse_reply(b"$3\r\nab"), Ok(None));
        assert_eq!(parse_reply(b"$-1\r\n"), Ok(Some((5, false))));
        assert_eq!(parse_reply(b"*2\r\n:1\r\n$1\r\nx\r\n"), Ok(Some((15, false))));
        assert_eq!(parse_reply(b"*2\r\n:1\r\n"), Ok(None));
        assert_eq!(parse_reply(b"%1\r\n+a\r\n:1\r\n"), Ok(Some((12, false))));
        assert_eq!(parse_reply(b""), Ok(None));
        assert_eq!(parse_reply(b"+OK"), Ok(None));
        assert!(parse_reply(b"?\r\n").is_err());
        assert!(parse_reply(b"$x\r\n").is_err());
    }

    #[test]
    fn commands_are_encoded_without_allocating() {
        let mut out = Vec::new();
        encode(&mut out, &[b"GET", b"k"]);
        assert_eq!(out, b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
        let mut key = Vec::new();
        push_digits(&mut key, 42, KEY_DIGITS);
        assert_eq!(key, b"000000000042");
        key.clear();
        push_digits(&mut key, 1234, 0);
        assert_eq!(key, b"1234");
    }

    #[test]
    fn the_budget_is_shared_exactly() {
        let budget = AtomicU64::new(10);
        assert_eq!(claim(&budget, 4), 4);
        assert_eq!(claim(&budget, 4), 4);
        assert_eq!(claim(&budget, 4), 2);
        assert_eq!(claim(&budget, 4), 0);
    }
}
