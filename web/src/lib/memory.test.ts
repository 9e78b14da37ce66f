import { describe, expect, it } from 'vitest';
import { barId, barsOf, keyHref, keysText, prefixLabel } from './memory';
import type { PrefixRow } from './api-types';

const row = (kind: PrefixRow['kind'], name: string, bytes: number, children: PrefixRow['children'] = []): PrefixRow => ({
  kind,
  name,
  keys: 1,
  bytes,
  volatile: { keys: 0, bytes: 0 },
  by_type: [],
  children,
});

describe('memory ledger rows', () => {
  it('labels prefixes, keys without one and the folded rest', () => {
    expect(prefixLabel(row('prefix', 'user:', 1))).toBe('user:*');
    expect(prefixLabel(row('none', '', 1))).toBe('(no prefix)');
    expect(prefixLabel({ kind: 'none', name: '' }, 'user:*')).toBe('user:* (no deeper prefix)');
    expect(prefixLabel(row('other', '', 1))).toBe('(other)');
    expect(prefixLabel(row('prefix', { base64: '/w==' } as unknown as string, 1))).toBe('\\xff*');
  });

  it('sorts bars biggest first with shares of the total and lengths against the biggest', () => {
    const kids = [{ kind: 'prefix' as const, name: 'user:1:', keys: 1, bytes: 10 }];
    const bars = barsOf([row('prefix', 'a:', 100), row('prefix', 'user:', 300, kids), row('other', '', 0)], 400);
    expect(bars.map((b) => b.label)).toEqual(['user:*', 'a:*', '(other)']);
    expect(bars[0]).toMatchObject({ id: barId(row('prefix', 'user:', 1)), share: 0.75, width: 1, drill: true });
    expect(new Set(bars.map((b) => b.id)).size).toBe(3);
    expect(bars[1]).toMatchObject({ share: 0.25, drill: false });
    expect(bars[1].width).toBeCloseTo(1 / 3);
    expect(barsOf([], 0)).toEqual([]);
    expect(barsOf([row('prefix', 'x:', 5)], 0)[0].share).toBe(0);
  });

  it('counts keys in words', () => {
    expect(keysText(1)).toBe('1 key');
    expect(keysText(0)).toBe('0 keys');
    expect(keysText(12345)).toBe('12,345 keys');
  });

  it('links a text key to the Keys page in its database, not a binary one', () => {
    expect(keyHref({ key: 'user:1 name', db: 3 }, (p) => p)).toBe('/keys?db=3&key=user%3A1+name');
    expect(keyHref({ key: 'k', db: 0 }, (p) => `#${p}`)).toBe('#/keys?db=0&key=k');
    expect(keyHref({ key: { base64: '/w==' }, db: 0 }, (p) => p)).toBeNull();
  });
});
