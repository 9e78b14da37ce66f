// Latency over time: the latency view's histograms are cumulative since the last CONFIG
// RESETSTAT, so each command's distribution within a poll interval is the difference of two
// successive snapshots. From it come the interval's p50/p99/p99.9 and calls/s, kept per command
// in a bounded ring for the Latency page's time chart. Computed in the browser, so the server
// and the playground's wasm backend answer the same /api/latency body and keep no history.

import type { LatencyView } from './types';

/** Cumulative histogram: (bucket's upper bound in µs, calls at or under it), bounds ascending. */
export type Buckets = [number, number][];

/** One command's distribution within one poll interval. */
export interface LatencyPoint {
  /** End of the interval, unix seconds (uPlot's x). */
  t: number;
  /** Calls within the interval. */
  calls: number;
  /** Calls per second within the interval. */
  rate: number;
  /** Upper bounds (µs) of the buckets holding the percentiles; null when nothing ran. */
  p50: number | null;
  p99: number | null;
  p999: number | null;
  /** The interval's cumulative histogram, only the buckets that gained calls. */
  buckets: Buckets;
}

/** Calls at or under `bound` in a cumulative histogram whose bounds may be sparse. */
function cumulativeAt(buckets: Buckets, bound: number): number {
  let n = 0;
  for (const [b, c] of buckets) {
    if (b > bound) break;
    n = c;
  }
  return n;
}

/**
 * The interval's cumulative histogram from two snapshots (`prev` null: nothing before). A
 * count that went down means the histogram was reset (CONFIG RESETSTAT) in between: like
 * `counterDelta`, the interval then counts from zero, i.e. it is `cur` itself. Buckets that
 * gained nothing are left out (the counts stay cumulative).
 */
export function intervalBuckets(prev: Buckets | null, cur: Buckets): Buckets {
  const base = prev ?? [];
  const reset = cur.some(([b, c]) => c < cumulativeAt(base, b)) || total(cur) < total(base);
  const out: Buckets = [];
  let last = 0;
  for (const [b, c] of cur) {
    const d = reset ? c : c - cumulativeAt(base, b);
    if (d > last) out.push([b, d]);
    last = Math.max(last, d);
  }
  return out;
}

/** Calls counted by a cumulative histogram. */
export function total(buckets: Buckets): number {
  return buckets.length ? buckets[buckets.length - 1][1] : 0;
}

/**
 * The upper bound of the bucket where the cumulative count reaches `p` percent of the calls
 * (the smallest bound with at least ceil(p% of total) calls at or under it); null for none.
 */
export function percentile(buckets: Buckets, p: number): number | null {
  const n = total(buckets);
  if (n <= 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * n - 1e-9));
  for (const [b, c] of buckets) if (c >= rank) return b;
  return buckets[buckets.length - 1][0];
}

/** A point for an interval of `dtMs` ending at `atMs`. */
export function intervalPoint(prev: Buckets | null, cur: Buckets, atMs: number, dtMs: number): LatencyPoint {
  const buckets = intervalBuckets(prev, cur);
  const calls = total(buckets);
  return {
    t: atMs / 1000,
    calls,
    rate: dtMs > 0 ? (calls * 1000) / dtMs : 0,
    p50: percentile(buckets, 50),
    p99: percentile(buckets, 99),
    p999: percentile(buckets, 99.9),
    buckets,
  };
}

/** Appends `point` to `ring`, dropping points older than `windowMs` before it (a new array). */
export function pushBounded(ring: LatencyPoint[], point: LatencyPoint, windowMs: number): LatencyPoint[] {
  const oldest = point.t - windowMs / 1000;
  return [...ring.filter((p) => p.t > oldest), point];
}

/** The default window: the last five minutes. */
export const WINDOW_MS = 5 * 60_000;

/** Each command's interval points from successive snapshots of the latency view. */
export class LatencyHistory {
  /** Per command, oldest first, within the window. */
  points = $state.raw<Record<string, LatencyPoint[]>>({});

  readonly #windowMs: number;
  #prev: Map<string, Buckets> | null = null;
  #prevAt = 0;

  constructor(windowMs = WINDOW_MS) {
    this.#windowMs = windowMs;
  }

  /** Takes a snapshot received at `atMs` (browser time). The first one only sets the baseline. */
  push(view: LatencyView, atMs: number): void {
    const cur = new Map(view.commands.map((c) => [c.name, c.buckets] as const));
    const prev = this.#prev;
    if (prev) {
      const dt = atMs - this.#prevAt;
      const next: Record<string, LatencyPoint[]> = {};
      for (const [name, buckets] of cur) {
        next[name] = pushBounded(this.points[name] ?? [], intervalPoint(prev.get(name) ?? null, buckets, atMs, dt), this.#windowMs);
      }
      // A command gone from the view was reset: its line goes on (with no calls) until the
      // window forgets it, and it counts from zero when it comes back.
      for (const [name, ring] of Object.entries(this.points)) {
        if (cur.has(name)) continue;
        const kept = pushBounded(ring, intervalPoint(null, [], atMs, dt), this.#windowMs);
        if (kept.some((p) => p.calls > 0)) next[name] = kept;
      }
      this.points = next;
    }
    this.#prev = cur;
    this.#prevAt = atMs;
  }

  /** Forgets everything (another backend). */
  clear(): void {
    this.points = {};
    this.#prev = null;
    this.#prevAt = 0;
  }
}

const histories = new WeakMap<object, LatencyHistory>();

/**
 * The history of one backend, kept while the app lives: leaving the Latency page and coming
 * back goes on from the last snapshot (the interval in between is one long one), rather than
 * waiting for two new polls.
 */
export function historyOf(backend: object): LatencyHistory {
  let h = histories.get(backend);
  if (!h) {
    h = new LatencyHistory();
    histories.set(backend, h);
  }
  return h;
}
