import { describe, expect, it } from 'vitest';
import { columns, counterDelta, counterRate, last, missWindow, readMisses, typeNames } from './series';
import { sample } from './testing';

describe('counter rates', () => {
  it('is the increase per second', () => {
    expect(counterRate(100, 150, 1000)).toBe(50);
    expect(counterRate(100, 150, 2000)).toBe(25);
    expect(counterRate(100, 100, 1000)).toBe(0);
  });

  it('treats a counter that went down as reset (counts from zero)', () => {
    expect(counterRate(1000, 30, 1000)).toBe(30);
    expect(counterDelta(1000, 30)).toBe(30);
  });

  it('has no rate without elapsed time', () => {
    expect(counterRate(1, 2, 0)).toBeNull();
  });
});

describe('columns', () => {
  it('turns samples into uPlot columns with rates from counter deltas', () => {
    const c = columns([
      sample(10_000, { used_memory: 100, maxmemory: 1000, evicted_keys: 10, expired_keys: 0, hits: 0, misses: 0, evicted_per_sec: 3 }),
      sample(11_000, { used_memory: 200, maxmemory: 1000, evicted_keys: 15, expired_keys: 2, hits: 3, misses: 1 }),
      sample(13_000, { used_memory: 300, maxmemory: 0, evicted_keys: 25, expired_keys: 2, hits: 3, misses: 1 }),
    ]);
    expect(c.t).toEqual([10, 11, 13]);
    expect(c.used).toEqual([100, 200, 300]);
    expect(c.maxmemory).toEqual([1000, 1000, null]); // no limit: no line
    expect(c.evictedRate).toEqual([3, 5, 5]); // first from the server, then deltas
    expect(c.expiredRate).toEqual([0, 2, 0]);
    expect(c.hitRatio).toEqual([null, 0.75, null]); // no lookups in the last second
  });

  it('breaks the lines at a gap in the data', () => {
    const c = columns([sample(10_000), sample(11_000), sample(30_000), sample(31_000, { evicted_keys: 4 })]);
    expect(c.t).toEqual([10, 11, 12, 30, 31]);
    expect(c.used[2]).toBeNull();
    expect(c.evictedRate[2]).toBeNull();
    // after the gap, the first rate is the server's own figure again, not a delta across it
    expect(c.evictedRate[3]).toBe(0);
    expect(c.evictedRate[4]).toBe(4);
  });

  it('has one column per key type ever seen', () => {
    const s = [sample(1000, { keys_by_type: { string: 3 } }), sample(2000, { keys_by_type: { string: 2, hash: 1 } })];
    expect(typeNames(s)).toEqual(['hash', 'string']);
    expect(columns(s).keysByType).toEqual({ hash: [0, 1], string: [3, 2] });
  });

  it('finds the last value', () => {
    expect(last([1, 2, null])).toBe(2);
    expect(last([null])).toBeNull();
    expect(last([])).toBeNull();
  });
});

describe('misses by cause', () => {
  const at = (t: number, hits: number, never: number, expired: number, evicted: number) =>
    sample(t, { hits, misses: never + expired + evicted, misses_never_seen: never, misses_expired: expired, misses_evicted: evicted });

  it('sums the last minute of counters', () => {
    const s = [at(0, 0, 0, 0, 0), at(30_000, 10, 1, 1, 1), at(60_000, 50, 2, 3, 10), at(90_000, 100, 4, 5, 40)];
    const w = missWindow(s, 60_000)!;
    expect(w.seconds).toBe(60);
    expect(w.hits).toBe(90);
    expect(w).toMatchObject({ neverSeen: 3, expired: 4, evicted: 39, misses: 46 });
  });

  it('copes with a counter reset inside the window', () => {
    const s = [at(0, 100, 50, 0, 0), at(1000, 5, 0, 0, 2), at(2000, 7, 0, 0, 5)];
    expect(missWindow(s)).toMatchObject({ hits: 7, evicted: 5, neverSeen: 0 });
  });

  it('needs two samples', () => {
    expect(missWindow([at(0, 0, 0, 0, 0)])).toBeNull();
    expect(readMisses(null)).toMatch(/Waiting/);
  });

  it('reads the causes in plain language', () => {
    const w = { seconds: 60, hits: 100, misses: 0, neverSeen: 0, expired: 0, evicted: 0 };
    expect(readMisses({ ...w, hits: 0 })).toBe('No reads in the last minute, so there is no hit ratio to explain.');
    expect(readMisses(w)).toBe('Every read in the last minute was a hit.');
    expect(readMisses({ ...w, misses: 10, evicted: 8, expired: 1, neverSeen: 1 })).toBe(
      'Most misses in the last minute were keys evicted for memory (80%): a larger maxmemory would raise the hit ratio.',
    );
    expect(readMisses({ ...w, misses: 10, expired: 7, neverSeen: 3 })).toMatch(/^Most misses in the last minute were keys that had expired \(70%\): longer TTLs/);
    expect(readMisses({ ...w, misses: 10, neverSeen: 9, evicted: 1 })).toMatch(/never written.*more memory would not help/);
    expect(readMisses({ ...w, misses: 9, neverSeen: 3, expired: 3, evicted: 3 })).toBe(
      'In the last minute, misses had mixed causes: 33% never seen, 33% expired, 33% evicted.',
    );
    expect(readMisses({ ...w, seconds: 12, misses: 1, evicted: 1 })).toMatch(/^Most misses in the last 12 seconds/);
    // With the curve, by how much.
    expect(readMisses({ ...w, misses: 10, evicted: 8, expired: 1, neverSeen: 1 }, 'at 16.0 MiB you would hit about 89%')).toBe(
      'Most misses in the last minute were keys evicted for memory (80%): a larger maxmemory would raise the hit ratio: at 16.0 MiB you would hit about 89%.',
    );
    expect(readMisses({ ...w, misses: 10, neverSeen: 9, evicted: 1 }, 'at 16.0 MiB you would hit about 89%')).toMatch(/more memory would not help/);
  });
});
