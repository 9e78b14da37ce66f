import { describe, expect, it } from 'vitest';
import { adviseMore, formatHorizon, pointAt, suggestion, type WhatIf } from './whatif';

const MB = 1024 * 1024;

function view(ratios: [number, number][], over: Partial<WhatIf> = {}): WhatIf {
  return {
    now_ms: 0,
    maxmemory: 8 * MB,
    used_memory: 8 * MB,
    base_bytes: 8 * MB,
    points: ratios.map(([factor, hit_ratio]) => ({ factor, bytes: factor * 8 * MB, hit_ratio })),
    unlimited: 0.9,
    sampled_reads: 1000,
    sampled_keys: 400,
    sample_rate: 1 / 64,
    sampler_bytes: 50_000,
    ghost: { capacity: 131072, horizon_departures: 131072, horizon_ms: 2600, bytes: 524288, max_bytes: 256 * MB, per_live_key: 4 },
    ...over,
  };
}

describe('what-if memory', () => {
  const demo = view([
    [0.5, 0.23],
    [1, 0.47],
    [1.5, 0.7],
    [2, 0.89],
    [3, 0.9],
    [4, 0.9],
  ]);

  it('suggests the smallest limit that gets most of the gain', () => {
    expect(pointAt(demo, 2)?.hit_ratio).toBe(0.89);
    expect(suggestion(demo)).toEqual({ bytes: 16 * MB, factor: 2, hitRatio: 0.89, now: 0.47 });
    expect(adviseMore(demo)).toBe('at 16.0 MiB (2x the limit) you would hit about 89% of reads, against 47% now');
  });

  it('has no advice when more memory would not help or nothing is known', () => {
    expect(suggestion(view([[1, 0.5], [2, 0.502], [4, 0.505]]))).toBeNull();
    expect(suggestion(view([]))).toBeNull();
    expect(adviseMore(null)).toBeNull();
  });

  it('words the horizon', () => {
    expect(formatHorizon(demo)).toMatch(/last 131,072 evictions and expirations, about 2s back/);
    expect(formatHorizon(view([], { ghost: { ...demo.ghost, horizon_ms: null, horizon_departures: 0 } }))).toMatch(/Nothing has been evicted/);
    expect(formatHorizon(view([], { ghost: { ...demo.ghost, horizon_ms: null, horizon_departures: 12 } }))).toMatch(/Every eviction and expiration so far \(12\)/);
  });
});
