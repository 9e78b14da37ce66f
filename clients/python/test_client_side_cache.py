"""redis-py's client-side cache (protocol 3, `cache_config`): reads are served from the
library's cache after the first, and a value changed by another client (SET, DEL, an expiry,
FLUSHALL, an eviction) is never served stale: the server's `invalidate` push drops it.

redis-py enables its cache only for a server whose HELLO says `server: redis` and version 7.4
or later (its own gate, "to maximize compatibility with all Redis products"). CLIENT TRACKING
has been the same protocol since Redis 6. Both servers here say `server: redis` (Vitrine does
since issue 22, as Dragonfly does, with its own name in an extra `vitrine` field), but neither
is 7.4 (redis-server 7.0; Vitrine says 7.2), so these tests lower the version gate only.
"""

from __future__ import annotations

import time

import pytest
from redis.cache import CacheConfig
from redis.connection import CacheProxyConnection

# The invalidation travels on the cached client's own connection, written by the server
# apart from the writer's reply: give it a moment to arrive before the next cached read (as
# with Redis itself, a push is not ordered against another connection's reply).
SETTLE = 0.05


@pytest.fixture
def cached(server, r, monkeypatch):
    monkeypatch.setattr(CacheProxyConnection, "MIN_ALLOWED_VERSION", "7.0.0")
    client = server.client(protocol=3, cache_config=CacheConfig(max_size=1000))
    yield client
    client.close()


def get_calls(r) -> int:
    """GETs the server has run (INFO commandstats)."""
    return r.info("commandstats").get("cmdstat_get", {}).get("calls", 0)


def read_cached(cached, r, key, want):
    """Reads `key` twice through the cache: both answer `want`, and only the first reaches
    the server."""
    before = get_calls(r)
    assert cached.get(key) == want
    assert cached.get(key) == want
    assert get_calls(r) - before == 1, "the second read came from the cache"


def test_set_by_another_client_is_never_served_stale(cached, r):
    r.set("k", "v1")
    read_cached(cached, r, "k", b"v1")
    assert cached.get_cache().size == 1
    r.set("k", "v2")
    time.sleep(SETTLE)
    read_cached(cached, r, "k", b"v2")
    # And again after a write through the cached client itself.
    cached.set("k", "v3")
    time.sleep(SETTLE)
    assert cached.get("k") == b"v3"


def test_del_and_expiry_drop_the_cached_value(cached, r):
    r.set("gone", "1")
    read_cached(cached, r, "gone", b"1")
    r.delete("gone")
    time.sleep(SETTLE)
    assert cached.get("gone") is None
    r.set("ttl", "1")
    read_cached(cached, r, "ttl", b"1")
    r.pexpire("ttl", 100)
    # No one reads it: the server's active expiry finds it and invalidates it.
    deadline = time.monotonic() + 5
    while r.exists("ttl") and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(SETTLE)
    assert cached.get("ttl") is None


def test_flushall_voids_the_whole_cache(cached, r):
    r.mset({"a": "1", "b": "2"})
    read_cached(cached, r, "a", b"1")
    read_cached(cached, r, "b", b"2")
    r.flushall()
    r.set("b", "3")
    time.sleep(SETTLE)
    assert cached.get("a") is None
    assert cached.get("b") == b"3"


def test_an_evicted_key_is_not_served_from_the_cache(cached, r):
    r.set("k", "cached")
    read_cached(cached, r, "k", b"cached")
    used = r.info("memory")["used_memory"]
    policy = r.config_get("maxmemory-policy")["maxmemory-policy"]
    r.config_set("maxmemory-policy", "allkeys-lru")
    r.config_set("maxmemory", str(used + 512 * 1024))
    try:
        # Cached reads never touch the key on the server, so it is the least recently used
        # (KEYS, unlike EXISTS, leaves its access time alone).
        filler = "x" * 4096
        for i in range(3000):
            r.set(f"fill:{i}", filler)
            if i % 50 == 0 and not r.keys("k"):
                break
        assert not r.keys("k"), "the fill evicted the key"
        time.sleep(SETTLE)
        assert cached.get("k") is None
    finally:
        r.config_set("maxmemory", "0")
        r.config_set("maxmemory-policy", policy)
