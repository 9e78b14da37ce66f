// Number formatting for people: bytes, durations, rates, percentages. Every function is pure
// and locale-independent (always `1,234.5`), so tests and screenshots read the same anywhere.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

function finite(n: number | null | undefined): n is number {
  return typeof n === 'number' && Number.isFinite(n);
}

/** Groups thousands with commas: 1234567 → "1,234,567"; keeps `digits` decimals. */
export function formatNumber(n: number | null | undefined, digits = 0): string {
  if (!finite(n)) return '—';
  const fixed = Math.abs(n).toFixed(digits);
  const [int, frac] = fixed.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const sign = n < 0 && Number(fixed) !== 0 ? '-' : '';
  return sign + grouped + (frac ? '.' + frac : '');
}

/**
 * Bytes in binary units with three significant digits: 0 → "0 B", 1536 → "1.50 KiB",
 * 10_485_760 → "10.0 MiB". Below 1 KiB, whole bytes.
 */
export function formatBytes(n: number | null | undefined): string {
  if (!finite(n)) return '—';
  const sign = n < 0 ? '-' : '';
  let v = Math.abs(n);
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  if (u === 0) return `${sign}${Math.round(v)} B`;
  // 1023.9 KiB would print as "1024 KiB": move up a unit instead.
  if (Number(v.toFixed(v >= 100 ? 0 : 2)) >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return `${sign}${v.toFixed(digits)} ${UNITS[u]}`;
}

/** Compact counts: 999 → "999", 12_345 → "12.3k", 4_200_000 → "4.20M". */
export function formatCount(n: number | null | undefined): string {
  if (!finite(n)) return '—';
  const a = Math.abs(n);
  const sign = n < 0 ? '-' : '';
  if (a < 1000) return sign + (Number.isInteger(a) ? String(a) : a < 10 ? a.toFixed(2) : a.toFixed(1));
  const steps: [number, string][] = [
    [1e12, 'T'],
    [1e9, 'G'],
    [1e6, 'M'],
    [1e3, 'k'],
  ];
  for (let i = 0; i < steps.length; i++) {
    const [base, suffix] = steps[i];
    if (a >= base * 0.9995) {
      const v = a / base;
      // 999.96k rounds to "1000k": use the next unit up.
      if (v >= 999.5 && i > 0) {
        const [up, upSuffix] = steps[i - 1];
        return `${sign}${(a / up).toFixed(2)}${upSuffix}`;
      }
      const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
      return `${sign}${v.toFixed(digits)}${suffix}`;
    }
  }
  return sign + String(a);
}

/** A per-second rate: 0 → "0/s", 0.5 → "0.50/s", 12_345 → "12.3k/s". */
export function formatRate(perSec: number | null | undefined, unit = '/s'): string {
  if (!finite(perSec)) return '—';
  return formatCount(perSec) + unit;
}

/** A ratio in [0, 1] as a percentage: 0.9731 → "97.3%". `null` (no data) → "—". */
export function formatPercent(ratio: number | null | undefined, digits = 1): string {
  if (!finite(ratio)) return '—';
  return `${(ratio * 100).toFixed(digits)}%`;
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

/** A measured duration in µs for people: "850 µs", "1.50 ms", "2.10 s". */
export function formatMicros(us: number): string {
  if (us >= 1_000_000) return `${formatNumber(us / 1_000_000, 2)} s`;
  if (us >= 1000) return `${formatNumber(us / 1000, 2)} ms`;
  return `${formatNumber(us)} µs`;
}

/**
 * A span of time for people, two units at most: 850 → "850 ms", 12_000 → "12s",
 * 185_000 → "3m 05s", 7_380_000 → "2h 03m", 2 days → "2d 0h".
 */
export function formatDuration(ms: number | null | undefined): string {
  if (!finite(ms)) return '—';
  if (ms < 0) return '-' + formatDuration(-ms);
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${pad2(s % 60)}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${pad2(m % 60)}m`;
  const d = Math.floor(h / 24);
  return `${d}d ${h % 24}h`;
}

/** Seconds of uptime: 0 → "0s", 3725 → "1h 02m". */
export function formatUptime(seconds: number | null | undefined): string {
  if (!finite(seconds)) return '—';
  return seconds < 1 ? '0s' : formatDuration(seconds * 1000);
}

/**
 * A TTL in milliseconds as a countdown: `null` → "no TTL", ≤ 0 → "expired", otherwise
 * whole seconds rounded up (so a key does not show "0s" while it still exists).
 */
export function formatTtl(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return 'no TTL';
  if (!Number.isFinite(ms)) return '—';
  if (ms <= 0) return 'expired';
  if (ms < 1000) return '<1s';
  return formatDuration(Math.ceil(ms / 1000) * 1000);
}

/** Latency in milliseconds: 0.0421 → "42 µs", 1.234 → "1.23 ms", 1520 → "1.52 s". */
export function formatLatency(ms: number | null | undefined): string {
  if (!finite(ms)) return '—';
  if (ms === 0) return '0 ms';
  if (ms < 1) {
    const us = ms * 1000;
    return `${us < 10 ? us.toFixed(1) : Math.round(us)} µs`;
  }
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** A wall-clock time of day, HH:MM:SS in local time. */
export function formatClock(tMs: number): string {
  const d = new Date(tMs);
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

/** How long ago, from `now`: "just now", "12s ago", "3m 05s ago". */
export function formatAgo(tMs: number, nowMs: number): string {
  const d = nowMs - tMs;
  if (d < 1000) return 'just now';
  return `${formatDuration(d)} ago`;
}

/**
 * Parses a size as Redis does (`64mb`, `1gb`, `512k`, `100`, with k/kb/m/mb/g/gb; `kb` is
 * 1024 and `k` is 1000, as in redis.conf). Returns bytes, or null when it is not a size.
 */
export function parseSize(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|k|kb|m|mb|g|gb)?\s*$/i.exec(text);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] ?? 'b').toLowerCase();
  const mult: Record<string, number> = {
    b: 1,
    k: 1000,
    kb: 1024,
    m: 1000 ** 2,
    mb: 1024 ** 2,
    g: 1000 ** 3,
    gb: 1024 ** 3,
  };
  return Math.round(n * mult[unit]);
}
