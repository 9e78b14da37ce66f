// The Memory page's logic, apart from its markup: labels for the ledger's prefix rows (the
// delimiter-split key prefixes of GET /api/memory), bar rows with shares of the total, and the
// link from a big key to its detail on the Keys page.

import { displayBytes } from './bytes';
import { formatNumber } from './format';
import type { Bytes, BigKeyRow, PrefixRow, SubPrefix } from './api-types';

/** How a prefix row reads: `user:*`, "(no prefix)", "(other)". */
export function prefixLabel(row: Pick<PrefixRow | SubPrefix, 'kind' | 'name'>, parent?: string): string {
  if (row.kind === 'prefix') return `${displayBytes(row.name)}*`;
  if (row.kind === 'other') return '(other)';
  return parent === undefined ? '(no prefix)' : `${parent} (no deeper prefix)`;
}

export interface Bar {
  id: string;
  label: string;
  bytes: number;
  keys: number;
  /** Of the total, 0..1. */
  share: number;
  /** Of the biggest row, 0..1 (the bar's length). */
  width: number;
  /** Whether the row can be opened (a first-level prefix with children). */
  drill: boolean;
}

/** A row's identity across polls: its kind and name (unique within one level). */
export function barId(row: Pick<PrefixRow | SubPrefix, 'kind' | 'name'>): string {
  return `${row.kind}:${displayBytes(row.name)}`;
}

/** Rows as bars, biggest first, each with its share of `total` bytes. */
export function barsOf(rows: (PrefixRow | SubPrefix)[], total: number, parent?: string): Bar[] {
  const max = Math.max(1, ...rows.map((r) => r.bytes));
  return [...rows]
    .sort((a, b) => b.bytes - a.bytes)
    .map((r) => ({
      id: barId(r),
      label: prefixLabel(r, parent),
      bytes: r.bytes,
      keys: r.keys,
      share: total > 0 ? r.bytes / total : 0,
      width: r.bytes / max,
      drill: 'children' in r && r.kind === 'prefix' && r.children.length > 0,
    }));
}

/** The Keys page's address for a key (text keys only: the page takes the key as text). */
export function keyHref(row: Pick<BigKeyRow, 'key' | 'db'>, href: (path: string) => string): string | null {
  const key: Bytes = row.key;
  if (typeof key !== 'string') return null;
  const q = new URLSearchParams({ db: String(row.db), key });
  return href(`/keys?${q}`);
}

/** "1 key", "1,234 keys". */
export function keysText(n: number): string {
  return `${formatNumber(n)} ${n === 1 ? 'key' : 'keys'}`;
}
