import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api';
import { auth } from '../auth.svelte';
import { StatsFeed } from '../stats.svelte';
import { sample } from '../testing';
import type { Sample } from '../types';
import { HttpBackend } from './http';

interface Call {
  method: string;
  path: string;
  body: unknown;
}

/** A fake server: answers by "METHOD path", records every request. */
function serve(routes: Record<string, (body: unknown) => Response>) {
  const calls: Call[] = [];
  vi.stubGlobal('fetch', async (path: string, init: RequestInit) => {
    const method = init.method ?? 'GET';
    const body = init.body === undefined ? undefined : (JSON.parse(String(init.body)) as unknown);
    calls.push({ method, path, body });
    const route = routes[`${method} ${path}`];
    if (!route) return new Response(JSON.stringify({ error: { code: 'not_found', message: `no ${path}` } }), { status: 404 });
    return route(body);
  });
  return calls;
}

const json = (v: unknown, status = 200) => new Response(JSON.stringify(v), { status, headers: { 'Content-Type': 'application/json' } });

/** A text/event-stream body with `events` as events of that name, then the end. */
function sse(name: string, events: unknown[]): Response {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(enc.encode(': hello\n\n'));
      for (const s of events) c.enqueue(enc.encode(`event: ${name}\ndata: ${JSON.stringify(s)}\n\n`));
      c.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
}

/** A text/event-stream body with `samples` as `sample` events, then the end. */
const stream = (samples: Sample[]): Response => sse('sample', samples);

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('HttpBackend', () => {
  it('calls the ACL routes of the contract, and rejects with the ERR text of a bad rule', async () => {
    const badRule = "ERR Error in ACL SETUSER modifier 'bogus': Syntax error";
    const calls = serve({
      'GET /api/auth/me': () => json({ user: 'reader', admin: false, permissions: {} }),
      'GET /api/acl/users': () => json([{ name: 'default' }]),
      'GET /api/acl/log?count=5': () => json([]),
      'PUT /api/acl/users/a%20b': () => json({ name: 'a b', rules: 'on' }),
      'POST /api/acl/users/reader/preview': (b) =>
        (b as { rules: string }).rules === 'bogus' ? json({ error: { code: 'bad_request', message: badRule } }, 400) : json({ line: 'user reader on' }),
      'DELETE /api/acl/users/reader': () => new Response(null, { status: 204 }),
      'DELETE /api/acl/users/default': () => json({ error: { code: 'bad_request', message: "ERR The 'default' user cannot be removed" } }, 400),
      'DELETE /api/acl/log': () => new Response(null, { status: 204 }),
    });
    const b = new HttpBackend();
    expect((await b.me()).user).toBe('reader');
    expect(await b.aclUsers()).toEqual([{ name: 'default' }]);
    expect(await b.aclLog(5)).toEqual([]);
    expect(await b.aclSetUser('a b', 'on')).toMatchObject({ name: 'a b' });
    expect(await b.aclPreview('reader', 'on')).toBe('user reader on');
    await expect(b.aclPreview('reader', 'bogus')).rejects.toMatchObject({ status: 400, message: badRule });
    await b.aclDelUser('reader');
    await expect(b.aclDelUser('default')).rejects.toBeInstanceOf(ApiError);
    await b.aclLogReset();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ rules: 'on' });
  });

  it('downloads an export with its name and counts, and posts a key file as raw bytes', async () => {
    const sent: { path: string; type: string | undefined; body: unknown }[] = [];
    vi.stubGlobal('fetch', async (path: string, init: RequestInit) => {
      const headers = init.headers as Record<string, string>;
      sent.push({ path, type: headers['Content-Type'], body: init.body });
      if (path === '/api/key-export') {
        return new Response(new Uint8Array([86, 84]), {
          status: 200,
          headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': 'attachment; filename="vitrine-db2-9.vtrkeys"', 'X-Vitrine-Keys': '3', 'X-Vitrine-Missing': '1' },
        });
      }
      if (path.startsWith('/api/key-import')) return json({ db: 2, restored: 1 });
      return json({ error: { code: 'too_many_keys', message: 'more than 10000 keys match' } }, 422);
    });
    const b = new HttpBackend();
    const f = await b.exportKeys({ db: 2, format: 'binary', match: 'user:*', type: '' });
    expect(f).toMatchObject({ filename: 'vitrine-db2-9.vtrkeys', keys: 3, missing: 1, contentType: 'application/octet-stream' });
    expect([...f.data]).toEqual([86, 84]);
    expect(JSON.parse(String(sent[0].body))).toEqual({ db: 2, format: 'binary', match: 'user:*' });
    expect(await b.importKeys(new Uint8Array([86, 84]), 'fail', 2)).toEqual({ db: 2, restored: 1 });
    expect(sent[1]).toMatchObject({ path: '/api/key-import?mode=fail&db=2', type: 'application/octet-stream' });
    expect(sent[1].body).toEqual(new Uint8Array([86, 84]));
    await b.importKeys(new TextEncoder().encode('{"format":"vitrine-keys"}'), 'skip');
    expect(sent[2]).toMatchObject({ path: '/api/key-import?mode=skip', type: 'application/json' });
  });

  it('edits keys, counts and runs bulk jobs on their routes', async () => {
    const calls = serve({
      'PATCH /api/keys/h?db=2': () => json({ command: ['HSET', 'h', 'f', 'v'], reply: { type: 'int', value: 1 }, key: null }),
      'GET /api/key-count?match=user%3A*&type=hash&db=3': () => json({ matched: 2, scanned: 9, keys: 9, exact: true }),
      'GET /api/key-count?': () => json({ matched: 9, scanned: 9, keys: 9, exact: true }),
      'POST /api/key-jobs': () => json({ id: 4, state: 'running' }, 202),
      'GET /api/key-jobs/4': () => json({ id: 4, state: 'done' }),
      'DELETE /api/key-jobs/4': () => json({ id: 4, state: 'cancelled' }),
    });
    const b = new HttpBackend();
    expect((await b.editKey('h', { op: 'hash_set', field: 'f', value: 'v' }, 2)).command).toEqual(['HSET', 'h', 'f', 'v']);
    expect((await b.countKeys({ match: 'user:*', type: 'hash', db: 3 })).matched).toBe(2);
    expect((await b.countKeys({ match: '*', type: '', db: 0 })).matched).toBe(9);
    expect((await b.startBulk({ match: 'user:*', type: '', db: 0, action: 'expire', ttl: 30 })).id).toBe(4);
    expect((await b.bulkJob(4)).state).toBe('done');
    expect((await b.cancelBulk(4)).state).toBe('cancelled');
    expect(calls[0].body).toEqual({ op: 'hash_set', field: 'f', value: 'v' });
    expect(calls[3].body).toEqual({ action: 'expire', match: 'user:*', ttl: 30 });
  });

  it('reads the views from the admin API', async () => {
    const calls = serve({
      'GET /api/stats': () => json({ keys: 3 }),
      'GET /api/keys?cursor=0&count=50&match=user%3A*&type=string': () => json({ cursor: '0', done: true, keys: [] }),
      'GET /api/keys?cursor=7&count=10': () => json({ cursor: '0', done: true, keys: [] }),
      'GET /api/keys/user%3A1': () => json({ key: 'user:1', type: 'string', value: 'alice' }),
      'GET /api/evictions/recent': () => json({ events: [] }),
      'GET /api/memory': () => json({ db: null, prefixes: [] }),
      'GET /api/memory?db=2': () => json({ db: 2, prefixes: [] }),
      'GET /api/evictions/what-if': () => json({ points: [] }),
      'GET /api/commands': () => json({ commands: [] }),
      'GET /api/config': () => json({ config: {}, writable: [] }),
      'GET /api/stream-entries/s%3A1?order=newest&count=25': () => json({ length: 1, entries: [{ id: '1-0', fields: [['f', 'v']] }] }),
      'GET /api/stream-entries/s?order=oldest&count=5&cursor=1-0&db=2': () => json({ length: 1, entries: [] }),
      'GET /api/geo-points/g%3A1?limit=500&db=3': () => json({ length: 1, is_geo: true, truncated: false, points: [{ member: 'm', longitude: 1, latitude: 2 }] }),
      'GET /api/string-bits/b%3A1?offset=64&count=64&db=3': () => json({ length: 70, bitcount: 4, offset: 64, bytes: [1, 2], window_bitcount: 2, next_offset: null }),
    });
    const b = new HttpBackend();
    expect((await b.streamEntries('s:1', { order: 'newest', cursor: '', count: 25 })).entries[0].id).toBe('1-0');
    expect((await b.streamEntries('s', { order: 'oldest', cursor: '1-0', count: 5 }, 2)).entries).toEqual([]);
    expect((await b.geoPoints('g:1', 500, 3)).points[0].member).toBe('m');
    expect((await b.stringBits('b:1', { offset: 64, count: 64 }, 3)).bytes).toEqual([1, 2]);
    expect((await b.memory()).db).toBeNull();
    expect((await b.memory(2)).db).toBe(2);
    expect((await b.stats()).keys).toBe(3);
    await b.keys({ match: 'user:*', type: 'string', cursor: '0', count: 50 });
    // The default pattern and type are left out of the query.
    await b.keys({ match: '*', type: '', cursor: '7', count: 10 });
    expect(await b.key('user:1')).toMatchObject({ value: 'alice' });
    expect(await b.key('nope')).toBeNull();
    await b.recentEvents();
    expect(await b.whatIf()).toEqual({ points: [] });
    await b.commands();
    await b.config();
    expect(calls.map((c) => c.path)).toContain('/api/keys/nope');
    expect(calls.every((c) => c.method === 'GET')).toBe(true);
  });

  it('lists and closes clients and polls the monitor', async () => {
    const calls = serve({
      'GET /api/clients': () => json({ now_ms: 1, clients: [], monitors: 0, paused_until_ms: null }),
      'DELETE /api/clients/7': () => json({ killed: true }),
      'GET /api/monitor?since=12': () => json({ events: [], last_seq: 12 }),
    });
    const b = new HttpBackend();
    expect((await b.clients()).now_ms).toBe(1);
    expect(await b.killClient(7)).toEqual({ killed: true });
    expect((await b.monitor(12)).last_seq).toBe(12);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toContain('DELETE /api/clients/7');
  });

  it('streams the monitor from /api/monitor/stream with the admin token, saying when it opened', async () => {
    const headers: Record<string, string>[] = [];
    const batch = { events: [{ seq: 4, time_us: 1, db: 0, client_id: 1, addr: 'a', client_name: null, command: 'get', args: [] }], last_seq: 4 };
    vi.stubGlobal('fetch', async (path: string, init: RequestInit) => {
      headers.push(init.headers as Record<string, string>);
      return path === '/api/monitor/stream' ? sse('commands', [batch]) : json({}, 404);
    });
    auth.token = 'secret';
    try {
      const seen: string[] = [];
      await new HttpBackend().monitorStream(
        (v) => seen.push(`view ${v.last_seq}`),
        new AbortController().signal,
        () => seen.push('open'),
      );
      expect(seen).toEqual(['open', 'view 4']);
      expect(headers[0]).toMatchObject({ Accept: 'text/event-stream', Authorization: 'Bearer secret' });
    } finally {
      auth.token = null;
    }
  });

  it('writes keys, settings and console lines with the API bodies', async () => {
    const calls = serve({
      'PUT /api/keys/k': () => json({ key: 'k' }),
      'PATCH /api/config': () => json({ config: { maxmemory: '1mb' }, writable: [] }),
      'POST /api/console': () => json({ kind: 'reply', argv: ['PING'], reply: { type: 'status', value: 'PONG' }, text: 'PONG\n', resp: '+PONG\r\n' }),
    });
    const b = new HttpBackend();
    await b.putKey('k', { value: 'v', ttl: 5, nx: true });
    expect(calls[0]).toEqual({ method: 'PUT', path: '/api/keys/k', body: { value: 'v', ttl: 5, nx: true } });
    await b.patchConfig({ maxmemory: '1mb' });
    expect(calls[1].body).toEqual({ maxmemory: '1mb' });
    expect((await b.console('PING', 's-1')).text).toBe('PONG\n');
    expect(calls[2]).toEqual({ method: 'POST', path: '/api/console', body: { line: 'PING', session: 's-1' } });
    await b.console('PING');
    expect(calls[3].body).toEqual({ line: 'PING' });
  });

  it('asks for a database with ?db= (none for database 0)', async () => {
    const reply = (line: string, db: number) => json({ kind: 'reply', argv: [line], reply: { type: 'status', value: 'OK' }, text: 'OK\n', resp: '+OK\r\n', db });
    const calls = serve({
      'GET /api/keys?cursor=0&count=10&db=3': () => json({ cursor: '0', done: true, keys: [] }),
      'GET /api/keys/k?db=3': () => json({ key: 'k', type: 'string', value: 'v' }),
      'PUT /api/keys/k?db=3': () => json({ key: 'k' }),
      'DELETE /api/keys/k?db=3': () => json({ deleted: true }),
      'DELETE /api/keys/k': () => json({ deleted: true }),
      'POST /api/console': (body) => reply((body as { line: string }).line, 3),
    });
    const b = new HttpBackend();
    await b.keys({ match: '*', type: '', cursor: '0', count: 10, db: 3 });
    expect(await b.key('k', 3)).toMatchObject({ value: 'v' });
    await b.putKey('k', { value: 'v' }, 3);
    await b.deleteKey('k', 3);
    await b.deleteKey('k');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/keys?cursor=0&count=10&db=3',
      'GET /api/keys/k?db=3',
      'PUT /api/keys/k?db=3',
      'DELETE /api/keys/k?db=3',
      'DELETE /api/keys/k',
    ]);
    // A line in another database: one request that names it.
    calls.length = 0;
    expect((await b.consoleIn('EXPIRE k 10', 3)).kind).toBe('reply');
    expect(calls.map((c) => c.body)).toEqual([{ line: 'EXPIRE k 10', db: 3 }]);
    calls.length = 0;
    await b.consoleIn('PERSIST k', 0);
    expect(calls.map((c) => c.body)).toEqual([{ line: 'PERSIST k' }]);
  });

  it('rejects with the API error, a 409 for an existing key', async () => {
    serve({ 'PUT /api/keys/k': () => json({ error: { code: 'conflict', message: 'the key exists' } }, 409) });
    const e = await new HttpBackend().putKey('k', { value: 'v', nx: true }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 409, code: 'conflict', message: 'the key exists' });
  });

  it('back-fills history and follows the SSE stream into the stats feed', async () => {
    const calls = serve({
      'GET /api/stats/history?seconds=900': () => json({ interval_ms: 1000, samples: [sample(1000), sample(2000)] }),
      'GET /api/stats/stream': () => stream([sample(2000), sample(3000, { keys: 7 })]),
    });
    const feed = new StatsFeed(new HttpBackend().feed, { initialBackoffMs: 60_000 });
    feed.start();
    await vi.waitFor(() => expect(feed.latest?.t_ms).toBe(3000));
    // The repeated sample is dropped; the stream's end is a drop to reconnect from.
    expect(feed.samples.map((s) => s.t_ms)).toEqual([1000, 2000, 3000]);
    expect(feed.latest?.keys).toBe(7);
    await vi.waitFor(() => expect(feed.status).toBe('reconnecting'));
    feed.stop();
    expect(calls.map((c) => c.path)).toEqual(['/api/stats/history?seconds=900', '/api/stats/stream']);
  });

  it('has what only a server has: benchmarks, auth, persistence', () => {
    const b = new HttpBackend();
    expect(b.bench).toBeDefined();
    expect(b.auth).toBeDefined();
    expect(b.persistence).toBe(true);
    expect('playground' in b).toBe(false);
  });
});
