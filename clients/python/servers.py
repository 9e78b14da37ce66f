"""Start and stop the two servers every client test runs against: Vitrine and redis-server.

Each server gets a temporary directory of its own and a free 127.0.0.1 port, and is stopped
by whoever started it. Vitrine is the binary in $VITRINE_BIN (default target/debug/vitrine,
which scripts/test builds first); redis-server is the one on PATH, the reference.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("vitrine", "redis")
# A debug build on a busy 2-core machine can take a few seconds to come up.
START_TIMEOUT = 20.0
STOP_TIMEOUT = 10.0


def vitrine_bin() -> str:
    return os.environ.get("VITRINE_BIN") or str(ROOT / "target" / "debug" / "vitrine")


def free_port() -> int:
    """A port nothing listens on right now (redis-server cannot be told to pick one itself)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One server process: `start()`, `client()`, `restart()`, `stop()`.

    `appendonly` turns on the append-only file (fsynced on every write, so that a restart
    right after a reply finds the write); a restart keeps the directory and the port.
    """

    def __init__(self, kind: str, appendonly: bool = False) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown server kind {kind!r}")
        self.kind = kind
        self.appendonly = appendonly
        self.dir = Path(tempfile.mkdtemp(prefix=f"clients-{kind}-"))
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.log = self.dir / "server.log"

    def __repr__(self) -> str:
        return f"<{self.kind} on 127.0.0.1:{self.port}>"

    def _argv(self, port: int) -> list[str]:
        aof = "yes" if self.appendonly else "no"
        if self.kind == "vitrine":
            binary = vitrine_bin()
            if not os.access(binary, os.X_OK):
                raise RuntimeError(f"no Vitrine binary at {binary}: run `cargo build -p vitrine-server` or set VITRINE_BIN")
            return [
                binary,
                "--port", str(port), "--port-file", str(self.dir / "port"),
                "--bind", "127.0.0.1",
                "--http-port", "0",
                "--dir", str(self.dir),
                "--appendonly", aof, "--appendfsync", "always",
                "--web-dir", str(self.dir / "no-web"),
            ]  # fmt: skip
        return [
            shutil.which("redis-server") or "redis-server",
            "--port", str(port), "--bind", "127.0.0.1",
            "--dir", str(self.dir),
            "--save", "",
            "--appendonly", aof, "--appendfsync", "always",
            "--daemonize", "no",
        ]  # fmt: skip

    def start(self) -> "Server":
        # Vitrine picks its own port the first time (--port 0, then --port-file tells which);
        # redis-server cannot, so it gets a port that was free a moment ago, and one more try
        # if another process took it meanwhile.
        attempts = 1 if self.kind == "vitrine" or self.port else 3
        for attempt in range(attempts):
            port = self.port or (0 if self.kind == "vitrine" else free_port())
            (self.dir / "port").unlink(missing_ok=True)
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen(
                    self._argv(port), cwd=self.dir, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
                )
            try:
                self._wait_ready(port)
                return self
            except RuntimeError:
                self._kill()
                if attempt + 1 == attempts:
                    raise
        raise AssertionError("unreachable")

    def _wait_ready(self, port: int) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited with {self.proc.returncode}; its log:\n{self.tail_log()}")
            if port == 0:
                text = (self.dir / "port").read_text().strip() if (self.dir / "port").exists() else ""
                if not text:
                    time.sleep(0.05)
                    continue
                port = int(text)
            try:
                if redis.Redis(host="127.0.0.1", port=port, socket_timeout=2).ping():
                    self.port = port
                    return
            except redis.exceptions.RedisError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"{self.kind} did not answer PING within {START_TIMEOUT} s; its log:\n{self.tail_log()}")

    def tail_log(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def client(self, **kwargs) -> redis.Redis:
        kwargs.setdefault("socket_timeout", 10)
        return redis.Redis(host="127.0.0.1", port=self.port, **kwargs)

    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def _kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(STOP_TIMEOUT)

    def restart(self) -> "Server":
        """Stop the server and start it again on the same port and directory."""
        self._kill()
        return self.start()

    def stop(self) -> None:
        self._kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def vitrine_bug(request, server, reason: str) -> None:
    """Mark the running test as a strict expected failure when it runs against Vitrine: a
    Vitrine bug, named in `reason`, makes it fail there. Strict, so the fix turns it red
    until this call is removed."""
    if server.kind == "vitrine":
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"Vitrine bug: {reason}"))
