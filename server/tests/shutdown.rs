//! Draining at shutdown, with clients in every state: pipelining writers whose commands are
//! still arriving, a client whose replies wait unread (a laggard), a client blocked in BLPOP,
//! and an idle one. Under `appendonly yes` and `appendfsync always`, every write a client saw
//! acknowledged is in the append-only file (a server started again on the same directory has
//! it), every command that ran was answered, every connection is closed rather than left
//! hanging, and the server stops well within its drain timeout. Once in-process (the
//! library's `Server`, stopped by a future) and once as the real binary stopped by SIGTERM.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::{cmd, connect_to, expect_closed, read_line, roundtrip, send, show, IO_TIMEOUT};
use vitrine_server::testing::TempDir;
use vitrine_server::{Server, ServerConfig};

/// Pipelining writers, each on its own connection.
const WRITERS: usize = 3;
/// Commands per write of a writer: a pipeline deep enough that some are always in flight.
const BATCH: u64 = 64;
/// Replies each writer must have had before the shutdown starts.
const WARM: u64 = 500;
/// The server's own drain timeout (`DRAIN_TIMEOUT` in lib.rs): stopping must not run into it,
/// which would mean a connection did not close by itself.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(3);
const AOF: [&str; 4] = ["--appendonly", "yes", "--appendfsync", "always"];
/// The laggard's rounds of `GET big` (1 MiB) and `INCR lag`: more reply bytes than the
/// sockets buffer, so most wait in the server's output buffer when the shutdown comes.
const LAG_ROUNDS: usize = 32;
const BIG: usize = 1 << 20;

/// A client writing `SET w<id>:<i> <i>` in pipelined batches for as long as the server takes
/// them, while a second thread counts its `+OK` replies until the connection closes.
struct Writer {
    id: usize,
    acked: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    sender: JoinHandle<()>,
    receiver: JoinHandle<Result<u64, String>>,
}

impl Writer {
    fn start(addr: SocketAddr, id: usize) -> Writer {
        let stream = connect_to(addr);
        let mut tx = stream.try_clone().expect("clone the socket");
        let mut rx = stream;
        let (acked, stop) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicBool::new(false)));
        let stopping = stop.clone();
        let sender = std::thread::spawn(move || {
            let mut next = 0u64;
            // Bounded: a server that never closes fails the test on the receiving side.
            while !stopping.load(Ordering::Relaxed) && next < 50_000_000 {
                let mut batch = Vec::new();
                for i in next..next + BATCH {
                    batch.extend_from_slice(&cmd(&["SET", &format!("w{id}:{i}"), &i.to_string()]));
                }
                if tx.write_all(&batch).is_err() {
                    return;
                }
                next += BATCH;
            }
        });
        let count = acked.clone();
        let receiver = std::thread::spawn(move || count_oks(&mut rx, &count));
        Writer { id, acked, stop, sender, receiver }
    }

    /// Waits for the connection to end; how many writes it saw acknowledged.
    fn finish(self) -> u64 {
        let acked = self.receiver.join().expect("the receiver does not panic");
        self.stop.store(true, Ordering::Relaxed);
        self.sender.join().expect("the sender does not panic");
        acked.unwrap_or_else(|e| panic!("writer {}: {e}", self.id))
    }
}

/// Reads `+OK\r\n` replies until the server closes the connection (EOF, or a reset when it
/// closed with our commands unread), counting them in `acked`; anything else is an error, and
/// so is a read that times out: the connection was left hanging.
fn count_oks(s: &mut TcpStream, acked: &AtomicU64) -> Result<u64, String> {
    const OK: &[u8] = b"+OK\r\n";
    let mut buf = vec![0u8; 64 * 1024];
    let mut at = 0usize; // position inside the reply being read
    let mut bytes = 0u64;
    loop {
        let n = match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) => return Err(format!("after {} replies: {e} (the connection hangs)", bytes / 5)),
        };
        for &b in &buf[..n] {
            if b != OK[at] {
                return Err(format!("unexpected byte {b:#x} after {} replies", bytes / 5));
            }
            at = (at + 1) % OK.len();
        }
        bytes += n as u64;
        acked.store(bytes / OK.len() as u64, Ordering::Relaxed);
    }
    Ok(bytes / OK.len() as u64)
}

/// Clients in every state on a running server.
struct Clients {
    writers: Vec<Writer>,
    laggard: TcpStream,
    blocked: TcpStream,
    idle: TcpStream,
}

fn open_clients(addr: SocketAddr) -> Clients {
    let mut idle = connect_to(addr);
    roundtrip(&mut idle, &cmd(&["SET", "big", &"x".repeat(BIG)]), b"+OK\r\n");
    roundtrip(&mut idle, &cmd(&["SET", "lag", "0"]), b"+OK\r\n");
    let mut laggard = connect_to(addr);
    let round = [cmd(&["GET", "big"]), cmd(&["INCR", "lag"])].concat();
    send(&mut laggard, &round.repeat(LAG_ROUNDS));
    let mut blocked = connect_to(addr);
    send(&mut blocked, &cmd(&["BLPOP", "nothing-comes", "0"]));
    let writers: Vec<Writer> = (0..WRITERS).map(|id| Writer::start(addr, id)).collect();
    let mut probe = connect_to(addr);
    let deadline = Instant::now() + IO_TIMEOUT;
    let lagged = |probe: &mut TcpStream| {
        send(probe, &cmd(&["GET", "lag"]));
        common::proc::read_bulk(probe) == LAG_ROUNDS.to_string().as_bytes()
    };
    while writers.iter().any(|w| w.acked.load(Ordering::Relaxed) < WARM)
        || common::proc::info_field(&mut probe, "clients", "blocked_clients") != Some(1)
        || !lagged(&mut probe)
    {
        assert!(Instant::now() < deadline, "the writers and the blocked client never got going");
        std::thread::sleep(Duration::from_millis(10));
    }
    Clients { writers, laggard, blocked, idle }
}

/// After the shutdown: every connection closes; the writes each writer saw acknowledged.
fn closed_clients(clients: Clients) -> Vec<(usize, u64)> {
    let Clients { writers, mut laggard, mut blocked, mut idle } = clients;
    // The laggard reads only now: the replies of everything it ran, then the close.
    let replies = read_to_close(&mut laggard);
    let big = format!("${BIG}\r\n{}\r\n", "x".repeat(BIG)).into_bytes();
    let mut want = Vec::new();
    for i in 1..=LAG_ROUNDS {
        want.extend_from_slice(&big);
        want.extend_from_slice(format!(":{i}\r\n").as_bytes());
    }
    assert!(replies == want, "the laggard got {} of its {} reply bytes", replies.len(), want.len());
    // The blocked client gets no reply, only the close.
    expect_closed(&mut blocked);
    expect_closed(&mut idle);
    writers.into_iter().map(|w| (w.id, w.finish())).collect()
}

/// Everything until the server closes the connection (EOF or a reset).
fn read_to_close(s: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return got,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return got,
            Err(e) => panic!("after {} bytes: {e} (the connection hangs)", got.len()),
        }
    }
}

/// Every acknowledged write is on a server started again over the same directory.
fn assert_acknowledged_writes_kept(addr: SocketAddr, acked: &[(usize, u64)]) {
    let mut s = connect_to(addr);
    for &(id, n) in acked {
        assert!(n >= WARM, "writer {id} saw only {n} replies");
        let mut from = 0;
        while from < n {
            let to = (from + 1000).min(n);
            let mut argv = vec!["EXISTS".to_string()];
            argv.extend((from..to).map(|i| format!("w{id}:{i}")));
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            send(&mut s, &cmd(&argv));
            let found = read_line(&mut s);
            let want = show(format!(":{}\r\n", to - from).as_bytes());
            assert_eq!(show(&found), want, "writer {id}: of its acknowledged keys {from}..{to}, EXISTS found");
            from = to;
        }
        let last = format!("w{id}:{}", n - 1);
        let value = (n - 1).to_string();
        roundtrip(&mut s, &cmd(&["GET", &last]), format!("${}\r\n{value}\r\n", value.len()).as_bytes());
    }
    // And no command ran unanswered: the replies a connection had made when the shutdown
    // came are sent before it closes (the writers keep reading to the end).
    // (Plus `big` and `lag`.)
    let total = acked.iter().map(|(_, n)| n).sum::<u64>() + 2;
    roundtrip(&mut s, &cmd(&["DBSIZE"]), format!(":{total}\r\n").as_bytes());
}

fn in_process_config(dir: &Path) -> ServerConfig {
    let dir = dir.to_str().expect("a UTF-8 temp path");
    let mut args = vec!["vitrine", "--port", "0", "--http-port", "0", "--threads", "2", "--dir", dir];
    args.extend(AOF);
    ServerConfig::try_load(args).expect("a valid configuration")
}

/// The library's server on `dir`, on a runtime of the test's, stopped by [`InProcess::stop`].
struct InProcess {
    addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    serving: tokio::task::JoinHandle<anyhow::Result<()>>,
}

impl InProcess {
    fn start(rt: &tokio::runtime::Runtime, dir: &Path) -> InProcess {
        let server = rt.block_on(Server::start(in_process_config(dir))).expect("start");
        let addr = server.resp_addrs()[0];
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = rt.spawn(server.serve(async {
            let _ = stopped.await;
            Ok("the test's stop")
        }));
        InProcess { addr, stop, serving }
    }

    /// Asks the server to stop; the returned closure waits until `serve` has returned.
    fn stop(self, rt: &tokio::runtime::Runtime) -> impl FnOnce() + '_ {
        self.stop.send(()).expect("the server waits for the stop");
        move || {
            rt.block_on(async { tokio::time::timeout(IO_TIMEOUT, self.serving).await })
                .expect("serve returns")
                .expect("no panic")
                .expect("a clean stop")
        }
    }
}

#[test]
fn run_drains_every_client_and_keeps_every_acknowledged_write() {
    let dir = TempDir::new("shutdown-in-process");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = InProcess::start(&rt, &dir.0);
    let addr = server.addr;
    let clients = open_clients(addr);

    let started = Instant::now();
    let stopped = server.stop(&rt);
    // The clients read while the server drains, as the laggard must for its replies.
    let acked = closed_clients(clients);
    stopped();
    let took = started.elapsed();
    assert!(took < DRAIN_TIMEOUT, "serve took {took:?}: a connection did not close by itself");
    assert!(std::net::TcpStream::connect(addr).is_err(), "the RESP port still accepts");

    let again = InProcess::start(&rt, &dir.0);
    assert_acknowledged_writes_kept(again.addr, &acked);
    again.stop(&rt)();
}

#[cfg(unix)]
#[test]
fn sigterm_drains_every_client_and_keeps_every_acknowledged_write() {
    let dir = TempDir::new("shutdown-binary");
    let dir_arg = dir.0.to_str().expect("a UTF-8 temp path");
    let mut args = vec!["--dir", dir_arg];
    args.extend(AOF);
    let mut server = common::Server::start(&args);
    let clients = open_clients(server.addr());

    let status = std::process::Command::new("kill").args(["-TERM", &server.pid().to_string()]).status().unwrap();
    assert!(status.success());
    let acked = closed_clients(clients);
    let exit = server.wait_exit(IO_TIMEOUT).expect("vitrine did not exit after SIGTERM");
    assert!(exit.success(), "exit status {exit}; log:\n{}", server.log());
    let log = server.log();
    assert!(!log.contains("still open"), "a connection waited for the drain timeout; log:\n{log}");
    assert!(!log.contains("not fsynced"), "log:\n{log}");

    let again = common::Server::start(&args);
    assert_acknowledged_writes_kept(again.addr(), &acked);
}
