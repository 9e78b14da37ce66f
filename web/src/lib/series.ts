// Pure derivations from the per-second samples: chart columns (uPlot's aligned arrays), rates
// from counter deltas, and the misses-by-cause reading of the last minute.

import type { KeysByType, Sample } from './types';

/** A gap longer than this between samples breaks the chart lines (the page was disconnected). */
export const GAP_MS = 3500;

/**
 * Per-second increase of a counter between two samples. A counter that went down was reset
 * (server restart, CONFIG RESETSTAT): like Prometheus' rate(), count from zero then.
 */
export function counterRate(prev: number, cur: number, dtMs: number): number | null {
  if (!(dtMs > 0)) return null;
  const delta = cur >= prev ? cur - prev : cur;
  return (delta * 1000) / dtMs;
}

/** Increase of a counter from `prev` to `cur`, reset-aware as `counterRate`. */
export function counterDelta(prev: number, cur: number): number {
  return cur >= prev ? cur - prev : cur;
}

export interface Columns {
  /** Unix seconds (uPlot's x). */
  t: number[];
  used: (number | null)[];
  maxmemory: (number | null)[];
  allocator: (number | null)[];
  rss: (number | null)[];
  ops: (number | null)[];
  /** hits / lookups within each second, null when there were none. */
  hitRatio: (number | null)[];
  evictedRate: (number | null)[];
  expiredRate: (number | null)[];
  clients: (number | null)[];
  keys: (number | null)[];
  /** Client-side caching: keys in the tracking table, invalidation messages per second. */
  trackedKeys: (number | null)[];
  invalidationRate: (number | null)[];
  keysByType: Record<string, (number | null)[]>;
}

/** Every key type that had keys in the samples, sorted, for the keys-by-type chart. */
export function typeNames(samples: Sample[]): (keyof KeysByType)[] {
  const names = new Set<keyof KeysByType>();
  for (const s of samples) {
    for (const [k, n] of Object.entries(s.keys_by_type ?? {}) as [keyof KeysByType, number][]) if (n > 0) names.add(k);
  }
  // An empty cache still draws its (flat) string line.
  if (names.size === 0 && samples.length > 0) names.add('string');
  return [...names].sort();
}

/** Chart columns from samples (oldest first); a null row marks each gap in the data. */
export function columns(samples: Sample[]): Columns {
  const types = typeNames(samples);
  const c: Columns = {
    t: [],
    used: [],
    maxmemory: [],
    allocator: [],
    rss: [],
    ops: [],
    hitRatio: [],
    evictedRate: [],
    expiredRate: [],
    clients: [],
    keys: [],
    trackedKeys: [],
    invalidationRate: [],
    keysByType: Object.fromEntries(types.map((k) => [k, []])),
  };
  const pushRow = (t: number, s: Sample | null, prev: Sample | null) => {
    c.t.push(t / 1000);
    c.used.push(s ? s.used_memory : null);
    // No limit (0) draws no limit line.
    c.maxmemory.push(s && s.maxmemory > 0 ? s.maxmemory : null);
    c.allocator.push(s && s.allocator_bytes > 0 ? s.allocator_bytes : null);
    c.rss.push(s && s.rss_bytes > 0 ? s.rss_bytes : null);
    c.ops.push(s ? s.ops_per_sec : null);
    c.clients.push(s ? s.connected_clients : null);
    c.keys.push(s ? s.keys : null);
    c.trackedKeys.push(s ? s.tracking_keys : null);
    for (const k of types) c.keysByType[k].push(s ? (s.keys_by_type?.[k] ?? 0) : null);
    if (s && prev) {
      const dt = s.t_ms - prev.t_ms;
      c.evictedRate.push(counterRate(prev.evicted_keys, s.evicted_keys, dt));
      c.expiredRate.push(counterRate(prev.expired_keys, s.expired_keys, dt));
      c.invalidationRate.push(counterRate(prev.invalidations, s.invalidations, dt));
      const hits = counterDelta(prev.hits, s.hits);
      const misses = counterDelta(prev.misses, s.misses);
      c.hitRatio.push(hits + misses > 0 ? hits / (hits + misses) : null);
    } else if (s) {
      // The first sample: the server's own per-second figures.
      c.evictedRate.push(s.evicted_per_sec);
      c.expiredRate.push(s.expired_per_sec);
      c.invalidationRate.push(s.invalidations_per_sec);
      c.hitRatio.push(s.hit_ratio_interval);
    } else {
      c.evictedRate.push(null);
      c.expiredRate.push(null);
      c.invalidationRate.push(null);
      c.hitRatio.push(null);
    }
  };
  let prev: Sample | null = null;
  for (const s of samples) {
    if (prev && s.t_ms - prev.t_ms > GAP_MS) {
      pushRow(prev.t_ms + 1000, null, null);
      prev = null;
    }
    pushRow(s.t_ms, s, prev);
    prev = s;
  }
  return c;
}

/** The last non-null value of a column. */
export function last<T>(col: (T | null)[]): T | null {
  for (let i = col.length - 1; i >= 0; i--) if (col[i] !== null && col[i] !== undefined) return col[i];
  return null;
}

export interface MissWindow {
  /** How many seconds the window really covers (less than asked right after load). */
  seconds: number;
  hits: number;
  misses: number;
  neverSeen: number;
  expired: number;
  evicted: number;
}

/**
 * Hits and misses by cause over the last `windowMs` of samples: the newest sample's counters
 * minus those of the oldest sample inside the window (reset-aware).
 */
export function missWindow(samples: Sample[], windowMs = 60_000): MissWindow | null {
  if (samples.length < 2) return null;
  const cur = samples[samples.length - 1];
  let i = samples.length - 2;
  while (i > 0 && cur.t_ms - samples[i - 1].t_ms <= windowMs) i--;
  const base = samples[i];
  const sum = { hits: 0, misses: 0, neverSeen: 0, expired: 0, evicted: 0 };
  // Walk pairwise so a counter reset inside the window is handled.
  for (let j = i + 1; j < samples.length; j++) {
    const a = samples[j - 1];
    const b = samples[j];
    sum.hits += counterDelta(a.hits, b.hits);
    sum.misses += counterDelta(a.misses, b.misses);
    sum.neverSeen += counterDelta(a.misses_never_seen, b.misses_never_seen);
    sum.expired += counterDelta(a.misses_expired, b.misses_expired);
    sum.evicted += counterDelta(a.misses_evicted, b.misses_evicted);
  }
  return { seconds: Math.round((cur.t_ms - base.t_ms) / 1000), ...sum };
}

/**
 * A plain-language reading of the misses in a window: what most misses were, and what would
 * raise the hit ratio (`moreMemory`: by how much more memory would, from the what-if curve).
 */
export function readMisses(w: MissWindow | null, moreMemory: string | null = null): string {
  if (!w) return 'Waiting for a minute of data…';
  const span = w.seconds >= 55 ? 'in the last minute' : `in the last ${w.seconds} seconds`;
  const lookups = w.hits + w.misses;
  if (lookups === 0) return `No reads ${span}, so there is no hit ratio to explain.`;
  if (w.misses === 0) return `Every read ${span} was a hit.`;
  const causes = w.neverSeen + w.expired + w.evicted || 1;
  const share = (n: number) => n / causes;
  const pct = (n: number) => `${Math.round(share(n) * 100)}%`;
  const cap = span.charAt(0).toUpperCase() + span.slice(1);
  if (share(w.evicted) > 0.5) {
    const how = moreMemory ? `: ${moreMemory}` : '';
    return `Most misses ${span} were keys evicted for memory (${pct(w.evicted)}): a larger maxmemory would raise the hit ratio${how}.`;
  }
  if (share(w.expired) > 0.5) {
    return `Most misses ${span} were keys that had expired (${pct(w.expired)}): longer TTLs would raise the hit ratio, if the data may be that old.`;
  }
  if (share(w.neverSeen) > 0.5) {
    return `Most misses ${span} were keys that were never written, or deleted long ago (${pct(w.neverSeen)}): more memory would not help; the application asks for keys the cache never had.`;
  }
  return `${cap}, misses had mixed causes: ${pct(w.neverSeen)} never seen, ${pct(w.expired)} expired, ${pct(w.evicted)} evicted.`;
}
