#!/usr/bin/env python3
"""Bounded soak test of Vitrine: thousands of idle connections plus active load, then proof that
nothing leaked. Run it through `scripts/soak`, which installs redis-tools (redis-benchmark) and
builds the release binary first; `scripts/soak --help` lists the options. Python 3 standard
library only.

What it does, in order:

* Raises this process's open-file limit to its hard limit (the server inherits it), then starts
  target/release/vitrine on free 127.0.0.1 ports (RESP and admin), no persistence.
* Baseline: the server's file descriptors (`/proc/PID/fd`) and VmRSS.
* Opens `--conns` idle connections (default 2000) and checks each answers PING.
* Runs active load for `--duration` seconds (default 60): back-to-back `redis-benchmark -t set,get
  -c 50 -d 64 -r 100000` runs of `--requests` each, while the idle connections stay open and
  silent. Samples the server's RSS and fd count every second. The load is split into `--rounds`
  (default 2), each ending in FLUSHALL and an RSS reading: RSS that climbs from round to round is
  a leak; RSS that stays level is the allocator keeping pages it has freed.
* At the end, every idle connection must still answer PING (dropped = 0).
* Closes them; the server's fd count must come back to the baseline (within 20 s).
* FLUSHALL, then RSS after against RSS before the soak: the drift.
* p99 latency: the worst and the median of redis-benchmark's p99 over all runs.

Prints a markdown report and writes it into docs/reliability.md, section "Soak" (`--no-write`
to skip; `--quick` runs 10 s with 500 connections and never writes the file). Exit status 1
when a check failed: connections dropped, or fds not back at baseline.

Every socket here is 127.0.0.1; port 6379 is never used.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import resource
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_DIR = Path(os.environ.get("SOAK_TARGET_DIR") or ROOT / "target")
REPORT = ROOT / "docs" / "reliability.md"
START_TIMEOUT = 15.0
FD_SETTLE_TIMEOUT = 20.0
PING = b"*1\r\n$4\r\nPING\r\n"


def log(msg: str) -> None:
    print(f"==> {msg}", file=sys.stderr, flush=True)


def raise_nofile(want: int) -> tuple[int, int]:
    """Raises the soft open-file limit towards `want` (at most the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(want, soft)
    if soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as e:
            log(f"could not raise the open-file limit from {soft}: {e}")
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port != 6379:
            return port


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def mib(n: float) -> str:
    return f"{n / (1024 * 1024):.1f} MiB"


class Server:
    def __init__(self, binary: Path, maxclients: int):
        self.dir = Path(tempfile.mkdtemp(prefix="vitrine-soak-"))
        port_file, http_file = self.dir / "port", self.dir / "http-port"
        self.argv = [str(binary), "--bind", "127.0.0.1", "--port", "0", "--port-file", str(port_file),
                     "--http-port", "0", "--http-port-file", str(http_file), "--dir", str(self.dir),
                     "--maxclients", str(maxclients), "--appendonly", "no"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("VITRINE_")}
        self.log_file = open(self.dir / "log", "w")
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=self.log_file,
                                     stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                self.port = int(port_file.read_text().strip())
                self.http_port = int(http_file.read_text().strip())
                break
            except (OSError, ValueError):
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"vitrine exited at start:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"vitrine did not start within {START_TIMEOUT} s")
            time.sleep(0.02)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log_tail(self) -> str:
        try:
            return "".join((self.dir / "log").read_text().splitlines(True)[-20:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log_file.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def call(port: int, *args: str, timeout: float = 10.0) -> bytes:
    """One command on a fresh connection; the raw reply (simple replies and bulks only)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        out = f"*{len(args)}\r\n".encode() + b"".join(f"${len(a)}\r\n{a}\r\n".encode() for a in args)
        s.sendall(out)
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        if data.startswith(b"$"):
            n = int(data[1:data.index(b"\r\n")])
            need = data.index(b"\r\n") + 2 + n + 2
            while len(data) < need:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        return data


def info_field(port: int, section: str, name: str) -> int | None:
    text = call(port, "INFO", section).decode(errors="replace")
    m = re.search(rf"^{name}:(\d+)", text, re.M)
    return int(m.group(1)) if m else None


def open_idle(port: int, n: int) -> list[socket.socket]:
    conns = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conns.append(s)
        if i % 500 == 499:
            log(f"  {i + 1} idle connections open")
    return conns


def ping_all(conns: list[socket.socket], timeout: float = 20.0) -> int:
    """PINGs every connection at once; answers how many did not reply +PONG in time."""
    sel = selectors.DefaultSelector()
    pending: dict[socket.socket, bytes] = {}
    failed = 0
    for s in conns:
        try:
            s.setblocking(False)
            s.send(PING)
            pending[s] = b""
            sel.register(s, selectors.EVENT_READ)
        except OSError:
            failed += 1
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.5):
            s = key.fileobj
            try:
                chunk = s.recv(64)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                failed += 1
                sel.unregister(s)
                del pending[s]
                continue
            pending[s] += chunk
            if pending[s].endswith(b"\r\n"):
                if pending[s] != b"+PONG\r\n":
                    failed += 1
                sel.unregister(s)
                del pending[s]
    failed += len(pending)
    sel.close()
    for s in conns:
        s.setblocking(True)
    return failed


def parse_csv(text: str) -> list[dict]:
    rows = []
    lines = [l for l in text.splitlines() if l.startswith('"')]
    if not lines:
        return rows
    header = [h.strip('"') for h in lines[0].split(",")]
    for line in lines[1:]:
        values = [v.strip('"') for v in line.split(",")]
        rows.append(dict(zip(header, values)))
    return rows


def run_load(rb: str, port: int, duration: float, requests: int, clients: int) -> list[dict]:
    """Back-to-back redis-benchmark runs until `duration` has passed."""
    results = []
    deadline = time.monotonic() + duration
    while time.monotonic() < deadline:
        left = deadline - time.monotonic()
        argv = [rb, "-h", "127.0.0.1", "-p", str(port), "-t", "set,get", "-n", str(requests),
                "-c", str(clients), "-d", "64", "-r", "100000", "--csv"]
        started = time.monotonic()
        try:
            out = subprocess.run(argv, capture_output=True, text=True, timeout=max(left, 1) + 30)
        except subprocess.TimeoutExpired:
            results.append({"error": "redis-benchmark timed out"})
            break
        wall = time.monotonic() - started
        for row in parse_csv(out.stdout):
            row["wall_s"] = wall
            results.append(row)
        if out.returncode != 0:
            results.append({"error": f"redis-benchmark exit {out.returncode}: {out.stderr.strip()[-300:]}"})
            break
    return results


def sampler(pid: int, stop: threading.Event, samples: list[tuple[float, int, int]]) -> None:
    t0 = time.monotonic()
    while not stop.wait(1.0):
        try:
            samples.append((time.monotonic() - t0, rss_bytes(pid), fd_count(pid)))
        except OSError:
            break


def write_section(report: str, path: Path) -> None:
    """Replaces the body of "## Soak" in docs/reliability.md (creating either if missing)."""
    text = path.read_text() if path.exists() else "# Reliability\n\n## Soak\n"
    body = report.strip() + "\n"
    m = re.search(r"^## Soak[^\n]*\n", text, re.M)
    if not m:
        text = text.rstrip("\n") + "\n\n## Soak\n\n" + body
    else:
        nxt = re.search(r"^## ", text[m.end():], re.M)
        end = m.end() + nxt.start() if nxt else len(text)
        text = text[:m.end()] + "\n" + body + ("\n" if nxt else "") + text[end:]
    path.write_text(text)


def main() -> int:
    ap = argparse.ArgumentParser(description="Bounded soak test: idle connections + load, then leak checks.")
    ap.add_argument("--conns", type=int, default=None, help="idle connections to hold (default 2000)")
    ap.add_argument("--duration", type=float, default=None, help="seconds of active load (default 60)")
    ap.add_argument("--requests", type=int, default=100_000, help="requests per redis-benchmark run")
    ap.add_argument("--clients", type=int, default=50, help="redis-benchmark connections")
    ap.add_argument("--rounds", type=int, default=2,
                    help="split the load into rounds, each ending in FLUSHALL and an RSS reading (default 2): "
                         "RSS that grows round after round is a leak, RSS that stays level is the allocator "
                         "keeping freed memory")
    ap.add_argument("--quick", action="store_true", help="10 s with 500 idle connections; never writes the report")
    ap.add_argument("--bin", type=Path, default=TARGET_DIR / "release" / "vitrine", help="the vitrine binary")
    ap.add_argument("--no-write", action="store_true", help="print the report only")
    ap.add_argument("--out", type=Path, default=REPORT, help="the report file (section \"Soak\")")
    args = ap.parse_args()
    args.rounds = max(1, args.rounds)
    conns_n = args.conns if args.conns is not None else (500 if args.quick else 2000)
    duration = args.duration if args.duration is not None else (10.0 if args.quick else 60.0)
    rb = shutil.which("redis-benchmark")
    if not rb:
        print("error: redis-benchmark not found (apt-get install redis-tools, or run scripts/soak)", file=sys.stderr)
        return 2
    if not args.bin.exists():
        print(f"error: {args.bin} does not exist (cargo build --release -p vitrine-server)", file=sys.stderr)
        return 2

    soft, hard = raise_nofile(conns_n * 2 + 1000)
    if soft < conns_n + 200:
        print(f"error: the open-file limit is {soft} (hard {hard}); {conns_n} connections need more", file=sys.stderr)
        return 2
    log(f"open-file limit {soft}; starting {args.bin}")
    server = Server(args.bin, maxclients=conns_n + 1000)
    started_at = dt.datetime.now(dt.timezone.utc)
    failures: list[str] = []
    try:
        pid = server.pid
        time.sleep(0.5)
        fds_before = fd_count(pid)
        rss_before = rss_bytes(pid)
        log(f"server pid {pid} on 127.0.0.1:{server.port}; {fds_before} fds, RSS {mib(rss_before)}")

        t = time.monotonic()
        conns = open_idle(server.port, conns_n)
        dropped_start = ping_all(conns)
        open_s = time.monotonic() - t
        fds_idle = fd_count(pid)
        rss_idle = rss_bytes(pid)
        log(f"{conns_n} idle connections in {open_s:.1f} s ({dropped_start} did not answer); "
            f"{fds_idle} fds, RSS {mib(rss_idle)}")

        stop = threading.Event()
        samples: list[tuple[float, int, int]] = []
        th = threading.Thread(target=sampler, args=(pid, stop, samples), daemon=True)
        th.start()
        log(f"load: redis-benchmark -t set,get -c {args.clients} -d 64 -r 100000 -n {args.requests}, "
            f"back to back for {duration:.0f} s")
        t = time.monotonic()
        results: list[dict] = []
        rss_rounds: list[int] = []
        for r in range(args.rounds):
            results += run_load(rb, server.port, duration / args.rounds, args.requests, args.clients)
            call(server.port, "FLUSHALL")
            time.sleep(0.5)
            rss_rounds.append(rss_bytes(pid))
            log(f"round {r + 1}/{args.rounds}: RSS after FLUSHALL {mib(rss_rounds[-1])}")
        load_s = time.monotonic() - t
        stop.set()
        th.join()
        rss_peak = max([s[1] for s in samples] + [rss_idle])
        fds_peak = max([s[2] for s in samples] + [fds_idle])

        dropped = ping_all(conns)
        log(f"after the load: {dropped} of {conns_n} idle connections did not answer PING")
        for s in conns:
            s.close()
        t = time.monotonic()
        fds_after = fd_count(pid)
        while fds_after > fds_before and time.monotonic() - t < FD_SETTLE_TIMEOUT:
            time.sleep(0.1)
            fds_after = fd_count(pid)
        fds_settle_s = time.monotonic() - t
        clients_after = info_field(server.port, "clients", "connected_clients")
        flush = call(server.port, "FLUSHALL")
        time.sleep(1.0)
        rss_after = rss_bytes(pid)
        used_after = info_field(server.port, "memory", "used_memory")
        alive = call(server.port, "PING") == b"+PONG\r\n"
    finally:
        server.stop()

    errors = [r["error"] for r in results if "error" in r]
    rows = [r for r in results if "error" not in r]
    p99s = {test: [float(r["p99_latency_ms"]) for r in rows if r.get("test") == test] for test in ("SET", "GET")}
    rps = {test: [float(r["rps"]) for r in rows if r.get("test") == test] for test in ("SET", "GET")}
    total_requests = sum(args.requests for _ in rows)
    if dropped_start:
        failures.append(f"{dropped_start} idle connections did not answer PING at the start")
    if dropped:
        failures.append(f"{dropped} idle connections dropped")
    if fds_after > fds_before:
        failures.append(f"fds {fds_after} after closing, baseline {fds_before}")
    if errors:
        failures.extend(errors)
    if not rows:
        failures.append("no load ran")
    if not alive or flush != b"+OK\r\n":
        failures.append("server not answering at the end")

    def fmt_p99(test: str) -> str:
        v = p99s[test]
        return f"{statistics.median(v):.3f} ms median, {max(v):.3f} ms worst" if v else "n/a"

    def fmt_rps(test: str) -> str:
        v = rps[test]
        return f"{statistics.median(v):,.0f}" if v else "n/a"

    drift = rss_after - rss_before
    climb = rss_rounds[-1] - rss_rounds[0]
    if len(rss_rounds) < 2:
        reading = "Reading: one round only (`--rounds 1`), so the drift cannot be told apart from a leak."
    elif climb <= max(drift * 0.2, 4 * 1024 * 1024):
        reading = (f"Reading: RSS after FLUSHALL moved {climb / (1024 * 1024):+.1f} MiB from round 1 to round "
                   f"{len(rss_rounds)} against a drift of {drift / (1024 * 1024):+.1f} MiB: level, so the drift is "
                   "the allocator keeping pages it has freed, not a leak (jemalloc's background threads give "
                   "them back after about 10 s of decay; the figure is taken right after FLUSHALL).")
    else:
        reading = (f"Reading: RSS after FLUSHALL climbed {climb / (1024 * 1024):+.1f} MiB from round 1 to round "
                   f"{len(rss_rounds)}: it may grow with the work done; rerun with more and longer rounds "
                   "(`--rounds 4 --duration 240`) and suspect a leak if it keeps climbing.")
    cmdline = "scripts/soak" + ("" if len(sys.argv) == 1 else " " + " ".join(sys.argv[1:]))
    report = f"""Last run: {started_at:%Y-%m-%d %H:%M} UTC, `{cmdline}` ({os.cpu_count()} CPUs, {os.uname().release}).
Result: **{"PASS" if not failures else "FAIL: " + "; ".join(failures)}**

| Check | Figure |
|---|---|
| Idle connections held | {conns_n} (opened and PINGed in {open_s:.1f} s) |
| Active load | {len(rows) // 2 if rows else 0} x redis-benchmark `-t set,get -c {args.clients} -d 64 -r 100000 -n {args.requests}`, {load_s:.0f} s, {total_requests:,} requests |
| Throughput (median per run) | SET {fmt_rps("SET")} ops/s, GET {fmt_rps("GET")} ops/s |
| p99 latency under load | SET {fmt_p99("SET")}; GET {fmt_p99("GET")} |
| Dropped idle connections (PING at the end) | **{dropped}** of {conns_n} |
| Server fds: baseline / with idle conns / peak / after closing | {fds_before} / {fds_idle} / {fds_peak} / **{fds_after}** (settled in {fds_settle_s:.1f} s; connected_clients {clients_after}) |
| RSS: before / with idle conns / peak / after FLUSHALL | {mib(rss_before)} / {mib(rss_idle)} / {mib(rss_peak)} / {mib(rss_after)} |
| RSS drift (after FLUSHALL minus before) | **{drift / (1024 * 1024):+.1f} MiB** (used_memory after: {used_after} B) |
| RSS after FLUSHALL, per round of load (idle conns open) | {" / ".join(mib(x) for x in rss_rounds)} (round to round: {(rss_rounds[-1] - rss_rounds[0]) / (1024 * 1024):+.1f} MiB) |
| RSS per idle connection | {(rss_idle - rss_before) / max(conns_n, 1) / 1024:.1f} KiB |

{reading}
"""
    print(report)
    if not args.quick and not args.no_write:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        write_section(report, args.out)
        log(f"wrote the Soak section of {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
