import { describe, expect, test } from 'vitest';
import { trackingText } from './tracking';
import { columns } from './series';
import { sample } from './testing';

describe('trackingText', () => {
  const row = { mode: 'default', noloop: false, redirect: null, broken_redirect: false, prefixes: [] };

  test('names the mode, NOLOOP and a redirect, and says when its client is gone', () => {
    expect(trackingText(null)).toBe('');
    expect(trackingText(row)).toBe('keys it reads');
    expect(trackingText({ ...row, mode: 'optin', noloop: true, redirect: 12 })).toBe('opt-in · noloop · → #12');
    expect(trackingText({ ...row, redirect: 7, broken_redirect: true })).toBe('keys it reads · → #7 (gone)');
  });

  test('lists broadcast prefixes, the empty one as every key', () => {
    expect(trackingText({ ...row, mode: 'bcast', prefixes: ['user:', 'cache:'] })).toBe('broadcast: user:, cache:');
    expect(trackingText({ ...row, mode: 'bcast', prefixes: [''] })).toBe('broadcast: every key');
  });
});

describe('client-side caching columns', () => {
  test('the invalidation rate comes from the counter, and tracked keys as they are', () => {
    const cols = columns([
      sample(1000, { invalidations: 10, tracking_keys: 3, invalidations_per_sec: 2 }),
      sample(2000, { invalidations: 40, tracking_keys: 5 }),
      sample(4000, { invalidations: 50, tracking_keys: 0 }),
    ]);
    expect(cols.invalidationRate).toEqual([2, 30, 5]);
    expect(cols.trackedKeys).toEqual([3, 5, 0]);
  });
});
