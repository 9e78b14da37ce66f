import { describe, expect, it } from 'vitest';
import {
  formatAgo,
  formatBytes,
  formatCount,
  formatDuration,
  formatLatency,
  formatNumber,
  formatPercent,
  formatRate,
  formatTtl,
  formatUptime,
  parseSize,
} from './format';

describe('formatBytes', () => {
  it('uses binary units with three significant digits', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1)).toBe('1 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.00 KiB');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(10 * 1024 * 1024)).toBe('10.0 MiB');
    expect(formatBytes(123.4 * 1024 * 1024)).toBe('123 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.00 GiB');
    expect(formatBytes(2 * 1024 ** 4)).toBe('2.00 TiB');
  });

  it('moves up a unit instead of printing 1024', () => {
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.00 MiB');
    expect(formatBytes(1023.9 * 1024)).toBe('1.00 MiB');
  });

  it('handles negatives and missing values', () => {
    expect(formatBytes(-2048)).toBe('-2.00 KiB');
    expect(formatBytes(null)).toBe('—');
    expect(formatBytes(undefined)).toBe('—');
    expect(formatBytes(Number.NaN)).toBe('—');
  });
});

describe('formatNumber', () => {
  it('groups thousands, independent of locale', () => {
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(999)).toBe('999');
    expect(formatNumber(1000)).toBe('1,000');
    expect(formatNumber(1234567)).toBe('1,234,567');
    expect(formatNumber(-1234567)).toBe('-1,234,567');
    expect(formatNumber(1234.5678, 2)).toBe('1,234.57');
    expect(formatNumber(-0.001, 1)).toBe('0.0');
    expect(formatNumber(null)).toBe('—');
  });
});

describe('formatCount and formatRate', () => {
  it('abbreviates large counts', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(7)).toBe('7');
    expect(formatCount(2.5)).toBe('2.50');
    expect(formatCount(42.25)).toBe('42.3');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1.00k');
    expect(formatCount(12_345)).toBe('12.3k');
    expect(formatCount(123_456)).toBe('123k');
    expect(formatCount(4_200_000)).toBe('4.20M');
    expect(formatCount(7_500_000_000)).toBe('7.50G');
    expect(formatCount(-12_345)).toBe('-12.3k');
  });

  it('rounds up to the next unit rather than printing 1000k', () => {
    expect(formatCount(999_999)).toBe('1.00M');
    expect(formatCount(999_700)).toBe('1.00M');
  });

  it('adds the unit to rates', () => {
    expect(formatRate(0)).toBe('0/s');
    expect(formatRate(0.5)).toBe('0.50/s');
    expect(formatRate(152_300)).toBe('152k/s');
    expect(formatRate(3, ' ops/s')).toBe('3 ops/s');
    expect(formatRate(null)).toBe('—');
  });
});

describe('formatPercent', () => {
  it('shows a ratio as a percentage', () => {
    expect(formatPercent(0)).toBe('0.0%');
    expect(formatPercent(0.9731)).toBe('97.3%');
    expect(formatPercent(1)).toBe('100.0%');
    expect(formatPercent(0.5, 0)).toBe('50%');
    expect(formatPercent(0.12345, 2)).toBe('12.35%');
    expect(formatPercent(null)).toBe('—');
  });
});

describe('durations', () => {
  it('formats spans with at most two units', () => {
    expect(formatDuration(0)).toBe('0 ms');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(1000)).toBe('1s');
    expect(formatDuration(12_000)).toBe('12s');
    expect(formatDuration(59_999)).toBe('59s');
    expect(formatDuration(60_000)).toBe('1m 00s');
    expect(formatDuration(185_000)).toBe('3m 05s');
    expect(formatDuration(3_600_000)).toBe('1h 00m');
    expect(formatDuration(7_380_000)).toBe('2h 03m');
    expect(formatDuration(2 * 86_400_000 + 3_600_000)).toBe('2d 1h');
    expect(formatDuration(-5000)).toBe('-5s');
    expect(formatDuration(undefined)).toBe('—');
  });

  it('formats uptime from seconds', () => {
    expect(formatUptime(0)).toBe('0s');
    expect(formatUptime(3725)).toBe('1h 02m');
  });

  it('counts TTLs down in whole seconds, rounding up', () => {
    expect(formatTtl(null)).toBe('no TTL');
    expect(formatTtl(0)).toBe('expired');
    expect(formatTtl(-10)).toBe('expired');
    expect(formatTtl(400)).toBe('<1s');
    expect(formatTtl(1000)).toBe('1s');
    expect(formatTtl(59_001)).toBe('1m 00s');
    expect(formatTtl(58_200)).toBe('59s');
    expect(formatTtl(3_600_000)).toBe('1h 00m');
  });

  it('says how long ago', () => {
    expect(formatAgo(1000, 1500)).toBe('just now');
    expect(formatAgo(0, 12_000)).toBe('12s ago');
  });
});

describe('formatLatency', () => {
  it('picks µs, ms or s', () => {
    expect(formatLatency(0)).toBe('0 ms');
    expect(formatLatency(0.0042)).toBe('4.2 µs');
    expect(formatLatency(0.042)).toBe('42 µs');
    expect(formatLatency(0.999)).toBe('999 µs');
    expect(formatLatency(1.234)).toBe('1.23 ms');
    expect(formatLatency(12.34)).toBe('12.3 ms');
    expect(formatLatency(250)).toBe('250 ms');
    expect(formatLatency(1520)).toBe('1.52 s');
    expect(formatLatency(null)).toBe('—');
  });
});

describe('parseSize', () => {
  it('reads sizes as redis.conf does', () => {
    expect(parseSize('0')).toBe(0);
    expect(parseSize('100')).toBe(100);
    expect(parseSize('1k')).toBe(1000);
    expect(parseSize('1kb')).toBe(1024);
    expect(parseSize('64mb')).toBe(64 * 1024 * 1024);
    expect(parseSize('64MB')).toBe(64 * 1024 * 1024);
    expect(parseSize('2m')).toBe(2_000_000);
    expect(parseSize('1gb')).toBe(1024 ** 3);
    expect(parseSize(' 3 gb ')).toBe(3 * 1024 ** 3);
    expect(parseSize('lots')).toBeNull();
    expect(parseSize('-1')).toBeNull();
  });
});
