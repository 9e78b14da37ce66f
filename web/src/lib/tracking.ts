// How the Clients page words a connection's client-side caching (CLIENT TRACKING): its mode,
// NOLOOP, where its invalidations go and the prefixes it watches.

import type { TrackingRow } from './api-types';

const MODES: Record<string, string> = {
  default: 'keys it reads',
  bcast: 'broadcast',
  optin: 'opt-in',
  optout: 'opt-out',
};

/** One line: `keys it reads · noloop · → #12 (gone)` or `broadcast: user:, cache:`. */
export function trackingText(t: TrackingRow | null | undefined): string {
  if (!t) return '';
  let text = MODES[t.mode] ?? t.mode;
  if (t.mode === 'bcast') {
    text += `: ${t.prefixes.map((p) => (p === '' ? 'every key' : p)).join(', ')}`;
  }
  if (t.noloop) text += ' · noloop';
  if (t.redirect !== null) text += ` · → #${t.redirect}${t.broken_redirect ? ' (gone)' : ''}`;
  return text;
}
