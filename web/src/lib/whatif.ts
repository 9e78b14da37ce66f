// What-if memory on the Evictions page: reads the engine's miss-ratio curve (GET
// /api/evictions/what-if, or the playground's engine) into the advice "at N MB you would hit
// X%", and the ghost record's horizon into words. Pure functions, so they are unit-tested.

import type { WhatIf } from './api-types';
import { formatBytes, formatDuration, formatNumber, formatPercent } from './format';

export type { WhatIf };

/** The curve's point at `factor` times the limit, if estimated. */
export function pointAt(view: WhatIf | null, factor: number): { bytes: number; hit_ratio: number } | null {
  return view?.points.find((p) => p.factor === factor) ?? null;
}

/**
 * The memory to suggest: the smallest limit above the current one that gets within a tenth
 * of what 4x would gain, so the advice names a size worth its cost rather than always the
 * largest. Null when the curve is unknown, or more memory would gain under one point.
 */
export function suggestion(view: WhatIf | null): { bytes: number; factor: number; hitRatio: number; now: number } | null {
  const now = pointAt(view, 1);
  const points = (view?.points ?? []).filter((p) => p.factor > 1);
  if (!now || points.length === 0) return null;
  const best = Math.max(...points.map((p) => p.hit_ratio));
  if (best - now.hit_ratio < 0.01) return null;
  const enough = points.find((p) => p.hit_ratio - now.hit_ratio >= 0.9 * (best - now.hit_ratio)) ?? points[points.length - 1];
  return { bytes: enough.bytes, factor: enough.factor, hitRatio: enough.hit_ratio, now: now.hit_ratio };
}

/** "at 16.0 MB (2x the limit) you would hit about 89% of reads, against 47% now". */
export function adviseMore(view: WhatIf | null): string | null {
  const s = suggestion(view);
  if (!s) return null;
  const limit = view && view.maxmemory > 0 ? 'the limit' : 'the memory used now';
  return `at ${formatBytes(s.bytes)} (${s.factor}x ${limit}) you would hit about ${formatPercent(s.hitRatio, 0)} of reads, against ${formatPercent(s.now, 0)} now`;
}

/** How far back misses are classified: "the last 131,072 evictions and expirations (about 3s)". */
export function formatHorizon(view: WhatIf | null): string {
  if (!view) return '';
  const g = view.ghost;
  if (g.horizon_ms === null) {
    return g.horizon_departures === 0
      ? `Nothing has been evicted or expired yet; up to ${formatNumber(g.capacity)} departures will be remembered.`
      : `Every eviction and expiration so far (${formatNumber(g.horizon_departures)}) is remembered.`;
  }
  return `Misses are classified against the last ${formatNumber(g.horizon_departures)} evictions and expirations, about ${formatDuration(g.horizon_ms)} back; a key gone longer ago counts as never seen.`;
}
