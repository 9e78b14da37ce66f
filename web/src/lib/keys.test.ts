import { describe, expect, it } from 'vitest';
import { KeyBrowser, isGlob, type PageQuery } from './keys.svelte';
import type { KeyDetail, KeyPage, KeyRow } from './types';

const row = (key: string, type = 'string'): KeyRow => ({ key, type, ttl_ms: null, size: 64, idle_ms: 0, freq: 0 });

/** A fake SCAN over `keys`: `count` keys per step, in order, with string cursors. */
function fakeScan(keys: KeyRow[], opts: { perStep?: (count: number) => number } = {}) {
  const calls: PageQuery[] = [];
  const fetch = async (q: PageQuery): Promise<KeyPage> => {
    calls.push(q);
    const start = Number(q.cursor);
    const n = opts.perStep ? opts.perStep(q.count) : q.count;
    const slice = keys.slice(start, start + n).filter((r) => (!q.type || r.type === q.type) && (q.match === '*' || String(r.key).startsWith(q.match.replace('*', ''))));
    const next = start + n >= keys.length ? 0 : start + n;
    return { cursor: String(next), done: next === 0, keys: slice };
  };
  return { fetch, calls };
}

const many = (n: number, prefix = 'k') => Array.from({ length: n }, (_, i) => row(`${prefix}${i}`));

describe('KeyBrowser', () => {
  it('loads one page at a time and never the whole keyspace', async () => {
    const scan = fakeScan(many(1000));
    const b = new KeyBrowser(scan.fetch, { pageSize: 100 });
    await b.search();
    expect(b.rows).toHaveLength(100);
    expect(b.done).toBe(false);
    expect(scan.calls).toHaveLength(1);
    expect(scan.calls[0]).toMatchObject({ cursor: '0', count: 100, match: '*' });
    await b.loadMore();
    expect(b.rows).toHaveLength(200);
    expect(scan.calls[1].cursor).toBe('100');
  });

  it('runs a few SCAN steps, growing count, when a pattern is sparse', async () => {
    const keys = many(5000);
    keys[4321] = row('user:1');
    const scan = fakeScan(keys);
    const b = new KeyBrowser(scan.fetch, { pageSize: 100, maxScanCount: 1000 });
    b.pattern = 'user:*';
    await b.search();
    expect(b.rows.map((r) => r.key)).toEqual(['user:1']);
    expect(scan.calls.map((c) => c.count)).toEqual([100, 200, 400, 800, 1000, 1000, 1000, 1000]);
    expect(b.done).toBe(true);
  });

  it('stops after maxSteps even when it found little', async () => {
    const scan = fakeScan(many(100_000), { perStep: () => 10 });
    const b = new KeyBrowser(scan.fetch, { pageSize: 100, maxSteps: 3 });
    b.pattern = 'nomatch*';
    await b.search();
    expect(scan.calls).toHaveLength(3);
    expect(b.rows).toHaveLength(0);
    expect(b.done).toBe(false);
  });

  it('drops keys SCAN returns twice', async () => {
    let step = 0;
    const fetch = async (): Promise<KeyPage> => {
      step++;
      return step === 1 ? { cursor: '5', done: false, keys: [row('a'), row('b')] } : { cursor: '0', done: true, keys: [row('b'), row('c')] };
    };
    const b = new KeyBrowser(fetch, { pageSize: 10 });
    await b.search();
    expect(b.rows.map((r) => r.key)).toEqual(['a', 'b', 'c']);
    expect(b.done).toBe(true);
  });

  it('passes the type filter and the pattern to the API', async () => {
    const scan = fakeScan([row('a', 'string'), row('b', 'hash')]);
    const b = new KeyBrowser(scan.fetch);
    b.type = 'hash';
    b.pattern = '  ';
    await b.search();
    expect(scan.calls[0]).toMatchObject({ type: 'hash', match: '*' });
    expect(b.rows.map((r) => r.key)).toEqual(['b']);
  });

  it('scans the chosen database, and a new database starts from the first cursor', async () => {
    const scan = fakeScan(many(300));
    const looked: [string, number][] = [];
    const b = new KeyBrowser(scan.fetch, { pageSize: 100, fetchKey: async (k, db) => (looked.push([k, db]), null) });
    await b.search();
    await b.loadMore();
    expect(scan.calls.map((c) => [c.cursor, c.db])).toEqual([
      ['0', 0],
      ['100', 0],
    ]);
    b.db = 3;
    // The list keeps showing database 0 until the new search.
    expect(b.shownDb).toBe(0);
    await b.search();
    expect(b.shownDb).toBe(3);
    expect(scan.calls.at(-1)).toMatchObject({ cursor: '0', db: 3 });
    expect(b.rows).toHaveLength(100);
    b.pattern = 'exact';
    await b.search();
    expect(looked).toEqual([['exact', 3]]);
  });

  it('looks a name without wildcards up directly', async () => {
    const scan = fakeScan(many(10));
    const detail: KeyDetail = {
      key: 'exact:name', type: 'string', encoding: 'embstr', ttl_ms: 5000, expire_at_ms: 1, size: 70, idle_ms: 0, freq: 5, length: 1, truncated: false, value: 'v', field_ttl_ms: null,
    };
    const looked: string[] = [];
    const b = new KeyBrowser(scan.fetch, { fetchKey: async (k) => (looked.push(k), k === 'exact:name' ? detail : null) });
    b.pattern = 'exact:name';
    await b.search();
    expect(scan.calls).toHaveLength(0);
    expect(looked).toEqual(['exact:name']);
    expect(b.rows).toMatchObject([{ key: 'exact:name', ttl_ms: 5000 }]);
    expect(b.done).toBe(true);
    b.pattern = 'missing';
    await b.search();
    expect(b.rows).toHaveLength(0);
  });

  it('knows glob patterns', () => {
    expect(isGlob('user:*')).toBe(true);
    expect(isGlob('user:?')).toBe(true);
    expect(isGlob('user:[ab]')).toBe(true);
    expect(isGlob('a\\*b')).toBe(true);
    expect(isGlob('user:1')).toBe(false);
  });

  it('drops answers to an older search', async () => {
    let release: (p: KeyPage) => void = () => {};
    const slow = new Promise<KeyPage>((r) => (release = r));
    let first = true;
    const fetch = (): Promise<KeyPage> => {
      if (first) {
        first = false;
        return slow;
      }
      return Promise.resolve({ cursor: '0', done: true, keys: [row('new')] });
    };
    const b = new KeyBrowser(fetch);
    const old = b.search();
    await b.search();
    release({ cursor: '0', done: true, keys: [row('stale')] });
    await old;
    expect(b.rows.map((r) => r.key)).toEqual(['new']);
  });

  it('reports errors and lets the person try again', async () => {
    let fail = true;
    const fetch = async (): Promise<KeyPage> => {
      if (fail) throw new Error('The server could not be reached.');
      return { cursor: '0', done: true, keys: [row('a')] };
    };
    const b = new KeyBrowser(fetch);
    await b.search();
    expect(b.error).toBe('The server could not be reached.');
    expect(b.loading).toBe(false);
    fail = false;
    await b.loadMore();
    expect(b.error).toBeNull();
    expect(b.rows).toHaveLength(1);
  });

  it('updates the list after writes and deletes', async () => {
    const b = new KeyBrowser(fakeScan([row('a'), row('b')]).fetch);
    await b.search();
    b.remove('a');
    expect(b.rows.map((r) => r.key)).toEqual(['b']);
    const d = { key: 'c', type: 'string', encoding: 'embstr', ttl_ms: null, expire_at_ms: null, size: 99, idle_ms: 0, freq: 0, length: 1, truncated: false, value: 'x', field_ttl_ms: null };
    b.upsert(d);
    expect(b.rows.map((r) => r.key)).toEqual(['c', 'b']);
    b.upsert({ ...d, size: 100 });
    expect(b.rows).toHaveLength(2);
    expect(b.rows[0].size).toBe(100);
  });
});
