"""redis-py's Lock: SET NX PX to take it, Lua scripts (EVALSHA, loading on NOSCRIPT) to
release, extend and reacquire it only while the caller's token is still the one stored."""

from __future__ import annotations

import threading
import time

import pytest
from redis.exceptions import LockError, LockNotOwnedError
from redis.lock import Lock


def test_acquire_and_release(r):
    a = r.lock("res", timeout=10)
    assert a.acquire(blocking=False)
    assert a.locked() and a.owned()
    assert 9000 < r.pttl("res") <= 10000
    # Someone else cannot take it while it is held.
    b = r.lock("res", timeout=10)
    assert not b.acquire(blocking=False)
    assert not b.owned()
    a.release()
    assert not a.locked()
    assert r.exists("res") == 0
    assert b.acquire(blocking=False)
    b.release()


def test_release_of_an_unheld_lock_raises(r):
    a = r.lock("res")
    with pytest.raises(LockError):
        a.release()


def test_blocking_acquire_waits_for_release(r):
    # Released by a timer thread: the token must not be thread-local.
    a = r.lock("res", timeout=10, thread_local=False)
    assert a.acquire()
    timer = threading.Timer(0.3, a.release)
    timer.start()
    try:
        b = r.lock("res", timeout=10, sleep=0.02)
        t0 = time.monotonic()
        assert b.acquire(blocking=True, blocking_timeout=5)
        waited = time.monotonic() - t0
        assert 0.2 < waited < 4, waited
        assert b.owned()
        b.release()
    finally:
        timer.cancel()


def test_blocking_acquire_gives_up_after_its_timeout(r):
    a = r.lock("res", timeout=10)
    assert a.acquire()
    b = r.lock("res", sleep=0.02)
    t0 = time.monotonic()
    assert not b.acquire(blocking=True, blocking_timeout=0.3)
    assert time.monotonic() - t0 >= 0.25
    a.release()


def test_blocking_acquire_gets_an_expired_lock(r):
    a = r.lock("res", timeout=0.2)
    assert a.acquire()
    b = r.lock("res", timeout=10, sleep=0.02)
    assert b.acquire(blocking=True, blocking_timeout=5)
    # The first holder's token is gone: its release is refused by the script.
    with pytest.raises(LockNotOwnedError):
        a.release()
    assert b.owned()
    b.release()


def test_context_manager(r):
    with r.lock("res", timeout=5) as lock:
        assert lock.owned()
        assert r.get("res") is not None
    assert r.exists("res") == 0


def test_extend_adds_to_the_ttl_or_replaces_it(r):
    a = r.lock("res", timeout=10)
    assert a.acquire()
    assert a.extend(5)
    assert 14000 < r.pttl("res") <= 15000
    assert a.extend(2, replace_ttl=True)
    assert 1000 < r.pttl("res") <= 2000
    a.release()


def test_extend_of_a_lock_without_ttl(r):
    # A lock without timeout has no TTL to extend: redis-py refuses before any script runs.
    a = r.lock("res")
    assert a.acquire()
    with pytest.raises(LockError):
        a.extend(5)
    a.release()


def test_reacquire_resets_the_ttl(r):
    a = r.lock("res", timeout=10)
    assert a.acquire()
    r.pexpire("res", 500)
    assert a.reacquire()
    assert 9000 < r.pttl("res") <= 10000
    a.release()


def test_scripts_refuse_a_lock_held_by_someone_else(r):
    a = r.lock("res", timeout=10)
    assert a.acquire()
    # Another client replaces the token (as after the lock expired and someone took it).
    r.set("res", b"someone-else", px=10000)
    assert not a.owned()
    with pytest.raises(LockNotOwnedError):
        a.extend(5)
    with pytest.raises(LockNotOwnedError):
        a.reacquire()
    with pytest.raises(LockNotOwnedError):
        a.release()
    # Nothing of theirs was touched.
    assert r.get("res") == b"someone-else"
    assert 9000 < r.pttl("res") <= 10000


def test_noscript_fallback_after_script_flush(r):
    a = r.lock("res", timeout=10)
    assert a.acquire()
    assert a.extend(1)  # loads the scripts (EVALSHA, NOSCRIPT, SCRIPT LOAD, EVALSHA)
    shas = [Lock.lua_release.sha, Lock.lua_extend.sha, Lock.lua_reacquire.sha]
    assert r.script_exists(Lock.lua_extend.sha) == [True]
    r.script_flush()
    assert r.script_exists(*shas) == [False, False, False]
    # Each script meets NOSCRIPT, and redis-py loads it again and retries.
    assert a.reacquire()
    assert a.extend(1)
    a.release()
    assert r.exists("res") == 0
    assert r.script_exists(*shas) == [True, True, True]


def test_many_threads_take_turns(r, server):
    # Eight threads each take the lock 5 times and increment a counter non-atomically
    # inside it (GET, then SET): the total is only right if the lock excludes.
    r.set("counter", 0)

    def work():
        client = server.client()
        for _ in range(5):
            with client.lock("res", timeout=5, sleep=0.005, blocking_timeout=20):
                n = int(client.get("counter"))
                client.set("counter", n + 1)
        client.close()

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert int(r.get("counter")) == 40
