// A stream's consumer groups as the key panel shows them: one row per group and one per
// consumer, with the numbers as text (an unknown lag or entries-read count says so).
import { displayBytes } from './bytes';
import { formatDuration, formatNumber } from './format';
import type { StreamGroupView } from './api-types';

export interface ConsumerRow {
  name: string;
  pending: string;
  idle: string;
  /** Since it last got an entry, or "never". */
  inactive: string;
}

export interface GroupRow {
  name: string;
  lastDelivered: string;
  entriesRead: string;
  /** Entries not yet delivered; "unknown" when deletions make it impossible to tell. */
  lag: string;
  pending: string;
  consumers: ConsumerRow[];
}

export function groupRows(groups: readonly StreamGroupView[] | null | undefined): GroupRow[] {
  return (groups ?? []).map((g) => ({
    name: displayBytes(g.name),
    lastDelivered: g.last_delivered_id,
    entriesRead: g.entries_read === null ? 'unknown' : formatNumber(g.entries_read),
    lag: g.lag === null ? 'unknown' : formatNumber(g.lag),
    pending: formatNumber(g.pending),
    consumers: g.consumers.map((c) => ({
      name: displayBytes(c.name),
      pending: formatNumber(c.pending),
      idle: formatDuration(c.idle_ms),
      inactive: c.inactive_ms === null ? 'never' : formatDuration(c.inactive_ms),
    })),
  }));
}
