import { afterEach, describe, expect, it, vi } from 'vitest';
import { BulkRunner, KeyBrowser, describeCount, describeJob, isGlob, jobProgress, prettyJson, type BulkApi, type PageQuery } from './keys.svelte';
import type { BulkJob } from './api-types';
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
      key: 'exact:name', type: 'string', encoding: 'embstr', ttl_ms: 5000, expire_at_ms: 1, size: 70, idle_ms: 0, freq: 5, length: 1, truncated: false, value: 'v', field_ttl_ms: null, stream_groups: null,
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
    const d = { key: 'c', type: 'string', encoding: 'embstr', ttl_ms: null, expire_at_ms: null, size: 99, idle_ms: 0, freq: 0, length: 1, truncated: false, value: 'x', field_ttl_ms: null, stream_groups: null };
    b.upsert(d);
    expect(b.rows.map((r) => r.key)).toEqual(['c', 'b']);
    b.upsert({ ...d, size: 100 });
    expect(b.rows).toHaveLength(2);
    expect(b.rows[0].size).toBe(100);
  });
});

const job = (over: Partial<BulkJob> = {}): BulkJob => ({
  id: 1,
  action: 'delete',
  ttl: null,
  match: 'user:*',
  type: null,
  db: 0,
  state: 'running',
  expected: 200,
  expected_exact: true,
  scanned: 0,
  matched: 0,
  done: 0,
  error: null,
  paused: false,
  started_ms: 0,
  finished_ms: null,
  ...over,
});

describe('bulk actions', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('describe a count, exact or estimated, and a job at each stage', () => {
    expect(describeCount({ matched: 1234, scanned: 5000, keys: 5000, exact: true })).toBe('1,234 keys match (exact: every key was looked at).');
    expect(describeCount({ matched: 1, scanned: 9, keys: 9, exact: true })).toBe('1 key matches (exact: every key was looked at).');
    expect(describeCount({ matched: 40000, scanned: 200000, keys: 1000000, exact: false })).toBe(
      'About 40,000 keys match (an estimate from 200,000 of 1,000,000 keys).',
    );
    expect(describeJob(job({ done: 50, matched: 60 }))).toBe('50 of 200 keys deleted…');
    expect(describeJob(job({ done: 50, matched: 60, paused: true }))).toContain('waiting for CLIENT PAUSE');
    expect(describeJob(job({ state: 'done', done: 198, matched: 198 }))).toBe('Done: 198 of 198 keys deleted.');
    expect(describeJob(job({ state: 'cancelled', action: 'expire', done: 5, matched: 7 }))).toBe('Cancelled: 5 of 7 keys given a TTL; the rest were left as they were.');
    expect(describeJob(job({ state: 'failed', error: 'OOM no room' }))).toBe('Stopped: 0 of 0 keys deleted. OOM no room');
    expect(jobProgress(job({ done: 50 }))).toBe(0.25);
    expect(jobProgress(job({ done: 300, matched: 400 }))).toBe(0.75);
    expect(jobProgress(job({ expected: 0 }))).toBe(0);
    expect(jobProgress(job({ state: 'done', expected: 0 }))).toBe(1);
  });

  it('previews, starts the counted request, and polls to the end', async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    let polls = 0;
    const api: BulkApi = {
      countKeys: async (f) => (calls.push(`count ${f.match} ${f.type} ${f.db}`), { matched: 200, scanned: 300, keys: 300, exact: true }),
      startBulk: async (r) => (calls.push(`start ${r.action} ${r.match} ${r.ttl}`), job({ action: r.action })),
      bulkJob: async () => (++polls < 3 ? job({ done: polls * 50 }) : job({ state: 'done', done: 200, matched: 200 })),
      cancelBulk: async () => job({ state: 'cancelled' }),
    };
    const runner = new BulkRunner(api, 100);
    let finished: BulkJob | null = null;
    runner.onfinish = (j) => (finished = j);
    await runner.start();
    expect(runner.job).toBeNull();
    await runner.preview({ match: 'user:*', type: 'hash', db: 2, action: 'expire', ttl: 30 });
    expect(runner.count?.matched).toBe(200);
    await runner.start();
    expect(calls).toEqual(['count user:* hash 2', 'start expire user:* 30']);
    expect(runner.count).toBeNull();
    expect(runner.running).toBe(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(runner.job?.done).toBe(50);
    await vi.advanceTimersByTimeAsync(250);
    expect(runner.job?.state).toBe('done');
    expect(finished).toMatchObject({ state: 'done', done: 200 });
    expect(polls).toBe(3);
  });

  it('cancels, and shows what the backend refused', async () => {
    const api: BulkApi = {
      countKeys: async () => {
        throw new Error('type must be one of string, list, set, zset, hash');
      },
      startBulk: async () => job(),
      bulkJob: async () => job(),
      cancelBulk: async () => job({ state: 'cancelled', done: 10 }),
    };
    const runner = new BulkRunner(api, 10_000);
    await runner.preview({ match: '*', type: 'nope', db: 0, action: 'delete' });
    expect(runner.error).toBe('type must be one of string, list, set, zset, hash');
    expect(runner.counted).toBeNull();
    runner.job = job();
    await runner.cancel();
    expect(runner.job?.state).toBe('cancelled');
    runner.stop();
  });
});

describe('prettyJson', () => {
  it('pretty-prints objects and arrays, and nothing else', () => {
    expect(prettyJson('{"a":1,"b":[true,null]}')).toBe('{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}');
    expect(prettyJson(' [1] ')).toBe('[\n  1\n]');
    expect(prettyJson('{"a":')).toBeNull();
    expect(prettyJson('42')).toBeNull();
    expect(prettyJson('"text"')).toBeNull();
  });
});
