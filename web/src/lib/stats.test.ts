import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StatsFeed, type FeedSource } from './stats.svelte';
import type { Sample } from './types';
import { sample } from './testing';

/** A stream the test drives: push samples, end it, or fail it. */
interface OpenStream {
  push(s: Sample): void;
  end(): void;
  fail(message: string): void;
  signal: AbortSignal;
}

class FakeSource implements FeedSource {
  historyCalls: number[] = [];
  historyResult: Sample[] | Error = [];
  streams: OpenStream[] = [];

  async history(seconds: number): Promise<Sample[]> {
    this.historyCalls.push(seconds);
    if (this.historyResult instanceof Error) throw this.historyResult;
    return this.historyResult;
  }

  stream(onSample: (s: Sample) => void, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const s: OpenStream = {
        push: (x) => onSample(x),
        end: () => resolve(),
        fail: (m) => reject(new Error(m)),
        signal,
      };
      signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      this.streams.push(s);
    });
  }

  get current(): OpenStream {
    return this.streams[this.streams.length - 1];
  }
}

/** Lets pending promise callbacks run (history → stream hand-off). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('StatsFeed', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(100_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('back-fills 15 minutes of history, then follows the stream', async () => {
    const src = new FakeSource();
    src.historyResult = [sample(97_000), sample(98_000), sample(99_000)];
    const feed = new StatsFeed(src);
    expect(feed.status).toBe('idle');
    feed.start();
    expect(feed.status).toBe('connecting');
    await settle();
    expect(src.historyCalls).toEqual([900]);
    expect(feed.samples.map((s) => s.t_ms)).toEqual([97_000, 98_000, 99_000]);
    expect(feed.connected).toBe(false);
    src.current.push(sample(100_000, { keys: 5 }));
    expect(feed.connected).toBe(true);
    expect(feed.status).toBe('live');
    expect(feed.latest?.keys).toBe(5);
    expect(feed.samples).toHaveLength(4);
    feed.stop();
  });

  it('ignores samples it already has (the stream repeats the newest one first)', async () => {
    const src = new FakeSource();
    src.historyResult = [sample(98_000), sample(99_000)];
    const feed = new StatsFeed(src);
    feed.start();
    await settle();
    src.current.push(sample(99_000));
    src.current.push(sample(98_500));
    src.current.push(sample(100_000));
    expect(feed.samples.map((s) => s.t_ms)).toEqual([98_000, 99_000, 100_000]);
    feed.stop();
  });

  it('keeps at most `capacity` samples', async () => {
    const src = new FakeSource();
    src.historyResult = Array.from({ length: 8 }, (_, i) => sample(1000 * i));
    const feed = new StatsFeed(src, { capacity: 5 });
    feed.start();
    await settle();
    expect(src.historyCalls).toEqual([5]);
    expect(feed.samples.map((s) => s.t_ms)).toEqual([3000, 4000, 5000, 6000, 7000]);
    for (let i = 8; i < 100; i++) src.current.push(sample(1000 * i));
    expect(feed.samples).toHaveLength(5);
    expect(feed.samples[0].t_ms).toBe(95_000);
    expect(feed.latest?.t_ms).toBe(99_000);
    feed.stop();
  });

  it('replaces the samples array instead of mutating it (so $state.raw readers update)', async () => {
    const src = new FakeSource();
    const feed = new StatsFeed(src);
    feed.start();
    await settle();
    const before = feed.samples;
    src.current.push(sample(100_000));
    expect(feed.samples).not.toBe(before);
    expect(before).toHaveLength(0);
    feed.stop();
  });

  it('marks itself disconnected when the stream drops and reconnects with backoff', async () => {
    const src = new FakeSource();
    const feed = new StatsFeed(src, { initialBackoffMs: 1000, maxBackoffMs: 8000 });
    feed.start();
    await settle();
    src.current.push(sample(100_000));
    expect(feed.connected).toBe(true);

    src.current.fail('network error');
    await settle();
    expect(feed.connected).toBe(false);
    expect(feed.status).toBe('reconnecting');
    expect(feed.error).toBe('network error');
    expect(feed.retryAt).toBe(Date.now() + 1000);
    expect(src.streams).toHaveLength(1);

    // Each failed attempt doubles the wait: 1 s, 2 s, 4 s, 8 s, then stays at the cap.
    const waits = [1000, 2000, 4000, 8000, 8000];
    for (const [n, wait] of waits.entries()) {
      await vi.advanceTimersByTimeAsync(wait - 1);
      expect(src.streams).toHaveLength(1 + n);
      await vi.advanceTimersByTimeAsync(1);
      await settle();
      expect(src.streams).toHaveLength(2 + n);
      expect(feed.status).toBe('reconnecting');
      src.current.fail('connection refused');
      await settle();
    }

    // The server is back: a sample resets the backoff.
    await vi.advanceTimersByTimeAsync(8000);
    await settle();
    src.current.push(sample(Date.now()));
    expect(feed.status).toBe('live');
    expect(feed.retryAt).toBeNull();
    expect(feed.error).toBeNull();
    src.current.end();
    await settle();
    expect(feed.status).toBe('reconnecting');
    expect(feed.retryAt).toBe(Date.now() + 1000);
    feed.stop();
  });

  it('treats a stream that ends normally as a drop', async () => {
    const src = new FakeSource();
    const feed = new StatsFeed(src);
    feed.start();
    await settle();
    src.current.push(sample(100_000));
    src.current.end();
    await settle();
    expect(feed.connected).toBe(false);
    expect(feed.status).toBe('reconnecting');
    feed.stop();
  });

  it('gives up on a stream that goes quiet and reconnects', async () => {
    const src = new FakeSource();
    const feed = new StatsFeed(src, { staleAfterMs: 5000, initialBackoffMs: 1000 });
    feed.start();
    await settle();
    src.current.push(sample(100_000));
    await vi.advanceTimersByTimeAsync(4000);
    src.current.push(sample(101_000));
    await vi.advanceTimersByTimeAsync(4999);
    expect(feed.connected).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(src.streams[0].signal.aborted).toBe(true);
    expect(feed.connected).toBe(false);
    expect(feed.error).toMatch(/stalled/);
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    expect(src.streams).toHaveLength(2);
    feed.stop();
  });

  it('back-fills only the missed seconds after a reconnect', async () => {
    const src = new FakeSource();
    src.historyResult = [sample(99_000)];
    const feed = new StatsFeed(src, { initialBackoffMs: 10_000, staleAfterMs: 60_000 });
    feed.start();
    await settle();
    src.current.push(sample(100_000));
    src.current.fail('down');
    await settle();
    // Ten seconds later the feed tries again; the server has kept sampling meanwhile.
    src.historyResult = [sample(100_000), sample(105_000), sample(109_000)];
    await vi.advanceTimersByTimeAsync(10_000);
    await settle();
    expect(src.historyCalls).toEqual([900, 12]);
    expect(feed.samples.map((s) => s.t_ms)).toEqual([99_000, 100_000, 105_000, 109_000]);
    feed.stop();
  });

  it('still follows the stream when history fails', async () => {
    const src = new FakeSource();
    src.historyResult = new Error('404');
    const feed = new StatsFeed(src);
    feed.start();
    await settle();
    expect(src.streams).toHaveLength(1);
    src.current.push(sample(100_000));
    expect(feed.connected).toBe(true);
    feed.stop();
  });

  it('stops: aborts the stream and cancels the pending reconnect', async () => {
    const src = new FakeSource();
    const feed = new StatsFeed(src);
    feed.start();
    feed.start(); // idempotent
    await settle();
    expect(src.streams).toHaveLength(1);
    src.current.fail('down');
    await settle();
    feed.stop();
    expect(feed.status).toBe('idle');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(src.streams).toHaveLength(1);

    feed.start();
    await settle();
    const open = src.current;
    feed.stop();
    expect(open.signal.aborted).toBe(true);
    await settle();
    expect(feed.status).toBe('idle');
  });

  it('retries at once when asked', async () => {
    const src = new FakeSource();
    const feed = new StatsFeed(src, { initialBackoffMs: 10_000 });
    feed.start();
    await settle();
    src.current.fail('down');
    await settle();
    expect(src.streams).toHaveLength(1);
    feed.retryNow();
    await settle();
    expect(src.streams).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(src.streams).toHaveLength(2);
    feed.stop();
  });

  it('tells listeners when the stream is back after a drop', async () => {
    const src = new FakeSource();
    const feed = new StatsFeed(src, { initialBackoffMs: 1000 });
    let calls = 0;
    const off = feed.onReconnect(() => calls++);
    feed.start();
    await settle();
    src.current.push(sample(100_000));
    expect(calls).toBe(0); // the first connection is not a reconnection
    src.current.fail('down');
    await settle();
    await vi.advanceTimersByTimeAsync(1000);
    await settle();
    src.current.push(sample(101_000));
    src.current.push(sample(102_000));
    expect(calls).toBe(1);
    off();
    src.current.fail('down');
    await settle();
    await vi.advanceTimersByTimeAsync(2000);
    await settle();
    src.current.push(sample(103_000));
    expect(calls).toBe(1);
    feed.stop();
  });

  it('computes the backoff schedule', () => {
    const feed = new StatsFeed(new FakeSource(), { initialBackoffMs: 500, maxBackoffMs: 3000 });
    expect([1, 2, 3, 4, 5].map((n) => feed.backoff(n))).toEqual([500, 1000, 2000, 3000, 3000]);
  });
});
