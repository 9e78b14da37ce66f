"""Dramatiq's Redis broker: every queue operation (enqueue, fetch, ack, nack, requeue,
purge, qsize, and the maintenance that returns a dead worker's messages) is one Lua script,
dispatch.lua, run by EVALSHA; maxstack.lua probes how many values unpack() takes."""

from __future__ import annotations

import threading
import time

import dramatiq
import pytest
from dramatiq import Worker
from dramatiq.brokers.redis import MAINTENANCE_SCALE, RedisBroker

QUEUE = "default"


@pytest.fixture
def make_broker(r, server):
    brokers = []

    def make(**kwargs):
        # The probe's result is cached on the class: forget it, so each server is probed.
        RedisBroker._max_unpack_size_val = None
        broker = RedisBroker(host="127.0.0.1", port=server.port, socket_timeout=10, **kwargs)
        brokers.append(broker)
        return broker

    yield make
    for broker in brokers:
        broker.close()
        broker.client.close()


def run_worker(broker, queue=QUEUE, timeout_ms=20000):
    """Process `queue` until it is empty (its delay queue included), then stop the worker."""
    worker = Worker(broker, worker_threads=2, worker_timeout=50)
    worker.start()
    try:
        broker.join(queue, interval=20, timeout=timeout_ms)
        worker.join()
    finally:
        worker.stop(timeout=10000)


def test_maxstack_probe_finds_lua_5_1s_c_stack_limit(make_broker):
    broker = make_broker()
    # Redis's Lua 5.1 has LUAI_MAXCSTACK 8000: unpack() of 7992 values works, of 15984 fails.
    assert broker.scripts["maxstack"]() == 7992
    assert broker._max_unpack_size() == 3996


def test_produce_and_consume(make_broker, r):
    broker = make_broker()
    seen = []
    lock = threading.Lock()

    @dramatiq.actor(broker=broker, max_retries=0)
    def add(a, b):
        with lock:
            seen.append(a + b)

    for i in range(30):
        add.send(i, 100)
    assert r.llen(f"dramatiq:{QUEUE}") == 30
    assert r.hlen(f"dramatiq:{QUEUE}.msgs") == 30
    run_worker(broker)
    assert sorted(seen) == [100 + i for i in range(30)]
    # Every message was acknowledged: nothing left in the queue, its hash or the acks.
    assert r.llen(f"dramatiq:{QUEUE}") == 0
    assert r.hlen(f"dramatiq:{QUEUE}.msgs") == 0
    assert r.keys("dramatiq:__acks__.*") == []
    # Each worker's heartbeat is in the sorted set the scripts keep.
    assert r.zcard("dramatiq:__heartbeats__") >= 1


def test_failed_messages_are_retried_through_the_delay_queue(make_broker, r):
    broker = make_broker()
    attempts: dict[int, int] = {}
    lock = threading.Lock()

    @dramatiq.actor(broker=broker, max_retries=5, min_backoff=10, max_backoff=50)
    def flaky(n):
        with lock:
            attempts[n] = attempts.get(n, 0) + 1
            if attempts[n] < 3:
                raise RuntimeError(f"attempt {attempts[n]} of {n} fails")

    for n in range(5):
        flaky.send(n)
    run_worker(broker)
    assert attempts == {n: 3 for n in range(5)}
    assert r.hlen(f"dramatiq:{QUEUE}.DQ.msgs") == 0
    assert r.zcard(f"dramatiq:{QUEUE}.XQ") == 0


def test_a_message_out_of_retries_is_dead_lettered(make_broker, r):
    broker = make_broker()
    calls = []

    @dramatiq.actor(broker=broker, max_retries=1, min_backoff=10, max_backoff=10)
    def always_fails():
        calls.append(1)
        raise RuntimeError("nope")

    message = always_fails.send()
    run_worker(broker)
    assert len(calls) == 2  # the first try and one retry
    assert r.zcard(f"dramatiq:{QUEUE}.XQ") == 1
    (dead_id,) = r.hkeys(f"dramatiq:{QUEUE}.XQ.msgs")
    assert r.zrange(f"dramatiq:{QUEUE}.XQ", 0, -1) == [dead_id]
    assert message.message_id.encode() in r.hget(f"dramatiq:{QUEUE}.XQ.msgs", dead_id)


def test_consumer_ack_nack_requeue(make_broker, r):
    broker = make_broker()

    @dramatiq.actor(broker=broker)
    def job(n):
        pass

    for n in range(3):
        job.send(n)
    consumer = broker.consume(QUEUE, prefetch=3, timeout=100)
    try:
        fetched = []
        while len(fetched) < 3:
            message = next(consumer)
            if message is not None:
                fetched.append(message)
        assert sorted(m.args[0] for m in fetched) == [0, 1, 2]
        # All three are fetched: out of the list, into this worker's acks set.
        assert r.llen(f"dramatiq:{QUEUE}") == 0
        (acks,) = r.keys("dramatiq:__acks__.*")
        assert r.scard(acks) == 3
        first, second, third = sorted(fetched, key=lambda m: m.args[0])
        consumer.ack(first)
        consumer.nack(second)
        consumer.requeue([third])
        assert r.scard(acks) == 0
        assert r.hlen(f"dramatiq:{QUEUE}.msgs") == 1  # only the requeued one is left
        assert r.llen(f"dramatiq:{QUEUE}") == 1
        assert r.zcard(f"dramatiq:{QUEUE}.XQ") == 1
        assert broker.do_qsize(QUEUE) == 1
    finally:
        consumer.close()
    broker.flush(QUEUE)
    assert broker.do_qsize(QUEUE) == 0
    assert r.keys(f"dramatiq:{QUEUE}*") == []


def test_maintenance_returns_a_dead_workers_messages(make_broker, r):
    dead = make_broker()

    @dramatiq.actor(broker=dead)
    def job(n):
        pass

    job.send(1)
    consumer = dead.consume(QUEUE, prefetch=1, timeout=100)
    message = None
    while message is None:
        message = next(consumer)
    # This worker fetched the message and then went silent: no ack, no heartbeat.
    assert r.llen(f"dramatiq:{QUEUE}") == 0
    time.sleep(0.2)

    # Another worker runs maintenance on every call; its heartbeat timeout is 100 ms.
    alive = make_broker(maintenance_chance=MAINTENANCE_SCALE, heartbeat_timeout=100)
    alive.declare_queue(QUEUE)
    assert alive.do_qsize(QUEUE) == 1  # qsize skips maintenance
    alive.do_enqueue(QUEUE, "other-id", b"{}")
    # The dead worker's message is back on the queue and the dead worker is forgotten.
    assert r.lrange(f"dramatiq:{QUEUE}", 0, -1) == [
        message.options["redis_message_id"].encode(),
        b"other-id",
    ]
    assert r.keys("dramatiq:__acks__.*") == []
    assert r.zrange("dramatiq:__heartbeats__", 0, -1) == [alive.broker_id.encode()]
    consumer.close()
