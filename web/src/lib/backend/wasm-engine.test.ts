// WasmBackend over the real wasm build (web/src/lib/wasm/pkg); skipped when it has not been
// built (scripts/test builds it before the web tests). The fakes in wasm.test.ts pin the
// backend's own logic; this pins that the engine answers what the backend expects.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOUR } from '../playground/tour';
import { AppState } from './app.svelte';
import { SESSION_KEY, WasmBackend } from './wasm';
import { loadNodeWasm, wasmBuilt } from './wasm-testing';

const T0 = 1_700_000_000_000;

async function make() {
  const clock = { now: T0 };
  const backend = new WasmBackend(await loadNodeWasm(), { now: () => clock.now, seed: 7, storage: null });
  return { backend, clock };
}

describe.skipIf(!wasmBuilt)('WasmBackend (real wasm)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers the ACL views of the engine: preview stores nothing, SETUSER and the log do', async () => {
    const { backend } = await make();
    expect(await backend.aclPreview('app', 'on nopass ~app:* +get')).toBe('user app on nopass ~app:* resetchannels -@all +get');
    expect((await backend.aclUsers()).map((u) => u.name)).toEqual(['default']);
    await expect(backend.aclPreview('app', 'bogus')).rejects.toMatchObject({ status: 400, message: "ERR Error in ACL SETUSER modifier 'bogus': Syntax error" });
    const app = await backend.aclSetUser('app', 'on >pw ~app:* +get');
    expect(app).toMatchObject({ name: 'app', enabled: true, passwords: 1, keys: '~app:*' });
    expect(app.rules).toMatch(/^on #[0-9a-f]{8}… ~app:\* resetchannels -@all \+get$/);
    expect((await backend.console('AUTH app wrong')).text).toContain('WRONGPASS');
    const log = await backend.aclLog();
    expect(log[0]).toMatchObject({ reason: 'auth', object: 'AUTH', username: 'app', count: 1 });
    await backend.aclLogReset();
    expect(await backend.aclLog()).toEqual([]);
    await backend.aclDelUser('app');
    await expect(backend.aclDelUser('default')).rejects.toMatchObject({ status: 400 });
  });

  it('edits collections with one command each, recorded as its line, and Redis errors reject', async () => {
    const { backend } = await make();
    const r = await backend.editKey('h', { op: 'hash_set', field: 'name', value: 'ann' });
    expect(r.command).toEqual(['HSET', 'h', 'name', 'ann']);
    expect(r.key).toMatchObject({ type: 'hash', value: { name: 'ann' } });
    expect((await backend.editKey('z', { op: 'zset_add', member: 'm', score: '2.5' })).key?.value).toEqual([['m', 2.5]]);
    await expect(backend.editKey('h', { op: 'set_add', member: 'x' })).rejects.toMatchObject({ message: expect.stringMatching(/^WRONGTYPE/) });
    expect((await backend.editKey('z', { op: 'zset_remove', member: 'm' })).key).toBeNull();
    expect(backend.playground.lines).toEqual(['HSET h name ann', 'ZADD z 2.5 m', 'ZREM z m']);
  });

  it('counts, then runs a bulk delete in chunks between timeouts, recording its commands', async () => {
    vi.useFakeTimers();
    const { backend } = await make();
    await backend.console('FILL 3000 8');
    await backend.console('SET keep me');
    expect(await backend.countKeys({ match: 'fill:*', type: '', db: 0 })).toEqual({ matched: 3000, scanned: 3001, keys: 3001, exact: true });
    const job = await backend.startBulk({ match: 'fill:*', type: 'string', db: 0, action: 'delete' });
    expect(job).toMatchObject({ state: 'running', expected: 3000, done: 0 });
    await vi.advanceTimersByTimeAsync(0);
    const midway = await backend.bulkJob(job.id);
    expect(midway.done).toBeGreaterThan(0);
    expect(midway.done).toBeLessThan(3000);
    await vi.advanceTimersByTimeAsync(100);
    expect(await backend.bulkJob(job.id)).toMatchObject({ state: 'done', done: 3000, matched: 3000 });
    expect((await backend.stats()).keys).toBe(1);
    // One line replays the whole job, not a command per batch.
    expect(backend.playground.lines).toEqual(['FILL 3000 8', 'SET keep me', 'BULK DELETE MATCH fill:* TYPE string DB 0']);
    await expect(backend.bulkJob(99)).rejects.toMatchObject({ status: 404 });
    // And it does replay: a share link of these lines rebuilds the same keyspace.
    backend.playground.restore([...backend.playground.lines]);
    expect((await backend.stats()).keys).toBe(1);
    expect((await backend.console('BULK EXPIRE 30 MATCH keep')).text).toBe('1 of 1 keys given a TTL\n');
    expect((await backend.console('BULK DROP')).text).toMatch(/^\(error\) ERR usage: BULK/);
  });

  it('cancels a bulk TTL job between chunks, leaving the rest', async () => {
    vi.useFakeTimers();
    const { backend } = await make();
    await backend.console('FILL 5000 8');
    const job = await backend.startBulk({ match: '*', type: '', db: 0, action: 'expire', ttl: 60 });
    await vi.advanceTimersByTimeAsync(0);
    const cancelled = await backend.cancelBulk(job.id);
    expect(cancelled.state).toBe('cancelled');
    await vi.advanceTimersByTimeAsync(100);
    const end = await backend.bulkJob(job.id);
    expect(end.done).toBe(cancelled.done);
    expect(end.done).toBeLessThan(5000);
    const withTtl = (await backend.stats()).keyspace[0]?.expires ?? 0;
    expect(withTtl).toBe(end.done);
    // A job cut short is kept as the commands it ran.
    const lines = backend.playground.lines.filter((l) => typeof l === 'string' && l.startsWith('EXPIRE fill:'));
    expect(lines.length).toBe(Math.min(end.done, 500)); // the session keeps its last 500 lines
  });

  it('prints replies as redis-cli does and answers the views in the API shapes', async () => {
    const { backend } = await make();
    expect((await backend.console('SET greeting "hello world"')).text).toBe('OK\n');
    expect((await backend.console('MGET greeting nope')).text).toBe('1) "hello world"\n2) (nil)\n');
    expect((await backend.console('GET "oops')).kind).toBe('invalid');
    expect((await backend.console('HELP GET')).text).toContain('GET key');
    expect((await backend.stats()).keys).toBe(1);
    const page = await backend.keys({ match: '*', type: '', cursor: '0', count: 100 });
    expect(page.keys.map((k) => k.key)).toEqual(['greeting']);
    expect(await backend.key('greeting')).toMatchObject({ key: 'greeting', type: 'string', value: 'hello world' });
    expect(await backend.key('nope')).toBeNull();
    await backend.console('XADD st 1-0 f v');
    await backend.console('XADD st 2-0 g w');
    const entries = await backend.streamEntries('st', { order: 'newest', cursor: '', count: 1 });
    expect(entries).toMatchObject({ length: 2, last_id: '2-0', next_cursor: '2-0', entries: [{ id: '2-0', fields: [['g', 'w']] }] });
    await backend.console('DEL st');
    await backend.console('SETBIT bits 9 1');
    expect(await backend.stringBits('bits', { offset: 1, count: 8 })).toEqual({ length: 2, bitcount: 1, offset: 1, bytes: [64], window_bitcount: 1, next_offset: null });
    await backend.console('DEL bits');
    await expect(backend.keys({ match: '*', type: '', cursor: 'nope', count: 10 })).rejects.toMatchObject({ status: 400 });
    // The memory ledger: its parts add up to the data part of used_memory.
    const m = await backend.memory();
    expect(m.keys.keys).toBe(1);
    expect(m.dataset_bytes).toBe((await backend.stats()).used_memory);
    expect(m.prefixes.map((p) => [p.kind, p.keys])).toEqual([['none', 1]]);
    expect(m.big_keys.map((k) => k.key)).toEqual(['greeting']);
    expect((await backend.memory(3)).keys.keys).toBe(0);
    await expect(backend.memory(99)).rejects.toThrow(/no database 99/);
  });

  it('has no Lua VM: the scripts view says scripting runs on the server, and EVAL answers so', async () => {
    const { backend } = await make();
    expect(await backend.scripts()).toEqual({
      available: false,
      message: 'Scripting runs on the server: the browser playground has no Lua VM.',
      scripts: [],
      timed: expect.any(Boolean),
    });
    await expect(backend.script('0'.repeat(40))).rejects.toMatchObject({ status: 404 });
    expect(await backend.command(['EVAL', 'return "a b"', '0'])).toMatchObject({ type: 'error', value: expect.stringContaining('runs on the server') });
    expect(await backend.command(['SET', 'k', 'a "b"\nc'])).toEqual({ type: 'status', value: 'OK' });
    expect(backend.playground.lines).toEqual(['SET k "a \\"b\\"\\nc"']);
  });

  it('writes and deletes keys, refusing create-only on an existing key with the API message', async () => {
    const { backend } = await make();
    expect(await backend.putKey('k', { value: 'v', ttl: 60 })).toMatchObject({ key: 'k', value: 'v' });
    // The wasm throws the message alone (the API's 409 status does not cross over).
    await expect(backend.putKey('k', { value: 'w', nx: true })).rejects.toMatchObject({ message: 'key already exists: k' });
    expect(await backend.deleteKey('k')).toEqual({ deleted: true });
    expect(backend.playground.lines).toEqual(['SET k v EX 60', 'DEL k']);
  });

  it('has numbered databases: keys, the console prompt and the snapshot per database', async () => {
    const { backend } = await make();
    await backend.console('SET zero 0');
    expect(await backend.console('SELECT 3')).toMatchObject({ kind: 'reply', db: 3 });
    await backend.console('SET three 3');
    await backend.putKey('other', { value: 'x', ttl: 60 }, 3);
    expect((await backend.keys({ match: '*', type: '', cursor: '0', count: 100, db: 3 })).keys.map((k) => k.key).sort()).toEqual(['other', 'three']);
    expect((await backend.keys({ match: '*', type: '', cursor: '0', count: 100 })).keys.map((k) => k.key)).toEqual(['zero']);
    expect(await backend.key('three')).toBeNull();
    expect(await backend.key('three', 3)).toMatchObject({ value: '3' });
    const s = await backend.stats();
    expect(s.databases).toBe(16);
    expect(s.keyspace.map((k) => [k.db, k.keys, k.expires])).toEqual([
      [0, 1, 0],
      [3, 2, 1],
    ]);
    // A line in database 0 from the key panel leaves the console in 3.
    expect((await backend.consoleIn('EXPIRE zero 100', 0)).text).toBe('(integer) 1\n');
    expect((await backend.console('DBSIZE')).text).toBe('(integer) 2\n');
    expect(await backend.deleteKey('other', 3)).toEqual({ deleted: true });
    await expect(backend.keys({ match: '*', type: '', cursor: '0', count: 10, db: 16 })).rejects.toMatchObject({ status: 400 });
  });

  it('runs a key panel line in another database through console_in: no SELECT in the session or its transcript', async () => {
    const { backend, clock } = await make();
    await backend.putKey('k', { value: 'v' }, 1);
    expect(await backend.consoleIn('EXPIRE k 100', 1)).toMatchObject({ kind: 'reply', db: 1, text: '(integer) 1\n' });
    expect((await backend.key('k', 1))?.ttl_ms).toBe(100_000);
    expect((await backend.console('EXISTS k')).text).toBe('(integer) 0\n');
    await expect(backend.consoleIn('PING', 16)).rejects.toMatchObject({ status: 400, message: 'db must be between 0 and 15' });
    const lines = backend.playground.lines;
    expect(lines).toEqual([
      { db: 1, line: 'SET k v' },
      { db: 1, line: 'EXPIRE k 100' },
      'EXISTS k',
    ]);
    clock.now += 1000;
    const { transcript } = backend.playground.restore(lines);
    expect(transcript.map((t) => t.line)).toEqual(['EXISTS k']);
    expect((await backend.key('k', 1))?.ttl_ms).toBe(100_000);
    expect(await backend.console('PING')).toMatchObject({ db: 0 });
  });

  it('evicts under a tiny limit, expires keys from the cycle, and samples into its history', async () => {
    const { backend, clock } = await make();
    const view = await backend.patchConfig({ maxmemory: '64kb', 'maxmemory-policy': 'allkeys-lru' });
    expect(view.config['maxmemory-policy']).toBe('allkeys-lru');
    expect((await backend.console('FILL 2000 100')).text).toMatch(/^wrote 2000 keys, evicted [1-9]/);
    const events = await backend.recentEvents();
    expect(events.events[0]).toMatchObject({ kind: 'evicted', policy: 'allkeys-lru' });
    // The ghost record remembers them, and the what-if curve is the engine's.
    for (let i = 0; i < 2000; i += 7) await backend.console(`GET fill:${String(i).padStart(6, '0')}`);
    const whatIf = await backend.whatIf();
    expect(whatIf.ghost.horizon_departures).toBeGreaterThan(0);
    expect(whatIf.base_bytes).toBe(65536);
    await backend.console('SET flash now PX 500');
    clock.now = T0 + 1000;
    expect(backend.expiryCycle()).toBeGreaterThanOrEqual(0);
    expect(await backend.key('flash')).toBeNull();
    backend.sample();
    clock.now = T0 + 2000;
    const s = backend.sample();
    expect(s.t_ms).toBe(T0 + 2000);
    expect(s.maxmemory).toBe(65536);
    const history = await backend.feed.history(60, new AbortController().signal);
    expect(history.map((x) => x.t_ms)).toEqual([T0 + 1000, T0 + 2000]);
  });

  it('replays a session into a fresh engine', async () => {
    const { backend } = await make();
    const restored = backend.playground.restore(['INCR visits', 'INCR visits']);
    expect(restored.transcript.map((t) => t.reply.text)).toEqual(['(integer) 1\n', '(integer) 2\n']);
    expect((await backend.console('INCR visits')).text).toBe('(integer) 3\n');
  });

  it('runs every tour step through the console without a Redis error, and LFU keeps the hot key', async () => {
    const { backend } = await make();
    const app = new AppState(backend, { storage: null });
    for (const step of TOUR) {
      const before = app.console.entries.length;
      for (const line of step.commands) await app.console.submit(line);
      const errors = app.console.entries.slice(before).filter((e) => e.kind === 'error');
      expect(errors, step.title).toEqual([]);
    }
    expect(app.console.entries.find((e) => e.input === 'EXISTS hot')?.output).toBe('(integer) 1');
  });

  it('restores a stored session at its recorded times: a TTL keeps counting from when it was set', async () => {
    const stored = new Map<string, string>([
      [SESSION_KEY, JSON.stringify([{ line: 'SET long v PX 100000', at: T0 }, { line: 'SET short v PX 1000', at: T0 + 10 }, { line: 'INCR n', at: T0 + 4990 }])],
    ]);
    const storage = { getItem: (k: string) => stored.get(k) ?? null, setItem: (k: string, v: string) => void stored.set(k, v) } as unknown as Storage;
    const clock = { now: T0 + 5000 };
    const backend = new WasmBackend(await loadNodeWasm(), { now: () => clock.now, seed: 7, storage });
    const restored = backend.playground.restore(null);
    expect(restored.notice).toMatch(/Restored this tab's session \(3 commands\)/);
    expect(restored.transcript.map((t) => t.reply.text)).toEqual(['OK\n', 'OK\n', '(integer) 1\n']);
    expect((await backend.key('long'))?.ttl_ms).toBe(100_000 - 5000);
    // The short one expired in between (the expiry cycle ran before the later line).
    expect(await backend.key('short')).toBeNull();
  });
});
