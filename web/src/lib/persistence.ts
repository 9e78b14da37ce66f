// Text for the Overview's persistence panel, from `persistence` in GET /api/stats.

import type { AofRecovery } from './types';
import { formatBytes, formatNumber } from './format';

/** "Recovered: kept N commands, dropped B bytes at offset O", or null after a clean load. */
export function recoveryText(r: AofRecovery | null | undefined): string | null {
  if (!r || r.truncated_at === null || r.truncated_at === undefined) return null;
  const commands = `${formatNumber(r.commands)} command${r.commands === 1 ? '' : 's'}`;
  const bytes = `${formatNumber(r.dropped_bytes)} byte${r.dropped_bytes === 1 ? '' : 's'}`;
  return `Recovered: kept ${commands}, dropped ${bytes} at offset ${formatNumber(r.truncated_at)}`;
}

/** What the file held at the last start: "12,345 commands from 1.2 MB", and from what when it
 *  was not Vitrine's own file. */
export function loadedText(r: AofRecovery | null | undefined): string {
  if (!r) return '';
  if (r.file_bytes === 0) return 'started with no file';
  const text = `loaded ${formatNumber(r.commands)} commands from ${formatBytes(r.file_bytes)}`;
  const from = FORMATS[r.format ?? ''];
  return from ? `${text} (${from})` : text;
}

const FORMATS: Record<string, string> = {
  resp: 'a plain RESP file',
  'rdb-preamble': 'an RDB image and RESP',
  'redis-multi-part': "Redis's multi-part appendonlydir",
};

/** Where the bytes a torn tail lost are kept: its path and size, or null when nothing was cut. */
export function tornCopy(r: AofRecovery | null | undefined): { path: string; size: string } | null {
  if (!r || !r.torn_copy) return null;
  return { path: r.torn_copy, size: formatBytes(r.torn_copy_bytes) };
}

/** The last rewrite's outcome: null for none yet, else whether it failed and why. */
export function rewriteOutcome(status: string | null | undefined): { ok: boolean; error: string } | null {
  if (!status) return null;
  if (status === 'ok') return { ok: true, error: '' };
  return { ok: false, error: status.replace(/^err:\s*/, '') };
}
