//! The server as a library: `vitrine_server::run` and `Server::start` serve a configuration
//! inside the test's own process and runtime, on free ports, until a future the test controls
//! resolves. The other socket tests start the binary; these show that nothing in the server
//! needs to be its own process.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use vitrine_server::{Server, ServerConfig};

const TIMEOUT: Duration = Duration::from_secs(10);

/// A scratch directory for `--dir` and the port files, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("vitrine-in-process-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Free ports, one event loop, and `dir` for everything the server writes.
fn config(dir: &Path, extra: &[&str]) -> ServerConfig {
    let dir = dir.to_str().expect("a UTF-8 temp path");
    let mut args = vec!["vitrine", "--port", "0", "--http-port", "0", "--threads", "1", "--dir", dir];
    args.extend(extra);
    ServerConfig::try_load(args).expect("a valid configuration")
}

/// Sends `request` and reads until exactly `reply` has arrived.
async fn roundtrip(s: &mut TcpStream, request: &[u8], reply: &[u8]) {
    s.write_all(request).await.expect("send");
    let mut got = vec![0; reply.len()];
    tokio::time::timeout(TIMEOUT, s.read_exact(&mut got)).await.expect("a reply in time").expect("read");
    assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(reply));
}

/// After shutdown the server closes an idle connection rather than leaving it open.
async fn expect_closed(s: &mut TcpStream) {
    let mut byte = [0; 1];
    let n = tokio::time::timeout(TIMEOUT, s.read(&mut byte)).await.expect("closed in time").unwrap_or(0);
    assert_eq!(n, 0, "the connection stays open after shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_serves_resp_until_its_shutdown_future_resolves() {
    let scratch = Scratch::new("run");
    let port_file = scratch.0.join("port");
    let port_arg = port_file.to_str().unwrap().to_string();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(vitrine_server::run(config(&scratch.0, &["--port-file", &port_arg]), async {
        let _ = stopped.await;
        Ok("the test's stop")
    }));
    // `run` hides the bound port; the port file, as scripts read it, names it.
    let port = tokio::time::timeout(TIMEOUT, async {
        loop {
            if let Some(port) = std::fs::read_to_string(&port_file).ok().and_then(|t| t.trim().parse::<u16>().ok()) {
                return port;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the port file in time");
    let mut s = TcpStream::connect(SocketAddr::from(([127, 0, 0, 1], port))).await.expect("connect");
    roundtrip(
        &mut s,
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
        b"+OK\r\n$1\r\nv\r\n",
    )
    .await;

    stop.send(()).expect("the server waits for the stop");
    tokio::time::timeout(TIMEOUT, server).await.expect("stopped in time").expect("no panic").expect("a clean stop");
    expect_closed(&mut s).await;
    assert!(!port_file.exists(), "the port file is removed at shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_reports_the_bound_ports_and_serve_drains_them() {
    let scratch = Scratch::new("start");
    let server = Server::start(config(&scratch.0, &[])).await.expect("start");
    let resp = server.resp_addrs()[0];
    let http = server.http_addr();
    assert_ne!(resp.port(), 0);
    assert_ne!(http.port(), 0);
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(server.serve(async {
        let _ = stopped.await;
        Ok("the test's stop")
    }));
    let mut s = TcpStream::connect(resp).await.expect("connect");
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n").await;
    let mut h = TcpStream::connect(http).await.expect("connect to the admin port");
    h.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").await.expect("send");
    let mut answer = Vec::new();
    tokio::time::timeout(TIMEOUT, h.read_to_end(&mut answer)).await.expect("an answer in time").expect("read");
    assert!(answer.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&answer));

    stop.send(()).expect("the server waits for the stop");
    tokio::time::timeout(TIMEOUT, serving).await.expect("stopped in time").expect("no panic").expect("a clean stop");
    expect_closed(&mut s).await;
    assert!(TcpStream::connect(resp).await.is_err(), "the RESP port still accepts after shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_server_in_a_process_has_its_own_append_only_file() {
    let (first, second) = (Scratch::new("aof-first"), Scratch::new("aof-second"));
    let aof = ["--appendonly", "yes", "--appendfsync", "always"];
    let one = Server::start(config(&first.0, &aof)).await.expect("start the first");
    let two = Server::start(config(&second.0, &aof)).await.expect("start the second");
    let (a, b) = (one.resp_addrs()[0], two.resp_addrs()[0]);
    let (stop_one, stopped_one) = oneshot::channel::<()>();
    let (stop_two, stopped_two) = oneshot::channel::<()>();
    let serving_one = tokio::spawn(one.serve(async {
        let _ = stopped_one.await;
        Ok("the test's stop")
    }));
    let serving_two = tokio::spawn(two.serve(async {
        let _ = stopped_two.await;
        Ok("the test's stop")
    }));
    let (mut s1, mut s2) =
        (TcpStream::connect(a).await.expect("connect"), TcpStream::connect(b).await.expect("connect"));
    roundtrip(&mut s1, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\none\r\n", b"+OK\r\n").await;
    roundtrip(&mut s2, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\ntwo\r\n", b"+OK\r\n").await;
    stop_one.send(()).expect("the first waits for the stop");
    stop_two.send(()).expect("the second waits for the stop");
    for serving in [serving_one, serving_two] {
        tokio::time::timeout(TIMEOUT, serving)
            .await
            .expect("stopped in time")
            .expect("no panic")
            .expect("a clean stop");
    }

    // Each file holds its own server's write, and a server started over it loads it back.
    for (scratch, value) in [(&first, "one"), (&second, "two")] {
        let again = Server::start(config(&scratch.0, &aof)).await.expect("start again");
        let addr = again.resp_addrs()[0];
        let (stop, stopped) = oneshot::channel::<()>();
        let serving = tokio::spawn(again.serve(async {
            let _ = stopped.await;
            Ok("the test's stop")
        }));
        let mut s = TcpStream::connect(addr).await.expect("connect");
        roundtrip(&mut s, b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", format!("$3\r\n{value}\r\n").as_bytes()).await;
        stop.send(()).expect("the server waits for the stop");
        tokio::time::timeout(TIMEOUT, serving)
            .await
            .expect("stopped in time")
            .expect("no panic")
            .expect("a clean stop");
    }
    // A stopped server leaves no AOF writer behind (the only test here that starts one).
    tokio::time::timeout(TIMEOUT, async {
        while threads_named("vitrine-aof") > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("every AOF writer thread ends once its server has stopped");
}

/// How many of this process's threads have `name` (Linux; 0 elsewhere).
fn threads_named(name: &str) -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return 0 };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|comm| comm.trim_end() == name)
        .count()
}
