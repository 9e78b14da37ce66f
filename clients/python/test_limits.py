"""The `limits` rate limiter with its Redis storage: each strategy is a Lua script run by
EVALSHA (fixed window: INCRBY + EXPIRE; moving window: a list of timestamps searched with
LINDEX; sliding window counter: two counters shifted with RENAME and weighted by PTTL), and
`reset()` deletes by KEYS pattern from a script."""

from __future__ import annotations

import time

import pytest
from limits import parse
from limits.storage import RedisStorage
from limits.strategies import (
    FixedWindowRateLimiter,
    MovingWindowRateLimiter,
    SlidingWindowCounterRateLimiter,
)

STRATEGIES = {
    "fixed": FixedWindowRateLimiter,
    "moving": MovingWindowRateLimiter,
    "sliding": SlidingWindowCounterRateLimiter,
}


@pytest.fixture
def storage(r, server):
    s = RedisStorage(server.url())
    assert s.check()
    yield s
    s.storage.close()


@pytest.mark.parametrize("name", STRATEGIES)
def test_allows_the_limit_then_refuses(storage, name):
    limiter = STRATEGIES[name](storage)
    item = parse("5/minute")
    assert all(limiter.hit(item, "alice") for _ in range(5))
    assert not limiter.hit(item, "alice")
    assert not limiter.test(item, "alice")
    assert limiter.get_window_stats(item, "alice").remaining == 0
    # Another identity has a limit of its own.
    assert limiter.test(item, "bob")
    assert limiter.get_window_stats(item, "bob").remaining == 5
    assert limiter.hit(item, "bob")
    assert limiter.get_window_stats(item, "bob").remaining == 4


@pytest.mark.parametrize("name", STRATEGIES)
def test_cost_counts_several_hits(storage, name):
    limiter = STRATEGIES[name](storage)
    item = parse("10/minute")
    assert limiter.hit(item, "alice", cost=7)
    assert limiter.get_window_stats(item, "alice").remaining == 3
    assert limiter.hit(item, "alice", cost=3)
    assert not limiter.hit(item, "alice")
    assert not limiter.hit(item, "carol", cost=11)  # more than the limit: never allowed


@pytest.mark.parametrize("name", STRATEGIES)
def test_clear_forgets_an_identity(storage, name):
    limiter = STRATEGIES[name](storage)
    item = parse("2/minute")
    assert limiter.hit(item, "alice") and limiter.hit(item, "alice")
    assert not limiter.hit(item, "alice")
    limiter.clear(item, "alice")
    assert limiter.hit(item, "alice")


def test_fixed_window_opens_again_after_the_window(storage, r):
    limiter = FixedWindowRateLimiter(storage)
    item = parse("2/second")
    assert limiter.hit(item, "alice") and limiter.hit(item, "alice")
    assert not limiter.hit(item, "alice")
    # The script counts refused hits too, and set the TTL on the first INCRBY only.
    (key,) = r.keys("LIMITS:*")
    assert r.get(key) == b"3"
    assert 0 < r.ttl(key) <= 1
    time.sleep(1.1)
    assert limiter.hit(item, "alice")


def test_moving_window_slides(storage):
    limiter = MovingWindowRateLimiter(storage)
    item = parse("3/2second")
    assert limiter.hit(item, "alice")
    time.sleep(1.0)
    assert limiter.hit(item, "alice") and limiter.hit(item, "alice")
    assert not limiter.hit(item, "alice")
    stats = limiter.get_window_stats(item, "alice")
    assert stats.remaining == 0
    # The window's start is the oldest hit, which the script returns as a string.
    assert time.time() < stats.reset_time < time.time() + 1
    time.sleep(1.1)  # the first hit has left the window, the other two have not
    assert limiter.get_window_stats(item, "alice").remaining == 1
    assert limiter.hit(item, "alice")
    assert not limiter.hit(item, "alice")


def test_moving_window_stores_lua_formatted_timestamps(storage, r):
    # The script pushes Lua numbers: redis.call converts a number argument with "%.17g".
    assert storage.lua_acquire_moving_window(["LIMITS:k"], [1795000000.1, 5, 60, 2]) == 1
    assert r.lrange("LIMITS:k", 0, -1) == [b"1795000000.0999999", b"1795000000.0999999"]
    assert r.ttl("LIMITS:k") == 60
    # The window search returns the oldest entry through tostring(), Lua's "%.14g", and
    # the count as an integer.
    assert storage.lua_moving_window(["LIMITS:k"], [1795000000.0, 5]) == [b"1795000000.1", 2]
    assert storage.lua_moving_window(["LIMITS:k"], [1795000001.0, 5]) is None


def test_moving_window_with_a_large_cost(storage, r):
    # 6000 entries are pushed 5000 at a time through unpack().
    limiter = MovingWindowRateLimiter(storage)
    item = parse("10000/hour")
    assert limiter.hit(item, "alice", cost=6000)
    (key,) = r.keys("LIMITS:*")
    assert r.llen(key) == 6000
    assert limiter.get_window_stats(item, "alice").remaining == 4000
    assert not limiter.hit(item, "alice", cost=4001)
    assert limiter.hit(item, "alice", cost=4000)
    assert r.llen(key) == 10000


def test_sliding_window_counter_weighs_the_previous_window(storage, r):
    limiter = SlidingWindowCounterRateLimiter(storage)
    item = parse("4/second")
    assert all(limiter.hit(item, "alice") for _ in range(4))
    assert not limiter.hit(item, "alice")
    # The current counter lives for two windows, so the script can shift it to "previous".
    keys = r.keys("LIMITS:*")
    assert len(keys) == 1 and 1000 < r.pttl(keys[0]) <= 2000
    time.sleep(1.05)  # a new window; the old one's 4 hits still weigh by the time left
    stats = limiter.get_window_stats(item, "alice")
    assert 0 <= stats.remaining < 4
    assert len(r.keys("LIMITS:*")) == 2  # the script renamed the counter and started another
    time.sleep(1.05)  # the previous window has expired too
    assert limiter.get_window_stats(item, "alice").remaining == 4
    assert all(limiter.hit(item, "alice") for _ in range(4))
    assert not limiter.hit(item, "alice")


def test_reset_deletes_every_limit_key(storage, r):
    limiter = FixedWindowRateLimiter(storage)
    item = parse("5/minute")
    for who in ("a", "b", "c"):
        limiter.hit(item, who)
    MovingWindowRateLimiter(storage).hit(item, "d")
    r.set("unrelated", "1")
    assert storage.reset() == 4
    assert r.keys("*") == [b"unrelated"]
