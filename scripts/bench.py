#!/usr/bin/env python3
"""Side-by-side benchmark of Vitrine against redis-server (and any other peer) on this machine.

Run it through `scripts/bench`, which installs redis-server/redis-tools and builds the release
binary first; `scripts/bench --help` lists the options. Python 3.11 standard library only.

What it does, in order:

* For each repetition (`--reps`, default 3), for each load, for each server (the order reverses
  on every other repetition, so drift hits all servers alike): start the server fresh on a free
  127.0.0.1 port with no persistence (but see `--aof`), run the load, read the server's CPU time
  (utime+stime from /proc/PID/stat) before and after, stop the server.
* Loads: `redis-benchmark -t set,get -n N -c 50 -d 64 -r 100000 -P 1` and `-P 16` (SET and GET
  run as two invocations against the same fresh server, so each gets its own CPU figure and GET
  reads the keys SET wrote); with `MEMTIER=/path/to/memtier_benchmark`, memtier 1:1 at pipeline
  1 and 16 and gets-only (after a prefill) at pipeline 1 and 16; and the memory load (1,000,000
  SETs of 16-byte keys and 32-byte values streamed as one RESP pipeline; `used_memory` from
  INFO and VmRSS growth from /proc/PID/status).
* Each figure is the median over the repetitions; the report gives the ratio vitrine/peer.
* The append-only file's cost: `--aof` (or naming them in `--servers`) adds two vitrine
  variants, `vitrine-aof-everysec` (`--appendonly yes --appendfsync everysec`) and
  `vitrine-aof-always` (`--appendfsync always`), each with a fresh, empty `--dir` for every
  run; the report then has a "Persistence cost" table: each variant's ops/sec ÷ vitrine's
  (`--appendonly no`, the default). `always` fsyncs before every acknowledgement (group
  commit), so its figure depends on the disk under the temp directory more than on the CPU.
* The cost of keyspace notifications: `--notify` adds `vitrine-notify` (the same binary with
  `--notify-keyspace-events KEA` and a client subscribed to `__key*__:*` reading every
  message); its ops/sec ÷ plain vitrine's joins the "Persistence cost" table. Off (the
  default) costs one relaxed atomic load per event site, so plain vitrine is the "off" figure.
* Peers besides redis-server: `PEER="name=/path/to/binary args; other=/path args"`. `--port P`
  is appended unless the args contain `{port}`, which is replaced instead. Give the peer its own
  loopback bind flag (`--bind 127.0.0.1` for Valkey); the harness warns when a server listens
  beyond loopback. Every client here connects to 127.0.0.1 only, and port 6379 is never used.

Output: a markdown report on stdout and in benchmarks/latest.md, and JSON in
benchmarks/latest.json (or `--out PATH`, with the markdown beside it). `--quick` writes
benchmarks/quick.{json,md} instead so a smoke test never replaces the real figures.
`--micro` runs the criterion benchmarks (`cargo bench -p vitrine-engine`) instead and writes
benchmarks/micro.{json,md}. `--mrc` runs the what-if curve's accuracy benchmark instead
(`cargo run --release -p vitrine-engine --example mrc_accuracy`: measured hit ratios at 0.5x
and 2x the memory against those predicted at 1x) and writes its table to benchmarks/mrc.md.

JSON schema ("vitrine-bench/1"), shaped for the dashboard's `POST /api/bench/import`:

    {
      "schema": "vitrine-bench/1",
      "kind": "socket" | "micro",
      "id": str,                       # "<started_at>-<git commit>", unique per run of the harness
      "started_at": str, "finished_at": str,   # ISO 8601 UTC
      "duration_s": float,
      "command": str,                  # the exact command line, with MEMTIER=/PEER= if set
      "git": {"commit": str|null, "dirty": bool|null},
      "machine": {"nproc": int, "cpu_model": str, "kernel": str, "mem_total_bytes": int},
      "versions": {name: str},         # vitrine, redis-server, redis-benchmark, memtier, peers
      "settings": {"reps": int, "requests": int, "memory_keys": int|null, "quick": bool, ...},
      "servers": [{"name": str, "kind": "vitrine"|"redis"|"peer", "argv": [str]}],
      "loads": [{"id": str, "tool": str, "title": str, "command": str, "tests": [str]}],
      "runs": [{                       # one per (server, load, test); the figures are medians
        "server": str, "load": str, "test": str,
        "ops_per_sec": float|null,
        "p50_ms": float|null, "p99_ms": float|null, "p999_ms": float|null, "avg_ms": float|null,
        "cpu_us_per_op": float|null,   # server utime+stime per request, microseconds
        "client_cpus": float|null,     # benchmark client CPU time / wall time
        "requests": int,
        "spread": float|null,          # (max - min) / median of ops_per_sec over the reps
        "reps": [{"rep": int, "position": int, "ops_per_sec": ..., "p50_ms": ..., "p99_ms": ...,
                  "p999_ms": ..., "avg_ms": ..., "cpu_us_per_op": ..., "cpu_s": float,
                  "wall_s": float, "background_cpus": float|null, "client_cpus": float|null,
                  "error": str|null}]
      }],
      "ratios": [{"load": str, "test": str, "peer": str,       # vitrine / peer, medians
                  "ops_per_sec": float|null, "cpu_us_per_op": float|null, "p99_ms": float|null}],
      "aof_cost": [{"load": str, "test": str, "server": str,   # vitrine-aof-* / vitrine
                    "ops_per_sec": float|null, "ratio": float|null, "base_ops_per_sec": float|null}],
      "memory": [{"server": str, "keys": int, "key_bytes": 16, "value_bytes": 32,
                  "used_memory": int|null, "used_memory_per_key": float|null,
                  "rss_growth_bytes": int|null, "rss_growth_per_key": float|null,
                  "load_s": float|null,        # time to stream the pipeline and get every reply
                  "reps": [{"rep": int, "used_memory_before": int|null, "used_memory": int|null,
                            "rss_before": int, "rss_after": int, "load_s": float,
                            "error": str|null}]}],
      "micro": [{"id": str, "group": str, "function": str,   # --micro only
                 "time_ns": float,             # per iteration: criterion's slope (else mean)
                 "ci_low_ns": float, "ci_high_ns": float,   # 95% CI of time_ns
                 "mean_ns": float, "median_ns": float,
                 "elements": int|null,         # commands per iteration
                 "elements_per_sec": float|null}],
      "notes": [str], "errors": [str]
    }

Latency figures: p50/p99 come from redis-benchmark's summary (HDR histogram); p99.9 is not in
its summary or CSV, so it is read from the printed percentile and cumulative distributions: the
smallest printed latency at which the cumulative count reaches 99.9 % of the requests. That is
an upper bound on the true p99.9, within the printed grid (0.1 ms steps up to 2 ms, 1 ms steps
beyond), so compare p99.9 between servers only when the difference is larger than a grid step.
For memtier, all three come from its JSON (`--print-percentiles 50,99,99.9`).
"""

from __future__ import annotations

import argparse
import atexit
import datetime as dt
import glob
import json
import math
import os
import re
import resource
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = ROOT / "benchmarks"
FORBIDDEN_PORT = 6379  # a developer's own Redis or `scripts/start`; never touch it
CLK_TCK = os.sysconf("SC_CLK_TCK")

# The redis-benchmark loads of the performance issue.
RB_CLIENTS = 50
AOF_PREFIX = "vitrine-aof-"  # the append-only variants: vitrine-aof-everysec, vitrine-aof-always
NOTIFY_NAME = "vitrine-notify"  # keyspace notifications on (KEA) with a subscriber attached
RB_DATA = 64
RB_KEYSPACE = 100_000
# The memtier loads of the performance issue.
MT_CLIENTS = 25
MT_THREADS = 2
MT_DATA = 256
MT_KEYMAX = 100_000
# The memory figure: keys of 16 bytes, values of 32 bytes.
MEM_KEY_BYTES = 16
MEM_VALUE_BYTES = 32

SERVER_START_TIMEOUT = 15.0
# With --wait-quiet: the most CPUs other processes may use for the machine to count as quiet.
QUIET_CPUS = 0.15
SERVER_STOP_TIMEOUT = 10.0


def log(msg: str) -> None:
    print(f"==> {msg}", file=sys.stderr, flush=True)


def warn(msg: str) -> None:
    print(f"warning: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Processes we started: every one is stopped on any exit (normal, exception, SIGTERM, SIGINT).

_LIVE: list[subprocess.Popen] = []


def _kill_all() -> None:
    for proc in list(_LIVE):
        _terminate(proc)


def _terminate(proc: subprocess.Popen, timeout: float = SERVER_STOP_TIMEOUT) -> None:
    if proc.poll() is None:
        try:
            proc.terminate()
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
        except ProcessLookupError:
            pass
    if proc in _LIVE:
        _LIVE.remove(proc)


def _on_signal(signum, _frame):
    raise SystemExit(128 + signum)


atexit.register(_kill_all)
signal.signal(signal.SIGTERM, _on_signal)
signal.signal(signal.SIGHUP, _on_signal)


def run_bounded(argv: list[str], timeout: float, **kw) -> subprocess.CompletedProcess:
    """Runs a client to completion, killing it (and failing) after `timeout` seconds."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, **kw)
    _LIVE.append(proc)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise RuntimeError(f"{Path(argv[0]).name} did not finish within {timeout:.0f}s")
    finally:
        if proc in _LIVE:
            _LIVE.remove(proc)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


# ---------------------------------------------------------------------------------------------
# /proc

def cpu_seconds(pid: int) -> float:
    """utime + stime of the whole process (all threads, live and exited), in seconds."""
    data = Path(f"/proc/{pid}/stat").read_text()
    fields = data[data.rindex(")") + 2:].split()  # fields[0] is field 3 (state)
    return (int(fields[14 - 3]) + int(fields[15 - 3])) / CLK_TCK


def busy_seconds() -> float:
    """CPU time the whole machine spent busy since boot, all CPUs together (/proc/stat)."""
    f = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in f[:8])
    return (user + nice + system + irq + softirq + steal) / CLK_TCK


def children_seconds() -> float:
    """CPU time of this process's reaped children (the benchmark clients)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def own_and_children_seconds() -> float:
    """CPU time of this process and of its reaped children (the benchmark clients)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime + children_seconds()


def wait_for_quiet(max_wait: float, threshold: float) -> float | None:
    """Waits (up to `max_wait` seconds) until the rest of the machine uses less than
    `threshold` CPUs over one second. Returns the last background figure seen."""
    deadline = time.monotonic() + max_wait
    seen = None
    while True:
        busy0, ours0, t0 = busy_seconds(), own_and_children_seconds(), time.monotonic()
        time.sleep(1.0)
        others = (busy_seconds() - busy0) - (own_and_children_seconds() - ours0)
        seen = max(0.0, others) / (time.monotonic() - t0)
        if seen < threshold or time.monotonic() >= deadline:
            return seen


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def non_loopback_listeners(port: int) -> list[str]:
    """Addresses other than loopback on which something listens on `port`."""
    found = []
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(path).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            local, state = parts[1], parts[3]
            if state != "0A":  # LISTEN
                continue
            addr_hex, port_hex = local.split(":")
            if int(port_hex, 16) != port:
                continue
            if len(addr_hex) == 8:
                addr = socket.inet_ntop(socket.AF_INET, bytes.fromhex(addr_hex)[::-1])
                loopback = addr.startswith("127.")
            else:
                raw = bytes.fromhex(addr_hex)
                raw = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                addr = socket.inet_ntop(socket.AF_INET6, raw)
                loopback = addr == "::1" or addr.startswith("::ffff:127.")
            if not loopback:
                found.append(addr)
    return found


def free_port() -> int:
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port != FORBIDDEN_PORT:
            return port
    raise RuntimeError("could not find a free port")


# ---------------------------------------------------------------------------------------------
# A minimal RESP client: enough for PING, INFO, DBSIZE.

class Resp:
    def __init__(self, port: int, timeout: float = 10.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""

    def close(self) -> None:
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def call(self, *args: str | bytes):
        parts = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a.encode() if isinstance(a, str) else a
            parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(parts))
        return self._reply()

    def _line(self) -> bytes:
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RuntimeError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind in (b"$", b"="):
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                chunk = self.sock.recv(max(65536, n + 2 - len(self.buf)))
                if not chunk:
                    raise ConnectionError("server closed the connection")
                self.buf += chunk
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data.decode(errors="replace")
        if kind in (b"*", b"~", b">"):
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        if kind == b"_":
            return None
        raise RuntimeError(f"unexpected reply {line[:40]!r}")


def parse_info(text: str) -> dict[str, str]:
    info = {}
    for line in text.splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            info[k.strip()] = v.strip()
    return info


def info_int(port: int, section: str, field_name: str) -> int | None:
    try:
        with Resp(port) as r:
            value = parse_info(r.call("INFO", section)).get(field_name)
        return int(value) if value is not None else None
    except (RuntimeError, ValueError, OSError):
        return None


# ---------------------------------------------------------------------------------------------
# Servers

@dataclass
class ServerSpec:
    name: str
    kind: str  # vitrine | redis | peer
    binary: str
    args: list[str] = field(default_factory=list)
    # A new, empty --dir for every run (the append-only variants: each run starts with no file).
    fresh_dir: bool = False
    # A client subscribed to every keyspace event (PSUBSCRIBE __key*__:*) while it is measured.
    subscriber: bool = False

    def argv_preview(self) -> list[str]:
        return [self.binary, *self.args]


class ExposedError(RuntimeError):
    """The server listens beyond loopback: never retried, never measured."""


class RunningServer:
    """One fresh server process on a free loopback port. Use as a context manager."""

    def __init__(self, spec: ServerSpec, workdir: Path):
        self.spec = spec
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.log_path = workdir / f"{spec.name}.log"
        self.data_dir: Path | None = None

    def __enter__(self) -> "RunningServer":
        last_error = None
        for _ in range(3):  # a free port can be taken between our probe and the server's bind
            try:
                self._start()
                return self
            except ExposedError:
                self._stop()
                raise
            except RuntimeError as e:
                last_error = e
                self._stop()
        raise RuntimeError(f"{self.spec.name} did not start: {last_error}")

    def __exit__(self, *exc) -> None:
        self._stop()

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def _argv(self) -> tuple[list[str], Path | None]:
        s = self.spec
        if s.kind == "vitrine":
            port_file = self.workdir / f"{s.name}.port"
            port_file.unlink(missing_ok=True)
            data_dir = self.workdir
            if s.fresh_dir:
                data_dir = Path(tempfile.mkdtemp(prefix=f"{s.name}-", dir=self.workdir))
                self.data_dir = data_dir
            # The admin port on a free port too, so runs never collide with a vitrine on 8080.
            return [s.binary, "--port", "0", "--bind", "127.0.0.1", "--port-file", str(port_file),
                    "--http-port", "0", "--dir", str(data_dir), *s.args], port_file
        self.port = free_port()
        if s.kind == "redis":
            data_dir = self.workdir / f"{s.name}-data"
            data_dir.mkdir(exist_ok=True)
            return [s.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                    "--appendonly", "no", "--daemonize", "no", "--dir", str(data_dir),
                    *s.args], None
        if any("{port}" in a for a in s.args):
            return [s.binary, *[a.replace("{port}", str(self.port)) for a in s.args]], None
        return [s.binary, *s.args, "--port", str(self.port)], None

    def _start(self) -> None:
        argv, port_file = self._argv()
        logf = open(self.log_path, "ab")
        try:
            # A session of its own: a Ctrl-C in the terminal reaches us, and we stop it.
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                                         cwd=self.workdir, start_new_session=True)
        finally:
            logf.close()
        _LIVE.append(self.proc)
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"exited with {self.proc.returncode}: {self._log_tail()}")
            if port_file is not None:
                try:
                    self.port = int(port_file.read_text().strip())
                except (OSError, ValueError):
                    time.sleep(0.02)
                    continue
            try:
                with Resp(self.port, timeout=2) as r:
                    if r.call("PING") == "PONG":
                        break
            except (OSError, RuntimeError):
                time.sleep(0.05)
        else:
            raise RuntimeError(f"not answering PING after {SERVER_START_TIMEOUT:.0f}s: {self._log_tail()}")
        if self.port == FORBIDDEN_PORT:
            raise RuntimeError("server ended up on port 6379")
        exposed = non_loopback_listeners(self.port)
        if exposed:
            raise ExposedError(f"listens on {', '.join(exposed)} port {self.port}, not only on "
                               f"loopback; stopped it. Give it its bind flag in PEER "
                               f"(e.g. --bind 127.0.0.1)")

    def _stop(self) -> None:
        if self.proc is not None:
            _terminate(self.proc)
            self.proc = None
        if self.data_dir is not None:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            self.data_dir = None

    def _log_tail(self) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
            return " | ".join(lines[-5:]) or "(no output)"
        except OSError:
            return "(no log)"


def parse_peers(text: str) -> list[ServerSpec]:
    peers = []
    for item in text.split(";"):
        item = item.strip()
        if not item:
            continue
        name, sep, command = item.partition("=")
        words = shlex.split(command)
        if not sep or not name.strip() or not words:
            raise SystemExit(f"PEER entry {item!r}: expected name=/path/to/binary [args]")
        name = name.strip()
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise SystemExit(f"PEER name {name!r}: use letters, digits, '.', '_' or '-'")
        binary = shutil.which(words[0]) or words[0]
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"PEER {name}: {words[0]} is not an executable")
        args = words[1:]
        # Redis and its forks listen on every interface unless told otherwise.
        if (re.search(r"redis|valkey|keydb", Path(binary).name)
                and not any(a in ("--bind", "bind") for a in args)):
            args += ["--bind", "127.0.0.1"]
        peers.append(ServerSpec(name, "peer", binary, args))
    return peers


# ---------------------------------------------------------------------------------------------
# Loads

@dataclass
class Load:
    id: str
    tool: str  # redis-benchmark | memtier | memory
    title: str
    command: str
    tests: list[str]
    pipeline: int = 1
    ratio: str = ""
    prefill: bool = False
    # redis-benchmark --threads: 1 is the load as specified; 2 lets the client keep up at
    # pipeline 1, where one client thread saturates its core before either server does.
    client_threads: int = 1


@dataclass
class Sample:
    """One measurement of one test on one server in one repetition."""
    ops_per_sec: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    p999_ms: float | None = None
    avg_ms: float | None = None
    cpu_s: float | None = None
    cpu_us_per_op: float | None = None
    wall_s: float | None = None
    # CPUs' worth of work by processes other than the server, the client and this harness
    # during the load: anything else running on the machine that skews the figures.
    background_cpus: float | None = None
    # CPUs' worth of work by the benchmark client during the load: near 1.0 for a
    # single-threaded client means the client, not the server, set the pace.
    client_cpus: float | None = None
    requests: int = 0
    error: str | None = None


_RB_HIST = re.compile(r"^\s*([\d.]+)% <= ([\d.]+) milliseconds \(cumulative count (\d+)\)")


def parse_redis_benchmark(text: str) -> Sample:
    """Parses redis-benchmark 7's full (non-CSV, non-quiet) report of one test."""
    text = text.replace("\r", "\n")
    s = Sample()
    m = re.search(r"throughput summary:\s*([\d.]+) requests per second", text)
    if not m:
        raise RuntimeError("no throughput summary in redis-benchmark output")
    s.ops_per_sec = float(m.group(1))
    m = re.search(r"latency summary \(msec\):\s*\n\s*(.+)\n\s*(.+)\n", text)
    if m:
        summary = dict(zip(m.group(1).split(), (float(x) for x in m.group(2).split())))
        s.avg_ms, s.p50_ms, s.p99_ms = summary.get("avg"), summary.get("p50"), summary.get("p99")
    points = []  # (latency ms, cumulative count), from both printed distributions
    for line in text.splitlines():
        hm = _RB_HIST.match(line)
        if hm:
            points.append((float(hm.group(2)), int(hm.group(3))))
    if points:
        total = max(c for _, c in points)
        target = math.ceil(total * 0.999)
        s.p999_ms = min(v for v, c in points if c >= target)
    return s


# The rate limiter `rb-evalsha` runs: allow ARGV[1] calls per ARGV[2] seconds per key.
RATE_LIMITER = (
    "local n = redis.call('INCR', KEYS[1]) "
    "if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end "
    "if n > tonumber(ARGV[1]) then return 0 end return 1"
)


def run_redis_benchmark(rb: str, port: int, test: str, requests: int, pipeline: int,
                        timeout: float, client_threads: int = 1) -> Sample:
    argv = [rb, "-h", "127.0.0.1", "-p", str(port), "-n", str(requests),
            "-c", str(RB_CLIENTS), "-d", str(RB_DATA), "-r", str(RB_KEYSPACE), "-P", str(pipeline)]
    if test == "evalsha":
        with Resp(port, timeout) as r:
            sha = r.call("SCRIPT", "LOAD", RATE_LIMITER)
        if not isinstance(sha, str) or len(sha) != 40:
            raise RuntimeError(f"SCRIPT LOAD answered {sha!r}")
        argv += ["EVALSHA", sha, "1", "rl:__rand_int__", "100", "60"]
    else:
        argv += ["-t", test]
    if client_threads > 1:
        argv += ["--threads", str(client_threads)]
    done = run_bounded(argv, timeout)
    if done.returncode != 0:
        raise RuntimeError(f"redis-benchmark exited with {done.returncode}: "
                           f"{(done.stderr or done.stdout).strip()[-300:]}")
    if "Error" in done.stderr or "ERR" in done.stdout:
        raise RuntimeError(f"redis-benchmark reported errors: {done.stderr.strip()[-300:]}")
    return parse_redis_benchmark(done.stdout)


def memtier_requests_per_client(requests: int) -> int:
    return max(1, requests // (MT_CLIENTS * MT_THREADS))


def _mt_percentile(stats: dict, want: float) -> float | None:
    pl = stats.get("Percentile Latencies")
    if isinstance(pl, dict):
        for key, value in pl.items():
            m = re.fullmatch(r"p([\d.]+)", key)
            if m and abs(float(m.group(1)) - want) < 1e-6:
                return float(value)
    return None


def _mt_hist_percentile(hist: list, want: float) -> float | None:
    """Older memtier (1.x): a list of {"<=msec": v, "percent": p}."""
    for point in hist or []:
        if float(point.get("percent", 0)) >= want:
            return float(point["<=msec"])
    return None


def parse_memtier_json(path: Path, only_gets: bool) -> Sample:
    text = path.read_text()
    # Some memtier versions print nan/inf, which is not JSON.
    text = re.sub(r"(?<=[:\[,\s])-?(nan|inf)\b", "null", text)
    data = json.loads(text)
    stats = data.get("ALL STATS") or {}
    totals = stats.get("Totals") or {}
    s = Sample()
    s.ops_per_sec = float(totals["Ops/sec"])
    s.avg_ms = totals.get("Average Latency", totals.get("Latency"))
    s.p50_ms = _mt_percentile(totals, 50)
    s.p99_ms = _mt_percentile(totals, 99)
    s.p999_ms = _mt_percentile(totals, 99.9)
    if s.p50_ms is None and only_gets and isinstance(stats.get("GET"), list):
        # memtier 1.x has no percentiles for Totals, only a cumulative histogram per command.
        hist = stats["GET"]
        s.p50_ms, s.p99_ms, s.p999_ms = (_mt_hist_percentile(hist, q) for q in (50, 99, 99.9))
    return s


def memtier_argv(mt: str, port: int, load: Load, requests: int, out: Path) -> list[str]:
    return [mt, "-s", "127.0.0.1", "-p", str(port), "--protocol=redis",
            f"--clients={MT_CLIENTS}", f"--threads={MT_THREADS}", f"--ratio={load.ratio}",
            f"--data-size={MT_DATA}", f"--key-maximum={MT_KEYMAX}", f"--pipeline={load.pipeline}",
            f"--requests={memtier_requests_per_client(requests)}", "--distinct-client-seed",
            "--hide-histogram", "--print-percentiles=50,99,99.9", f"--json-out-file={out}"]


def memtier_prefill(mt: str, port: int, timeout: float, workdir: Path) -> None:
    argv = [mt, "-s", "127.0.0.1", "-p", str(port), "--protocol=redis", "--clients=1",
            "--threads=1", "--ratio=1:0", f"--data-size={MT_DATA}", "--key-minimum=1",
            f"--key-maximum={MT_KEYMAX}", "--key-pattern=P:P", "--requests=allkeys",
            "--pipeline=64", "--hide-histogram", f"--json-out-file={workdir / 'prefill.json'}"]
    done = run_bounded(argv, timeout)
    if done.returncode != 0:
        raise RuntimeError(f"memtier prefill exited with {done.returncode}: {done.stderr.strip()[-300:]}")


def run_memtier(mt: str, port: int, load: Load, requests: int, timeout: float,
                workdir: Path) -> Sample:
    out = workdir / f"memtier-{load.id}.json"
    out.unlink(missing_ok=True)
    done = run_bounded(memtier_argv(mt, port, load, requests, out), timeout)
    if done.returncode != 0:
        raise RuntimeError(f"memtier exited with {done.returncode}: {done.stderr.strip()[-300:]}")
    return parse_memtier_json(out, only_gets=load.ratio == "0:1")


# ---------------------------------------------------------------------------------------------
# The memory figure

def memory_payload(keys: int) -> list[bytes]:
    """`keys` SET commands as RESP, in chunks of about 1 MB."""
    chunks = []
    per_chunk = 16_384
    head = b"*3\r\n$3\r\nSET\r\n$%d\r\n" % MEM_KEY_BYTES
    mid = b"\r\n$%d\r\n" % MEM_VALUE_BYTES
    for start in range(0, keys, per_chunk):
        stop = min(keys, start + per_chunk)
        # key:%012d is 16 bytes, v%031d is 32 bytes (not a number, so no integer encoding)
        chunks.append(b"".join(head + b"key:%012d" % i + mid + b"v%031d" % i + b"\r\n"
                               for i in range(start, stop)))
    return chunks


def stream_pipeline(port: int, chunks: list[bytes], replies: int, timeout: float) -> None:
    """Sends every chunk while reading the replies on this thread, so neither side blocks."""
    deadline = time.monotonic() + timeout
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    send_error: list[BaseException] = []

    def sender():
        try:
            for chunk in chunks:
                sock.sendall(chunk)
        except OSError as e:
            send_error.append(e)

    t = threading.Thread(target=sender, daemon=True)
    t.start()
    expected = len(b"+OK\r\n") * replies
    received = bytearray()
    try:
        while len(received) < expected:
            if time.monotonic() > deadline:
                raise RuntimeError(f"memory load: {len(received) // 5} of {replies} replies "
                                   f"after {timeout:.0f}s")
            try:
                chunk = sock.recv(1 << 20)
            except socket.timeout:
                continue
            if not chunk:
                raise RuntimeError("memory load: server closed the connection")
            if b"-" in chunk:
                at = chunk.index(b"-")
                raise RuntimeError(f"memory load: error reply {bytes(chunk[at:at + 120])!r}")
            received += chunk
    finally:
        sock.close()
        t.join(timeout=5)
    if send_error:
        raise RuntimeError(f"memory load: send failed: {send_error[0]}")
    if received.count(b"+OK\r\n") != replies:
        raise RuntimeError("memory load: unexpected replies")


def measure_memory(srv: RunningServer, chunks: list[bytes], keys: int, timeout: float) -> dict:
    time.sleep(0.3)  # let a fresh server finish its start-up allocations
    used_before = info_int(srv.port, "memory", "used_memory")
    rss_before = rss_bytes(srv.pid)
    t0 = time.monotonic()
    stream_pipeline(srv.port, chunks, keys, timeout)
    load_s = time.monotonic() - t0
    time.sleep(0.5)
    with Resp(srv.port) as r:
        dbsize = r.call("DBSIZE")
    if dbsize != keys:
        raise RuntimeError(f"DBSIZE is {dbsize} after loading {keys} keys")
    used = info_int(srv.port, "memory", "used_memory")
    rss_after = rss_bytes(srv.pid)
    return {"used_memory_before": used_before, "used_memory": used, "rss_before": rss_before,
            "rss_after": rss_after, "load_s": round(load_s, 3)}


# ---------------------------------------------------------------------------------------------
# Facts about the machine and the tools

def cmd_output(argv: list[str], timeout: float = 10) -> str | None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        return (done.stdout or done.stderr).strip() or None
    except (OSError, subprocess.TimeoutExpired):
        return None


def machine_info() -> dict:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) * 1024
    except OSError:
        pass
    return {"nproc": len(os.sched_getaffinity(0)), "cpu_model": model,
            "kernel": os.uname().release, "mem_total_bytes": mem}


def git_info() -> dict:
    commit = cmd_output(["git", "-C", str(ROOT), "rev-parse", "HEAD"])
    status = cmd_output(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"])
    return {"commit": commit, "dirty": None if commit is None else bool(status)}


def first_version(text: str | None) -> str | None:
    if not text:
        return None
    m = re.search(r"v=(\S+)", text) or re.search(r"(\d+\.\d+(?:\.\d+)?\S*)", text)
    return m.group(1) if m else text.splitlines()[0]


# ---------------------------------------------------------------------------------------------
# Statistics and the report

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt_num(v, digits=0, suffix=""):
    if v is None:
        return "–"
    return f"{v:,.{digits}f}{suffix}"


def fmt_ratio(v):
    return "–" if v is None else f"{v:.2f}x"


def fmt_bytes(n):
    if n is None:
        return "–"
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def fmt_duration(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    return f"{m}m {s:02d}s" if m else f"{s}s"


def summarize_runs(samples: dict, loads: list[Load], servers: list[ServerSpec]) -> list[dict]:
    runs = []
    for load in loads:
        if load.tool == "memory":
            continue
        for test in load.tests:
            for spec in servers:
                reps = samples.get((spec.name, load.id, test), [])
                ok = [s for _, _, s in reps if s.error is None]
                ops = [s.ops_per_sec for s in ok if s.ops_per_sec is not None]
                med_ops = median(ops)
                runs.append({
                    "server": spec.name, "load": load.id, "test": test,
                    "ops_per_sec": round(med_ops, 2) if med_ops is not None else None,
                    "p50_ms": median(s.p50_ms for s in ok),
                    "p99_ms": median(s.p99_ms for s in ok),
                    "p999_ms": median(s.p999_ms for s in ok),
                    "avg_ms": median(s.avg_ms for s in ok),
                    "cpu_us_per_op": _round(median(s.cpu_us_per_op for s in ok), 4),
                    "client_cpus": _round(median(s.client_cpus for s in ok), 3),
                    "requests": reps[0][2].requests if reps else 0,
                    "spread": (_round((max(ops) - min(ops)) / med_ops, 4)
                               if len(ops) > 1 and med_ops else None),
                    "reps": [{"rep": rep, "position": pos, "ops_per_sec": s.ops_per_sec,
                              "p50_ms": s.p50_ms, "p99_ms": s.p99_ms, "p999_ms": s.p999_ms,
                              "avg_ms": s.avg_ms, "cpu_us_per_op": _round(s.cpu_us_per_op, 4),
                              "cpu_s": _round(s.cpu_s, 3), "wall_s": _round(s.wall_s, 3),
                              "background_cpus": _round(s.background_cpus, 3),
                              "client_cpus": _round(s.client_cpus, 3),
                              "error": s.error} for rep, pos, s in reps],
                })
    return runs


def _round(v, digits):
    return None if v is None else round(v, digits)


def compute_ratios(runs: list[dict], servers: list[ServerSpec]) -> list[dict]:
    by_key = {(r["server"], r["load"], r["test"]): r for r in runs}
    out = []
    base = servers[0].name if servers and servers[0].kind == "vitrine" else None
    if base is None:
        return out
    for r in runs:
        if r["server"] == base:
            continue
        v = by_key.get((base, r["load"], r["test"]))
        if not v:
            continue
        out.append({"load": r["load"], "test": r["test"], "peer": r["server"],
                    "ops_per_sec": _round(ratio(v["ops_per_sec"], r["ops_per_sec"]), 4),
                    "cpu_us_per_op": _round(ratio(v["cpu_us_per_op"], r["cpu_us_per_op"]), 4),
                    "p99_ms": _round(ratio(v["p99_ms"], r["p99_ms"]), 4)})
    return out


def compute_aof_cost(runs: list[dict]) -> list[dict]:
    """Each append-only variant's ops/sec against plain vitrine's (variant ÷ vitrine)."""
    by_key = {(r["server"], r["load"], r["test"]): r for r in runs}
    out = []
    for r in runs:
        if not (r["server"].startswith(AOF_PREFIX) or r["server"] == NOTIFY_NAME):
            continue
        base = by_key.get(("vitrine", r["load"], r["test"]))
        base_ops = base["ops_per_sec"] if base else None
        out.append({"load": r["load"], "test": r["test"], "server": r["server"],
                    "ops_per_sec": r["ops_per_sec"], "base_ops_per_sec": base_ops,
                    "ratio": _round(ratio(r["ops_per_sec"], base_ops), 4)})
    return out


def summarize_memory(mem_samples: dict, servers: list[ServerSpec], keys: int) -> list[dict]:
    out = []
    for spec in servers:
        reps = mem_samples.get(spec.name, [])
        ok = [m for _, m in reps if not m.get("error")]
        used = median(m["used_memory"] for m in ok)
        growth = median(m["rss_after"] - m["rss_before"] for m in ok)
        out.append({
            "server": spec.name, "keys": keys, "key_bytes": MEM_KEY_BYTES,
            "value_bytes": MEM_VALUE_BYTES,
            "used_memory": int(used) if used is not None else None,
            "used_memory_per_key": _round(median(
                (m["used_memory"] - (m["used_memory_before"] or 0)) / keys
                for m in ok if m["used_memory"] is not None), 2),
            "rss_growth_bytes": int(growth) if growth is not None else None,
            "rss_growth_per_key": _round(growth / keys, 2) if growth is not None else None,
            "load_s": _round(median(m["load_s"] for m in ok), 3),
            "reps": [{"rep": rep, **m} for rep, m in reps],
        })
    return out


def render_markdown(result: dict, loads: list[Load]) -> str:
    lines = []
    add = lines.append
    mach = result["machine"]
    versions = result["versions"]
    git = result["git"]
    settings = result["settings"]
    add("# Vitrine benchmark")
    add("")
    add(f"- Date: {result['started_at']} (took {fmt_duration(result['duration_s'])})")
    add(f"- Command: `{result['command']}`")
    add(f"- Machine: {mach['nproc']} CPUs, {mach['cpu_model']}, Linux {mach['kernel']}, "
        f"{fmt_bytes(mach['mem_total_bytes'])} RAM; client and servers share these CPUs")
    add("- Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items() if v))
    if git.get("commit"):
        add(f"- Tree: {git['commit'][:12]}{' with uncommitted changes' if git.get('dirty') else ''}")
    add(f"- Method: median of {settings['reps']} repetitions; every server starts fresh for every "
        f"load (127.0.0.1, no persistence except the vitrine-aof-* variants); the server order reverses on every other repetition. "
        f"CPU µs/op is the server's utime+stime from /proc/PID/stat over the load, per request; "
        f"client CPUs is the benchmark client's CPU time over the wall time (about 1.0 for a "
        f"single-threaded client means the client set the pace, not the server). "
        f"Ratios are vitrine ÷ peer: above 1 is better for ops/sec, below 1 is better for CPU/op "
        f"and p99.")
    runs = {(r["server"], r["load"], r["test"]): r for r in result["runs"]}
    ratios = {(r["peer"], r["load"], r["test"]): r for r in result["ratios"]}
    names = [s["name"] for s in result["servers"]]
    for load in loads:
        if load.tool == "memory":
            continue
        add("")
        add(f"## {load.title}")
        add("")
        add(f"`{load.command}`")
        add("")
        add("| test | server | ops/sec | spread | p50 ms | p99 ms | p99.9 ms | CPU µs/op "
            "| client CPUs | ops/sec vitrine÷peer | CPU/op vitrine÷peer | p99 vitrine÷peer |")
        add("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
        for test in load.tests:
            for name in names:
                r = runs.get((name, load.id, test))
                if not r:
                    continue
                q = ratios.get((name, load.id, test), {})
                add(f"| {test} | {name} | {fmt_num(r['ops_per_sec'])} | "
                    f"{fmt_num(r['spread'] * 100 if r['spread'] is not None else None, 1, '%')} | "
                    f"{fmt_num(r['p50_ms'], 3)} | {fmt_num(r['p99_ms'], 3)} | "
                    f"{fmt_num(r['p999_ms'], 3)} | {fmt_num(r['cpu_us_per_op'], 2)} | "
                    f"{fmt_num(r.get('client_cpus'), 2)} | "
                    f"{fmt_ratio(q.get('ops_per_sec'))} | {fmt_ratio(q.get('cpu_us_per_op'))} | "
                    f"{fmt_ratio(q.get('p99_ms'))} |")
    if result.get("aof_cost"):
        add("")
        add("## Persistence cost")
        add("")
        add("ops/sec with the append-only file on (vitrine-aof-*: each run a fresh, empty `--dir` "
            "under the system temp directory), or with keyspace notifications on "
            "(vitrine-notify: `--notify-keyspace-events KEA` and a subscriber to every event), "
            "against plain vitrine (no persistence, notifications off) in the same run.")
        add("")
        add("| load | test | server | ops/sec | vitrine ops/sec | ÷ vitrine |")
        add("|---|---|---|--:|--:|--:|")
        for c in result["aof_cost"]:
            add(f"| {c['load']} | {c['test']} | {c['server']} | {fmt_num(c['ops_per_sec'])} | "
                f"{fmt_num(c['base_ops_per_sec'])} | {fmt_ratio(c['ratio'])} |")
    if result.get("memory"):
        mem = result["memory"]
        keys = mem[0]["keys"]
        add("")
        add(f"## Memory: {keys:,} keys ({MEM_KEY_BYTES} B keys, {MEM_VALUE_BYTES} B values)")
        add("")
        add("Loaded as one RESP pipeline into a fresh server; DBSIZE checked afterwards. "
            "used_memory is the server's own INFO figure; RSS growth is VmRSS after minus before.")
        add("")
        add("| server | used_memory | used_memory growth/key | RSS growth | RSS growth/key "
            "| RSS/key vitrine÷peer | load time |")
        add("|---|--:|--:|--:|--:|--:|--:|")
        base = next((m for m in mem if m["server"] == names[0]), None)
        for m in mem:
            rel = None
            if base is not None and m is not base:
                rel = ratio(base["rss_growth_per_key"], m["rss_growth_per_key"])
            add(f"| {m['server']} | {fmt_bytes(m['used_memory'])} | "
                f"{fmt_num(m['used_memory_per_key'], 1, ' B')} | {fmt_bytes(m['rss_growth_bytes'])} | "
                f"{fmt_num(m['rss_growth_per_key'], 1, ' B')} | {fmt_ratio(rel)} | "
                f"{fmt_num(m['load_s'], 2, ' s')} |")
    notes = result.get("notes", []) + [f"ERROR: {e}" for e in result.get("errors", [])]
    if notes:
        add("")
        add("## Notes")
        add("")
        for n in notes:
            add(f"- {n}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# --mrc: the accuracy of the what-if (miss-ratio) curve

def run_mrc(args, command: str) -> int:
    cargo = shutil.which("cargo")
    if not cargo:
        raise SystemExit("cargo not found")
    argv = [cargo, "run", *shlex.split(os.environ.get("BENCH_CARGO_FLAGS", "")), "--release", "-q",
            "-p", "vitrine-engine", "--example", "mrc_accuracy"]
    log(" ".join(argv))
    try:
        proc = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, text=True, timeout=args.timeout * 3)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"mrc_accuracy did not finish within {args.timeout * 3:.0f}s")
    if proc.returncode != 0:
        return proc.returncode
    out = Path(args.out).with_suffix(".md") if args.out else ROOT / "benchmarks" / "mrc.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    report = f"# What-if memory: accuracy of the miss-ratio curve\n\n`{command}`\n\n{proc.stdout}"
    out.write_text(report)
    sys.stdout.write(report)
    log(f"wrote {out}")
    return 0


# ---------------------------------------------------------------------------------------------
# --micro: the criterion benchmarks

def run_micro(args, started_at: str, t_start: float, command: str) -> int:
    cargo = shutil.which("cargo")
    if not cargo:
        raise SystemExit("cargo not found")
    target = args.target_dir
    argv = [cargo, "bench", *shlex.split(os.environ.get("BENCH_CARGO_FLAGS", "")),
            "-p", "vitrine-engine", "--bench", "engine", "--", "--noplot"]
    if args.micro_filter:
        argv.append(args.micro_filter)
    log(" ".join(argv))
    begin = time.time()
    proc = subprocess.Popen(argv, cwd=ROOT, start_new_session=True)
    _LIVE.append(proc)
    try:
        rc = proc.wait(timeout=args.timeout * 3)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise SystemExit(f"cargo bench did not finish within {args.timeout * 3:.0f}s")
    finally:
        if proc in _LIVE:
            _LIVE.remove(proc)
    if rc != 0:
        return rc
    micro = []
    found = glob.glob(str(target / "criterion" / "**" / "new" / "benchmark.json"), recursive=True)
    for bench_json in sorted(found, key=lambda f: Path(f).stat().st_mtime):  # run order
        new = Path(bench_json).parent
        if Path(bench_json).stat().st_mtime < begin - 1:
            continue  # from an earlier run, not this one
        meta = json.loads(Path(bench_json).read_text())
        est = json.loads((new / "estimates.json").read_text())
        elements = (meta.get("throughput") or {}).get("Elements")
        # The figure criterion prints: the slope of time against iterations where it has one.
        typical = est.get("slope") or est["mean"]
        t = typical["point_estimate"]
        micro.append({
            "id": meta.get("full_id") or meta.get("title"),
            "group": meta.get("group_id"), "function": meta.get("function_id"),
            "time_ns": round(t, 3),
            "ci_low_ns": round(typical["confidence_interval"]["lower_bound"], 3),
            "ci_high_ns": round(typical["confidence_interval"]["upper_bound"], 3),
            "mean_ns": round(est["mean"]["point_estimate"], 3),
            "median_ns": round(est["median"]["point_estimate"], 3),
            "elements": elements,
            "elements_per_sec": round(elements * 1e9 / t, 1) if elements and t else None,
        })
    finished = time.monotonic()
    result = {
        "schema": "vitrine-bench/1", "kind": "micro",
        "id": f"{started_at}-{(git_info()['commit'] or 'nogit')[:12]}",
        "started_at": started_at, "finished_at": now_iso(),
        "duration_s": round(finished - t_start, 1), "command": command, "git": git_info(),
        "machine": machine_info(),
        "versions": {"rustc": first_version(cmd_output(["rustc", "--version"]))},
        "settings": {"filter": args.micro_filter}, "servers": [], "loads": [], "runs": [],
        "ratios": [], "memory": [], "micro": micro, "notes": [], "errors": [],
    }
    lines = ["# Vitrine micro-benchmarks (criterion)", "",
             f"- Date: {started_at} (took {fmt_duration(result['duration_s'])})",
             f"- Command: `{command}`",
             f"- Machine: {result['machine']['nproc']} CPUs, {result['machine']['cpu_model']}, "
             f"Linux {result['machine']['kernel']}", "",
             "Time per iteration as criterion prints it (the slope estimate), with its 95% "
             "confidence interval; an iteration is one command, or 16 for the `x16` batches.", "",
             "| benchmark | time | 95% CI | per command | commands/sec |",
             "|---|--:|--:|--:|--:|"]
    for m in micro:
        per = m["time_ns"] / m["elements"] if m["elements"] else None
        lines.append(f"| {m['id']} | {fmt_ns(m['time_ns'])} | {fmt_ns(m['ci_low_ns'])} – "
                     f"{fmt_ns(m['ci_high_ns'])} | {fmt_ns(per)} | "
                     f"{fmt_num(m['elements_per_sec'])} |")
    md = "\n".join(lines) + "\n"
    out = Path(args.out) if args.out else BENCH_DIR / "micro.json"
    write_outputs(result, md, out)
    print(md, flush=True)
    return 0


def fmt_ns(ns):
    if ns is None:
        return "–"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.1f} ns"


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def write_outputs(result: dict, md: str, json_path: Path) -> None:
    json_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = json_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n")
    tmp.replace(json_path)
    json_path.with_suffix(".md").write_text(md)
    log(f"wrote {json_path} and {json_path.with_suffix('.md')}")


# ---------------------------------------------------------------------------------------------
# The socket benchmark

def build_loads(args, memtier: str | None, requests: int) -> list[Load]:
    loads = []
    for p in (1, 16):
        cmd = (f"redis-benchmark -t set,get -n {requests} -c {RB_CLIENTS} -d {RB_DATA} "
               f"-r {RB_KEYSPACE} -P {p}")
        loads.append(Load(f"rb-p{p}", "redis-benchmark",
                          f"redis-benchmark SET/GET, {RB_CLIENTS} clients, pipeline {p}",
                          cmd, ["SET", "GET"], pipeline=p))
    # The same pipeline-1 load with a client that can keep up: one redis-benchmark thread
    # saturates its core at pipeline 1 before either server does, which hides the servers'
    # difference. Not one of the loads: reported beside them, clearly labelled.
    loads.append(Load("rb-p1-c2", "redis-benchmark",
                      f"redis-benchmark SET/GET, {RB_CLIENTS} clients, pipeline 1, client with 2 threads",
                      f"redis-benchmark -t set,get -n {requests} -c {RB_CLIENTS} -d {RB_DATA} "
                      f"-r {RB_KEYSPACE} -P 1 --threads 2",
                      ["SET", "GET"], pipeline=1, client_threads=2))
    # A script per request: the rate-limiter shape applications send with EVALSHA (INCR, an
    # EXPIRE on the first hit, a comparison), loaded once with SCRIPT LOAD. Opt-in
    # (`--loads rb-evalsha`): servers without scripting refuse it.
    loads.append(Load("rb-evalsha", "redis-benchmark",
                      f"redis-benchmark EVALSHA of a rate limiter, {RB_CLIENTS} clients, pipeline 16",
                      f"SCRIPT LOAD <rate limiter>; redis-benchmark -n {requests} -c {RB_CLIENTS} "
                      f"-r {RB_KEYSPACE} -P 16 EVALSHA <sha> 1 rl:__rand_int__ 100 60",
                      ["EVALSHA"], pipeline=16))
    if memtier:
        per_client = memtier_requests_per_client(requests)
        for ratio_, label, prefill in (("1:1", "SET:GET 1:1", False), ("0:1", "GET", True)):
            for p in (1, 16):
                lid = f"mt-{'get' if prefill else 'mixed'}-p{p}"
                cmd = (f"memtier_benchmark --clients {MT_CLIENTS} --threads {MT_THREADS} "
                       f"--ratio {ratio_} --data-size {MT_DATA} --key-maximum {MT_KEYMAX} "
                       f"--pipeline {p} --requests {per_client}")
                if prefill:
                    cmd += "   (after a prefill of every key with --ratio 1:0 --key-pattern P:P)"
                loads.append(Load(lid, "memtier",
                                  f"memtier {label}, {MT_CLIENTS * MT_THREADS} clients, "
                                  f"{MT_DATA} B values, pipeline {p}",
                                  cmd, [label], pipeline=p, ratio=ratio_, prefill=prefill))
    if args.memory:
        loads.append(Load("memory", "memory", "memory", f"{args.memory_keys} SETs", ["memory"]))
    if not args.loads or "rb-evalsha" not in args.loads.split(","):
        loads = [l for l in loads if l.id != "rb-evalsha"]
    if args.loads:
        wanted = set(args.loads.split(","))
        unknown = wanted - {l.id for l in loads}
        if unknown:
            raise SystemExit(f"--loads: unknown {', '.join(sorted(unknown))}; "
                             f"known: {', '.join(l.id for l in loads)}")
        loads = [l for l in loads if l.id in wanted]
    return loads


class KeyspaceSubscriber:
    """A client with PSUBSCRIBE __key*__:* that reads and drops every message while open, so
    the server pays for delivering its notifications as to a real subscriber."""

    def __init__(self, port: int, enabled: bool):
        self.port, self.enabled = port, enabled
        self.sock: socket.socket | None = None
        self.thread: threading.Thread | None = None
        self.received = 0

    def __enter__(self):
        if not self.enabled:
            return self
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        self.sock.sendall(b"*2\r\n$10\r\nPSUBSCRIBE\r\n$10\r\n__key*__:*\r\n")
        self.sock.settimeout(None)

        def drain():
            try:
                while chunk := self.sock.recv(1 << 16):
                    self.received += len(chunk)
            except OSError:
                pass

        self.thread = threading.Thread(target=drain, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()
        if self.thread is not None:
            self.thread.join(timeout=5)
            log(f"subscriber received {self.received:,} bytes of notifications")


def run_step(load: Load, spec: ServerSpec, workdir: Path, versions: dict, rb: str,
             memtier: str | None, requests: int, chunks: list[bytes], args,
             label: str) -> list[tuple[str, object]]:
    """One load against one fresh server: [(test, Sample)], or [("memory", dict)]."""
    with RunningServer(spec, workdir) as srv, KeyspaceSubscriber(srv.port, spec.subscriber):
        if spec.kind == "peer" and spec.name not in versions:
            versions[spec.name] = peer_version(srv.port)
        if load.tool == "memory":
            m = measure_memory(srv, chunks, args.memory_keys, args.timeout)
            log(f"{label}: used_memory {fmt_bytes(m['used_memory'])}, RSS +"
                f"{(m['rss_after'] - m['rss_before']) / args.memory_keys:.1f} B/key")
            return [("memory", {**m, "error": None})]
        if load.prefill:
            memtier_prefill(memtier, srv.port, args.timeout, workdir)
        out = []
        for test in load.tests:
            s = measure(load, test, srv, rb, memtier, requests, args.timeout, workdir)
            out.append((test, s))
            log(f"{label} {test}: {fmt_num(s.ops_per_sec)} ops/s, p99 {fmt_num(s.p99_ms, 3)} ms, "
                f"CPU {fmt_num(s.cpu_us_per_op, 2)} µs/op, background "
                f"{fmt_num(s.background_cpus, 2)} CPUs")
        return out


def run_socket(args, started_at: str, t_start: float, command: str) -> int:
    requests = args.requests
    vitrine = Path(args.vitrine)
    if not os.access(vitrine, os.X_OK):
        raise SystemExit(f"{vitrine} is not an executable; build it with "
                         f"`cargo build --release -p vitrine-server` or run scripts/bench")
    redis = shutil.which(args.redis_server)
    rb = shutil.which(args.redis_benchmark)
    if not rb:
        raise SystemExit("redis-benchmark not found (apt-get install redis-tools)")
    memtier = os.environ.get("MEMTIER") or None
    if memtier and not os.access(memtier, os.X_OK):
        raise SystemExit(f"MEMTIER={memtier} is not an executable")

    servers = [ServerSpec("vitrine", "vitrine", str(vitrine), shlex.split(args.vitrine_args))]
    wanted_names = args.servers.split(",") if args.servers else []
    for policy in ("everysec", "always"):
        name = f"{AOF_PREFIX}{policy}"
        if args.aof or name in wanted_names:
            servers.append(ServerSpec(name, "vitrine", str(vitrine),
                                      [*shlex.split(args.vitrine_args), "--appendonly", "yes",
                                       "--appendfsync", policy], fresh_dir=True))
    if args.notify or NOTIFY_NAME in wanted_names:
        servers.append(ServerSpec(NOTIFY_NAME, "vitrine", str(vitrine),
                                  [*shlex.split(args.vitrine_args), "--notify-keyspace-events", "KEA"],
                                  subscriber=True))
    if redis:
        servers.append(ServerSpec("redis", "redis", redis))
    else:
        warn("redis-server not found: measuring without it")
    servers += parse_peers(os.environ.get("PEER", ""))
    if len({s.name for s in servers}) != len(servers):
        raise SystemExit("server names must be unique (a PEER may not be called vitrine or redis)")
    if args.servers:
        wanted = args.servers.split(",")
        servers = [s for s in servers if s.name in wanted]
        if not servers:
            raise SystemExit("--servers matched nothing")

    loads = build_loads(args, memtier, requests)
    notes = []
    if not memtier:
        notes.append("memtier loads skipped: memtier_benchmark is not packaged in Debian 12; "
                     "set MEMTIER=/path/to/memtier_benchmark to include them.")
    if any(l.tool == "redis-benchmark" for l in loads):
        notes.append("redis-benchmark SET and GET run as two invocations (-t set, then -t get) "
                     "against the same fresh server, so each has its own CPU figure and GET "
                     "reads what SET wrote.")
        notes.append("p99.9 for redis-benchmark is an upper bound read from its printed latency "
                     "distributions (0.1 ms grid up to 2 ms, 1 ms beyond): differences smaller "
                     "than a grid step mean nothing.")
    notes.append("spread is (max - min) / median of ops/sec over the repetitions.")
    if args.quick:
        notes.append("--quick: a smoke test with few requests; the figures are not comparable "
                     "with a full run.")

    versions = {
        "vitrine": first_version(cmd_output([str(vitrine), "--version"])),
        "redis-server": first_version(cmd_output([redis, "--version"])) if redis else None,
        "redis-benchmark": first_version(cmd_output([rb, "--version"])),
    }
    if memtier:
        versions["memtier_benchmark"] = first_version(cmd_output([memtier, "--version"]))

    chunks = memory_payload(args.memory_keys) if any(l.tool == "memory" for l in loads) else []
    samples: dict = {}
    mem_samples: dict = {}
    errors: list[str] = []
    workdir = Path(tempfile.mkdtemp(prefix="vitrine-bench-"))
    total_steps = args.reps * len(loads) * len(servers)
    reruns = 0
    step = 0
    try:
        for rep in range(1, args.reps + 1):
            order = servers if rep % 2 == 1 else list(reversed(servers))
            for load in loads:
                for pos, spec in enumerate(order, 1):
                    step += 1
                    label = f"[{step}/{total_steps}] rep {rep} {load.id} {spec.name}"
                    # With --wait-quiet, a load disturbed by other work on the machine is run
                    # again (at most twice), and the quietest attempt is kept.
                    attempts = 1 if args.wait_quiet <= 0 or load.tool == "memory" else 3
                    best: list[tuple[str, Sample]] | None = None
                    best_noise = math.inf
                    for attempt in range(attempts):
                        if args.wait_quiet > 0:
                            t_wait = time.monotonic()
                            seen = wait_for_quiet(args.wait_quiet, QUIET_CPUS)
                            if time.monotonic() - t_wait > 1.5:
                                log(f"{label}: waited {time.monotonic() - t_wait:.0f}s for a quiet "
                                    f"machine (background now {seen:.2f} CPUs)")
                        try:
                            got = run_step(load, spec, workdir, versions, rb, memtier, requests,
                                           chunks, args, label)
                        except (RuntimeError, OSError, ValueError, KeyError) as e:
                            msg = f"rep {rep} {load.id} {spec.name}: {e}"
                            errors.append(msg)
                            warn(msg)
                            got = [(test, Sample(error=str(e), requests=requests))
                                   for test in load.tests]
                            if load.tool == "memory":
                                got = [("memory", {"used_memory_before": None, "used_memory": None,
                                                   "rss_before": 0, "rss_after": 0, "load_s": 0,
                                                   "error": str(e)})]
                            if best is None:  # an earlier, disturbed attempt beats none
                                best = got
                            break
                        noise = max((x.background_cpus or 0.0 for _, x in got
                                     if isinstance(x, Sample)), default=0.0)
                        if noise < best_noise:
                            best, best_noise = got, noise
                        if noise <= QUIET_CPUS:
                            break
                        if attempt + 1 < attempts:
                            reruns += 1
                            log(f"{label}: other processes used {noise:.2f} CPUs during the load; "
                                f"measuring again")
                    for test, x in best or []:
                        if load.tool == "memory":
                            mem_samples.setdefault(spec.name, []).append((rep, x))
                        else:
                            samples.setdefault((spec.name, load.id, test), []).append((rep, pos, x))
    finally:
        _kill_all()
        shutil.rmtree(workdir, ignore_errors=True)

    runs = summarize_runs(samples, loads, servers)
    if args.wait_quiet > 0:
        notes.append(f"--wait-quiet {args.wait_quiet:g}: each load waited for other processes to "
                     f"use under {QUIET_CPUS} CPUs, and {reruns} disturbed load(s) were measured "
                     f"again (the quietest of at most 3 attempts is kept).")
    background = [r["background_cpus"] for run in runs for r in run["reps"]
                  if r.get("background_cpus") is not None]
    if background:
        worst = max(background)
        notes.append(f"Other processes on the machine used {statistics.median(background):.2f} "
                     f"CPUs (median; worst {worst:.2f}) during the loads, from /proc/stat "
                     f"minus the server, the client and the harness."
                     + (" That much background work skews the figures: rerun on a quiet "
                        "machine before trusting small differences." if worst > 0.1 else ""))
    result = {
        "schema": "vitrine-bench/1", "kind": "socket",
        "id": f"{started_at}-{(git_info()['commit'] or 'nogit')[:12]}",
        "started_at": started_at, "finished_at": now_iso(),
        "duration_s": round(time.monotonic() - t_start, 1),
        "command": command, "git": git_info(), "machine": machine_info(), "versions": versions,
        "settings": {"reps": args.reps, "requests": requests, "quick": args.quick,
                     "wait_quiet_s": args.wait_quiet,
                     "memory_keys": args.memory_keys if args.memory else None,
                     "rb_clients": RB_CLIENTS, "rb_data_size": RB_DATA, "rb_keyspace": RB_KEYSPACE,
                     "memtier": bool(memtier)},
        "servers": [{"name": s.name, "kind": s.kind, "argv": s.argv_preview()} for s in servers],
        "loads": [{"id": l.id, "tool": l.tool, "title": l.title, "command": l.command,
                   "tests": l.tests} for l in loads],
        "runs": runs,
        "ratios": compute_ratios(runs, servers),
        "aof_cost": compute_aof_cost(runs),
        "memory": summarize_memory(mem_samples, servers, args.memory_keys) if mem_samples else [],
        "micro": [],
        "notes": notes,
        "errors": errors,
    }
    md = render_markdown(result, loads)
    if args.out:
        out = Path(args.out)
    else:
        out = BENCH_DIR / ("quick.json" if args.quick else "latest.json")
    write_outputs(result, md, out)
    print(md, flush=True)
    return 1 if errors else 0


def peer_version(port: int) -> str | None:
    try:
        with Resp(port) as r:
            info = parse_info(r.call("INFO", "server"))
        for k in ("valkey_version", "redis_version", "version"):
            if k in info:
                return info[k]
    except (RuntimeError, OSError):
        pass
    return None


def measure(load: Load, test: str, srv: RunningServer, rb: str, memtier: str | None,
            requests: int, timeout: float, workdir: Path) -> Sample:
    busy0, ours0, client0 = busy_seconds(), own_and_children_seconds(), children_seconds()
    cpu0 = cpu_seconds(srv.pid)
    t0 = time.monotonic()
    if load.tool == "redis-benchmark":
        s = run_redis_benchmark(rb, srv.port, test.lower(), requests, load.pipeline, timeout,
                                load.client_threads)
        s.requests = requests
    else:
        s = run_memtier(memtier, srv.port, load, requests, timeout, workdir)
        s.requests = memtier_requests_per_client(requests) * MT_CLIENTS * MT_THREADS
    s.wall_s = time.monotonic() - t0
    if srv.proc is None or srv.proc.poll() is not None:
        raise RuntimeError(f"{srv.spec.name} exited during the load: {srv._log_tail()}")
    s.cpu_s = cpu_seconds(srv.pid) - cpu0
    s.cpu_us_per_op = s.cpu_s * 1e6 / s.requests
    others = (busy_seconds() - busy0) - s.cpu_s - (own_and_children_seconds() - ours0)
    s.background_cpus = max(0.0, others) / s.wall_s if s.wall_s > 0 else None
    s.client_cpus = (children_seconds() - client0) / s.wall_s if s.wall_s > 0 else None
    return s


# ---------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog=os.environ.get("BENCH_ENTRY", "bench.py"),
        description="Benchmark Vitrine side by side with redis-server and other peers "
                    "(see the top of scripts/bench.py for the method and the JSON schema).",
        epilog="Environment: MEMTIER=/path/to/memtier_benchmark adds the memtier loads; "
               "PEER='name=/path/to/server args[; ...]' adds peers (--port P is appended "
               "unless the args contain {port}).")
    p.add_argument("--reps", type=int, default=3, help="repetitions per figure (default 3)")
    p.add_argument("--requests", type=int, default=None,
                   help="requests per test (default 1000000; 100000 with --quick)")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: 100000 requests, 100000 keys for the memory figure, "
                        "results in benchmarks/quick.{json,md}")
    p.add_argument("--memory", dest="memory", action="store_true", default=True,
                   help="include the memory figure (the default)")
    p.add_argument("--no-memory", dest="memory", action="store_false",
                   help="skip the memory figure")
    p.add_argument("--memory-keys", type=int, default=None,
                   help="keys for the memory figure (default 1000000; 100000 with --quick)")
    p.add_argument("--micro", action="store_true",
                   help="run the criterion micro-benchmarks (cargo bench -p vitrine-engine) "
                        "instead of the socket loads")
    p.add_argument("--micro-filter", default=None, help="criterion filter for --micro")
    p.add_argument("--mrc", action="store_true",
                   help="run the what-if curve's accuracy benchmark (the mrc_accuracy example) "
                        "instead: benchmarks/mrc.md")
    p.add_argument("--loads", default=None,
                   help="comma-separated load ids to run (rb-p1, rb-p16, rb-p1-c2, rb-evalsha, mt-mixed-p1, "
                        "mt-mixed-p16, mt-get-p1, mt-get-p16, memory)")
    p.add_argument("--servers", default=None,
                   help="comma-separated server names to run (vitrine, redis, the PEER names, "
                        "vitrine-aof-everysec, vitrine-aof-always)")
    p.add_argument("--aof", action="store_true",
                   help="also run vitrine with the append-only file on (vitrine-aof-everysec, "
                        "vitrine-aof-always), each run with a fresh --dir, and report the cost")
    p.add_argument("--notify", action="store_true",
                   help="also run vitrine with keyspace notifications on (vitrine-notify: "
                        "--notify-keyspace-events KEA, a subscriber to every event attached) and "
                        "report its ops/sec against plain vitrine's")
    p.add_argument("--out", default=None,
                   help="JSON output path (default benchmarks/latest.json); the markdown goes "
                        "beside it with a .md suffix")
    target_dir = Path(os.environ.get("BENCH_TARGET_DIR") or os.environ.get("CARGO_TARGET_DIR")
                      or ROOT / "target")
    if not target_dir.is_absolute():
        target_dir = ROOT / target_dir
    p.add_argument("--vitrine", default=str(target_dir / "release" / "vitrine"),
                   help="the vitrine binary (default: the release build scripts/bench makes)")
    p.add_argument("--vitrine-args", default="", help="extra flags for vitrine, e.g. '--threads 2'")
    p.add_argument("--redis-server", default="redis-server", help="the redis-server binary")
    p.add_argument("--redis-benchmark", default="redis-benchmark", help="the redis-benchmark binary")
    p.add_argument("--wait-quiet", type=float, default=0, metavar="SECONDS",
                   help="for shared machines: before each load, wait up to SECONDS until other "
                        "processes use under 0.15 CPUs, and run a load again (at most twice, "
                        "keeping the quietest attempt) when they used more during it "
                        "(default 0: off)")
    p.add_argument("--timeout", type=float, default=600,
                   help="seconds any one client run may take before it is killed (default 600)")
    args = p.parse_args(argv)
    args.target_dir = target_dir
    if args.reps < 1:
        p.error("--reps must be at least 1")
    if args.requests is None:
        args.requests = 100_000 if args.quick else 1_000_000
    if args.memory_keys is None:
        args.memory_keys = 100_000 if args.quick else 1_000_000
    if args.requests < RB_CLIENTS or args.memory_keys < 1:
        p.error("--requests must be at least 50 and --memory-keys at least 1")

    command = shlex.join([os.environ.get("BENCH_ENTRY") or sys.argv[0], *sys.argv[1:]])
    for var in ("PEER", "MEMTIER"):  # the environment that changes what runs
        if os.environ.get(var):
            command = f"{var}={shlex.quote(os.environ[var])} {command}"
    started_at = now_iso()
    t_start = time.monotonic()
    if args.micro:
        return run_micro(args, started_at, t_start, command)
    if args.mrc:
        return run_mrc(args, command)
    return run_socket(args, started_at, t_start, command)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
