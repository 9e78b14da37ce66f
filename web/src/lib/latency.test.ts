import { describe, expect, it } from 'vitest';
import { historyOf, intervalBuckets, intervalPoint, LatencyHistory, percentile, pushBounded, total, type Buckets, type LatencyPoint } from './latency.svelte';
import type { LatencyView } from './types';

function view(commands: Record<string, Buckets>): LatencyView {
  return {
    tracking: true,
    monitor_threshold_ms: 0,
    timed: true,
    events: [],
    commands: Object.entries(commands).map(([name, buckets]) => ({ name, calls: total(buckets), p50_us: 0, p99_us: 0, p999_us: 0, buckets })),
  };
}

describe('interval buckets', () => {
  it('is the difference of two cumulative snapshots, leaving out buckets that gained nothing', () => {
    const prev: Buckets = [
      [1, 10],
      [2, 15],
      [4, 16],
    ];
    const cur: Buckets = [
      [1, 12],
      [2, 17],
      [4, 18],
      [8, 20],
    ];
    // Own counts within the interval: ≤1: 2, ≤2: 0, ≤4: 0, ≤8: 2 (cumulative 2, 2, 2, 4).
    expect(intervalBuckets(prev, cur)).toEqual([
      [1, 2],
      [8, 4],
    ]);
  });

  it('aligns sparse bounds: a bound missing before counts what sits under it', () => {
    const prev: Buckets = [[1, 5]];
    const cur: Buckets = [
      [1, 5],
      [16, 8],
    ];
    expect(intervalBuckets(prev, cur)).toEqual([[16, 3]]);
  });

  it('is the whole snapshot without a previous one', () => {
    expect(intervalBuckets(null, [[2, 3]])).toEqual([[2, 3]]);
  });

  it('is empty when nothing ran', () => {
    const b: Buckets = [
      [1, 4],
      [2, 9],
    ];
    expect(intervalBuckets(b, b)).toEqual([]);
  });

  it('treats a count that went down as a reset and counts from zero', () => {
    const prev: Buckets = [
      [1, 100],
      [2, 150],
    ];
    const cur: Buckets = [
      [1, 3],
      [4, 5],
    ];
    expect(intervalBuckets(prev, cur)).toEqual(cur);
  });
});

describe('percentiles', () => {
  const b: Buckets = [
    [1, 50],
    [2, 99],
    [4, 100],
  ];

  it('is the upper bound of the bucket where the cumulative count reaches the rank', () => {
    expect(percentile(b, 50)).toBe(1);
    expect(percentile(b, 50.5)).toBe(2);
    expect(percentile(b, 99)).toBe(2);
    expect(percentile(b, 99.9)).toBe(4);
    expect(percentile(b, 100)).toBe(4);
  });

  it('is null with no calls', () => {
    expect(percentile([], 50)).toBeNull();
  });

  it('comes from the interval, not the cumulative histogram', () => {
    // 1000 fast calls before, then 10 slow ones: cumulatively p50 is fast, in the interval slow.
    const prev: Buckets = [[1, 1000]];
    const cur: Buckets = [
      [1, 1000],
      [1024, 1010],
    ];
    expect(percentile(cur, 50)).toBe(1);
    const p = intervalPoint(prev, cur, 10_000, 2000);
    expect(p).toMatchObject({ t: 10, calls: 10, rate: 5, p50: 1024, p99: 1024, p999: 1024 });
  });

  it('has no percentiles and a zero rate for an idle interval', () => {
    expect(intervalPoint([[1, 5]], [[1, 5]], 4000, 2000)).toMatchObject({ calls: 0, rate: 0, p50: null, p99: null, p999: null });
  });
});

describe('the ring', () => {
  const at = (t: number): LatencyPoint => ({ t, calls: 1, rate: 1, p50: 1, p99: 1, p999: 1, buckets: [[1, 1]] });

  it('keeps only the window before the newest point', () => {
    let ring: LatencyPoint[] = [];
    for (let t = 0; t <= 100; t += 2) ring = pushBounded(ring, at(t), 10_000);
    expect(ring.map((p) => p.t)).toEqual([92, 94, 96, 98, 100]);
  });
});

describe('LatencyHistory', () => {
  it('starts with a baseline, then adds one point per command per snapshot', () => {
    const h = new LatencyHistory();
    h.push(view({ get: [[1, 10]] }), 1000);
    expect(h.points).toEqual({});
    h.push(view({ get: [[1, 14]], set: [[2, 1]] }), 3000);
    expect(h.points.get.map((p) => [p.t, p.calls, p.rate, p.p50])).toEqual([[3, 4, 2, 1]]);
    // A command new since the baseline counts from zero.
    expect(h.points.set[0]).toMatchObject({ calls: 1, p50: 2 });
  });

  it('starts over after CONFIG RESETSTAT (commands gone, then fewer calls)', () => {
    const h = new LatencyHistory();
    h.push(view({ get: [[1, 100]] }), 0);
    h.push(view({ get: [[1, 110]] }), 1000);
    h.push(view({}), 2000);
    expect(h.points.get.map((p) => p.calls)).toEqual([10, 0]);
    h.push(view({ get: [[8, 3]] }), 3000);
    expect(h.points.get.map((p) => p.calls)).toEqual([10, 0, 3]);
    expect(h.points.get[2].p99).toBe(8);
    // A reset between two polls with the command still listed: fewer calls than before.
    h.push(view({ get: [[8, 1]] }), 4000);
    expect(h.points.get[3]).toMatchObject({ calls: 1, p50: 8 });
  });

  it('bounds each ring by the window and forgets commands gone for longer', () => {
    const h = new LatencyHistory(10_000);
    h.push(view({ get: [[1, 0]] }), 0);
    for (let i = 1; i <= 20; i++) h.push(view({ get: [[1, i]] }), i * 1000);
    expect(h.points.get).toHaveLength(10);
    expect(h.points.get[0].t).toBe(11);
    for (let i = 21; i <= 31; i++) h.push(view({}), i * 1000);
    expect(h.points.get).toBeUndefined();
  });
});

describe('historyOf', () => {
  it('keeps one history per backend', () => {
    const a = {};
    expect(historyOf(a)).toBe(historyOf(a));
    expect(historyOf(a)).not.toBe(historyOf({}));
  });
});
