"""A library's script flow across a restart of Vitrine with the append-only file on: the
data must come back, and redis-py carries on (reloading a script on NOSCRIPT if need be)."""

from __future__ import annotations

import pytest
from redis.lock import Lock

from servers import Server


@pytest.fixture
def vitrine_aof():
    srv = Server("vitrine", appendonly=True)
    try:
        yield srv.start()
    finally:
        srv.stop()


def take_lock_and_limit(srv):
    """Hold a lock (extended by its script) and spend 3 of 5 hits of a moving window."""
    from limits import parse
    from limits.storage import RedisStorage
    from limits.strategies import MovingWindowRateLimiter

    r = srv.client()
    lock = r.lock("res", timeout=60, thread_local=False)
    assert lock.acquire(blocking=False)
    assert lock.extend(60)  # 120 s left
    limiter = MovingWindowRateLimiter(RedisStorage(srv.url()))
    item = parse("5/minute")
    assert all(limiter.hit(item, "alice") for _ in range(3))
    return r, lock, limiter, item


def test_lock_and_limits_carry_on_after_a_restart(vitrine_aof):
    r, lock, limiter, item = take_lock_and_limit(vitrine_aof)
    token = r.get("res")
    vitrine_aof.restart()
    r.connection_pool.disconnect()

    # The writes the scripts made came back from the append-only file, TTLs included.
    assert r.get("res") == token
    assert 110_000 < r.pttl("res") <= 120_000
    assert lock.owned()
    assert limiter.get_window_stats(item, "alice").remaining == 2
    # The flows go on: redis-py's EVALSHA meets NOSCRIPT if the cache is gone, loads the
    # script and retries.
    limiter.storage.storage.connection_pool.disconnect()
    assert limiter.hit(item, "alice") and limiter.hit(item, "alice")
    assert not limiter.hit(item, "alice")
    assert lock.extend(10)
    assert lock.reacquire()
    lock.release()
    assert r.exists("res") == 0
    r.close()


def test_script_cache_survives_a_restart(vitrine_aof):
    r, lock, limiter, item = take_lock_and_limit(vitrine_aof)
    shas = [Lock.lua_extend.sha, limiter.storage.lua_acquire_moving_window.sha]
    assert r.script_exists(*shas) == [True, True]
    vitrine_aof.restart()
    r.connection_pool.disconnect()
    assert r.get("res") is not None  # the data is back (the test above checks it in full)

    assert r.script_exists(*shas) == [True, True]
    # EVALSHA straight away, as the library does, without loading anything first.
    assert r.evalsha(Lock.lua_extend.sha, 1, "res", r.get("res"), 1000, "0") == 1
