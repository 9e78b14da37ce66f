import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api';
import { StatsFeed } from '../stats.svelte';
import { sample } from '../testing';
import type { ConsoleReply, Sample } from '../types';
import { AppState } from './app.svelte';
import { SESSION_KEY, WasmBackend, type WasmEngine, type WasmModule } from './wasm';

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, v),
  };
}

const T0 = 1_700_000_000_000;

/**
 * A fake of the wasm `Playground` class: a map of string keys per database, a log of every
 * call with the time it was given, and answers in the contract's JSON shapes.
 */
class FakeEngine implements WasmEngine {
  static made: FakeEngine[] = [];
  dbs = Array.from({ length: 16 }, () => new Map<string, string>());
  /** The database of the one client session (the console's). */
  db = 0;
  calls: string[] = [];
  samples: Sample[] = [];
  freed = false;

  /** The session's database. */
  get data() {
    return this.dbs[this.db];
  }

  constructor(readonly createdAt: number) {
    FakeEngine.made.push(this);
  }

  stats_json(now: number) {
    this.calls.push(`stats ${now}`);
    return JSON.stringify({ keys: this.data.size, now_ms: now });
  }
  sample_json(now: number) {
    const s = sample(now, { keys: this.data.size });
    this.samples.push(s);
    return JSON.stringify(s);
  }
  history_json(seconds: number) {
    return JSON.stringify({ interval_ms: 1000, samples: this.samples.slice(-seconds) });
  }
  keys_json(pattern: string, type: string, cursor: string, count: number, _now: number, db: number) {
    if (cursor === 'bad') throw 'invalid cursor';
    this.calls.push(`keys ${pattern} ${type} ${cursor} ${count} db${db}`);
    return JSON.stringify({ cursor: '0', done: true, keys: [...this.dbs[db].keys()].map((key) => ({ key, type: 'string', ttl_ms: null, size: 1 })) });
  }
  key_json(keyJson: string, _now: number, db: number) {
    const key = JSON.parse(keyJson) as string;
    const value = this.dbs[db].get(key);
    return value === undefined ? 'null' : JSON.stringify({ key, type: 'string', value });
  }
  // Stream pages are pinned against the real engine (wasm-engine.test.ts).
  geo_points_json(): string {
    throw new Error('not faked');
  }
  stream_entries_json(): string {
    throw new Error('not faked');
  }
  // So are string bits.
  string_bits_json(): string {
    throw new Error('not faked');
  }
  put_key(keyJson: string, bodyJson: string, now: number, db: number) {
    const key = JSON.parse(keyJson) as string;
    const body = JSON.parse(bodyJson) as { value: string; nx?: boolean };
    if (body.nx && this.dbs[db].has(key)) throw JSON.stringify({ error: { code: 'conflict', message: 'the key exists' } });
    this.dbs[db].set(key, body.value);
    this.calls.push(`put ${key} ${now} db${db}`);
    return this.key_json(keyJson, now, db);
  }
  delete_key(keyJson: string, _now: number, db: number) {
    return JSON.stringify({ deleted: this.dbs[db].delete(JSON.parse(keyJson) as string) });
  }
  // Edits and bulk jobs are pinned against the real engine (wasm-engine.test.ts).
  edit_key(): string {
    throw 'not in the fake';
  }
  count_keys(): string {
    throw 'not in the fake';
  }
  bulk_start(): string {
    throw 'not in the fake';
  }
  bulk_step(): string {
    throw 'not in the fake';
  }
  bulk_cancel(): string {
    throw 'not in the fake';
  }
  export_keys(body: string): string {
    const { db } = JSON.parse(body) as { db: number };
    return JSON.stringify({ filename: `vitrine-db${db}-1.json`, content_type: 'application/json', keys: 1, missing: 0, file: '{"keys":[]}' });
  }
  import_keys(file: Uint8Array, db: number, mode: string): string {
    if (file.length === 0) throw JSON.stringify({ error: { code: 'invalid_file', message: 'not a keys file' } });
    const report = { db: db < 0 ? 2 : db, mode, format: 'binary', restored: 1, skipped: 0, errors: 0, keys: [{ key: 'k', type: 'string', status: 'restored', error: null }] };
    return JSON.stringify({ report, commands: [['RESTORE', 'k', '0', { base64: '/w==' }]] });
  }
  what_if_json(now: number) {
    return JSON.stringify({ now_ms: now, points: [] });
  }
  evictions_json(now: number) {
    return JSON.stringify({ now_ms: now, policy: 'noeviction', evicted_keys: 0, expired_keys: 0, events: [] });
  }
  slowlog_json(count?: number) {
    this.calls.push(`slowlog ${count ?? 'all'}`);
    return JSON.stringify({ entries: [], len: 0, slower_than_us: 10000, max_len: 128, timed: true });
  }
  reset_slowlog() {
    this.calls.push('reset_slowlog');
    return this.slowlog_json();
  }
  memory_json(now: number, db?: number) {
    this.calls.push(`memory ${db ?? 'all'}`);
    if (db !== undefined && db > 15) throw 'no database 16';
    return JSON.stringify({ now_ms: now, db: db ?? null, delimiter: ':', dataset_bytes: 0, prefixes: [], big_keys: [] });
  }
  latency_json() {
    return JSON.stringify({ tracking: true, monitor_threshold_ms: 0, timed: true, commands: [], events: [] });
  }
  compat_json() {
    this.calls.push('compat');
    return JSON.stringify({ rows: [], total: 0, capacity: 256, dropped_rows: 0, dropped_count: 0 });
  }
  reset_compat() {
    this.calls.push('reset_compat');
    return this.compat_json();
  }
  hotkeys_json(count: number | undefined, now: number) {
    this.calls.push(`hotkeys ${count ?? 'default'} ${now}`);
    return JSON.stringify({
      keys: [],
      window_ms: 10000,
      rotate_ms: 10000,
      sample_every: 16,
      slots_per_shard: 16,
      total_accesses: 0,
      sketch_bytes: 0,
    });
  }
  scripts_json() {
    return JSON.stringify({ available: false, message: 'Scripting runs on the server: the browser playground has no Lua VM.', scripts: [], timed: false });
  }
  script_json(id: string): string {
    throw `no script ${id}`;
  }
  /** ACL users by name: their rules as set (enough for the backend's ACL methods). */
  acl = new Map<string, string>([['default', 'on nopass ~* &* +@all']]);
  acl_users_json() {
    return JSON.stringify([...this.acl].map(([name, rules]) => ({ name, rules, enabled: rules.includes('on') })));
  }
  acl_preview(name: string, rules: string) {
    if (rules.includes('bogus')) throw "ERR Error in ACL SETUSER modifier 'bogus': Syntax error";
    return JSON.stringify({ line: `user ${name} ${rules}` });
  }
  acl_log_json(count: number) {
    this.calls.push(`acl log ${count}`);
    return JSON.stringify([{ entry_id: 0, count: 1, reason: 'command', object: 'set' }]);
  }
  call(argv: string[], now: number) {
    this.calls.push(`call ${argv.join('|')} ${now}`);
    if (argv[0] === 'ACL' && argv[1] === 'SETUSER') {
      if (argv.includes('bogus')) return JSON.stringify({ type: 'error', value: "ERR Error in ACL SETUSER modifier 'bogus': Syntax error" });
      this.acl.set(argv[2], argv.slice(3).join(' '));
      return JSON.stringify({ type: 'status', value: 'OK' });
    }
    if (argv[0] === 'ACL' && argv[1] === 'DELUSER') {
      if (argv[2] === 'default') return JSON.stringify({ type: 'error', value: "ERR The 'default' user cannot be removed" });
      return JSON.stringify({ type: 'int', value: this.acl.delete(argv[2]) ? 1 : 0 });
    }
    if (argv[0] !== 'SET') return JSON.stringify({ type: 'error', value: 'ERR scripting runs on the server' });
    this.data.set(argv[1], argv[2]);
    return JSON.stringify({ type: 'status', value: 'OK' });
  }
  reset_hotkeys(now: number) {
    this.calls.push('reset_hotkeys');
    return this.hotkeys_json(undefined, now);
  }
  clients_json(now: number) {
    return JSON.stringify({ now_ms: now, clients: [], monitors: 0, paused_until_ms: null });
  }
  kill_client(id: number) {
    if (id !== 1) throw `no client with id ${id}`;
    return JSON.stringify({ killed: true });
  }
  monitor_json(since: number) {
    return JSON.stringify({ events: [], last_seq: since });
  }
  keyspace_events_json(since: number) {
    return JSON.stringify({ events: [], last_seq: since, flags: '' });
  }
  config_json() {
    return JSON.stringify({ config: { maxmemory: '0' }, writable: ['maxmemory'] });
  }
  patch_config(bodyJson: string) {
    const body = JSON.parse(bodyJson) as Record<string, string>;
    if (body.maxmemory === 'lots') throw "ERR CONFIG SET failed (possibly related to argument 'maxmemory')";
    return JSON.stringify({ config: body, writable: ['maxmemory'] });
  }
  console(line: string, now: number) {
    this.calls.push(`console ${line} ${now}`);
    const [cmd = '', key = '', value = ''] = line.trim().split(/\s+/);
    const db = this.db;
    let r: ConsoleReply;
    if (cmd === '') r = { kind: 'empty', text: '' };
    else if (cmd.toUpperCase() === 'HELP') r = { kind: 'help', text: 'To get help about a command:\n' };
    else if (cmd.toUpperCase() === 'SET') {
      this.data.set(key, value);
      r = { kind: 'reply', argv: [cmd, key, value], reply: { type: 'status', value: 'OK' }, text: 'OK\n', resp: '+OK\r\n', db };
    } else if (cmd.toUpperCase() === 'SELECT') {
      const n = Number(key);
      if (!(n >= 0 && n < 16)) {
        const err = 'ERR DB index is out of range';
        r = { kind: 'reply', argv: [cmd, key], reply: { type: 'error', value: err }, text: `(error) ${err}\n`, resp: `-${err}\r\n`, db };
      } else {
        this.db = n;
        r = { kind: 'reply', argv: [cmd, key], reply: { type: 'status', value: 'OK' }, text: 'OK\n', resp: '+OK\r\n', db: n };
      }
    } else if (cmd.toUpperCase() === 'DEL') {
      const n = this.data.delete(key) ? 1 : 0;
      r = { kind: 'reply', argv: [cmd, key], reply: { type: 'int', value: n }, text: `(integer) ${n}\n`, resp: `:${n}\r\n`, db };
    } else if (cmd.toUpperCase() === 'INCR') {
      const n = Number(this.data.get(key) ?? 0) + 1;
      this.data.set(key, String(n));
      r = { kind: 'reply', argv: [cmd, key], reply: { type: 'int', value: n }, text: `(integer) ${n}\n`, resp: `:${n}\r\n`, db };
    } else r = { kind: 'reply', argv: [cmd], reply: { type: 'status', value: 'PONG' }, text: 'PONG\n', resp: '+PONG\r\n', db };
    return JSON.stringify(r);
  }
  console_in(line: string, now: number, db: number) {
    if (!(db >= 0 && db < 16)) throw 'db must be between 0 and 15';
    this.calls.push(`console_in db${db} ${line} ${now}`);
    const was = this.db;
    this.db = db;
    try {
      return JSON.stringify({ ...(JSON.parse(this.console(line, now)) as object), db });
    } finally {
      this.db = was;
    }
  }
  expiry_cycle(now: number) {
    this.calls.push(`expire ${now}`);
    return 0;
  }
  fill(count: number, size: number) {
    for (let i = 0; i < count; i++) this.data.set(`fill:${i}`, 'x'.repeat(size));
    return JSON.stringify({ requested: count, written: count, error: null, evicted: 0, keys: this.data.size, used_memory: 1024, maxmemory: 0 });
  }
  free() {
    this.freed = true;
  }
}

const fakeModule: WasmModule = {
  Playground: Object.assign(
    function Playground(this: unknown, now: number) {
      return new FakeEngine(now);
    } as unknown as WasmModule['Playground'],
    {
      commands_json: () => JSON.stringify({ commands: [{ name: 'GET', arity: 2, flags: [], first_key: 1, last_key: 1, step: 1, group: 'string', summary: 's', syntax: 'key' }] }),
      version: () => '9.9.9',
    },
  ),
};

function make(storage: Storage | null = memoryStorage()) {
  const clock = { now: T0 };
  const backend = new WasmBackend(fakeModule, { now: () => clock.now, seed: 1, storage });
  const engine = () => FakeEngine.made[FakeEngine.made.length - 1];
  return { backend, clock, engine, storage };
}

beforeEach(() => {
  FakeEngine.made = [];
});

afterEach(() => {
  vi.useRealTimers();
});

describe('WasmBackend', () => {
  it('answers the views from the engine at the time of the call', async () => {
    const { backend, clock, engine } = make();
    clock.now = T0 + 5;
    await backend.console('SET a 1');
    expect((await backend.stats()).keys).toBe(1);
    expect((await backend.keys({ match: 'a*', type: 'string', cursor: '0', count: 10 })).keys.map((k) => k.key)).toEqual(['a']);
    expect(await backend.key('a')).toMatchObject({ key: 'a', value: '1' });
    expect(await backend.key('nope')).toBeNull();
    expect((await backend.recentEvents()).now_ms).toBe(T0 + 5);
    expect((await backend.clients()).now_ms).toBe(T0 + 5);
    expect(await backend.killClient(1)).toEqual({ killed: true });
    await expect(backend.killClient(2)).rejects.toMatchObject({ status: 404, message: 'no client with id 2' });
    expect((await backend.monitor(7)).last_seq).toBe(7);
    expect(engine().calls).toContain('console SET a 1 1700000000005');
    expect(engine().calls).toContain('keys a* string 0 10 db0');
  });

  it('answers the slow log and latency views, and resets the slow log', async () => {
    const { backend, engine } = make();
    expect((await backend.slowlog()).slower_than_us).toBe(10000);
    await backend.slowlog(5);
    expect((await backend.resetSlowlog()).len).toBe(0);
    expect((await backend.latency()).commands).toEqual([]);
    expect((await backend.memory()).db).toBeNull();
    expect((await backend.memory(3)).db).toBe(3);
    await expect(backend.memory(16)).rejects.toThrow('no database 16');
    expect(engine().calls.filter((c) => c.includes('slowlog'))).toEqual(['slowlog all', 'slowlog 5', 'reset_slowlog', 'slowlog all']);
  });

  it('answers the compatibility radar and hot keys views at its clock, and resets them', async () => {
    const { backend, engine, clock } = make();
    expect((await backend.compat()).capacity).toBe(256);
    expect((await backend.resetCompat()).rows).toEqual([]);
    clock.now = T0 + 9;
    expect((await backend.hotKeys()).sample_every).toBe(16);
    await backend.hotKeys(5);
    expect((await backend.resetHotKeys()).keys).toEqual([]);
    expect(engine().calls.filter((c) => c.includes('compat') || c.includes('hotkeys'))).toEqual([
      'compat',
      'reset_compat',
      'compat',
      `hotkeys default ${T0 + 9}`,
      `hotkeys 5 ${T0 + 9}`,
      'reset_hotkeys',
      `hotkeys default ${T0 + 9}`,
    ]);
  });

  it('says scripting runs on the server, and records a split command that ran as its line', async () => {
    const { backend, engine } = make();
    const view = await backend.scripts();
    expect(view.available).toBe(false);
    expect(view.message).toContain('runs on the server');
    await expect(backend.script('abc')).rejects.toMatchObject({ status: 404, message: 'no script abc' });
    expect(await backend.command(['EVAL', 'return 1', '0'])).toEqual({ type: 'error', value: 'ERR scripting runs on the server' });
    expect(await backend.command(['SET', 'k', 'a b'])).toEqual({ type: 'status', value: 'OK' });
    expect(engine().data.get('k')).toBe('a b');
    expect(backend.playground.lines).toEqual(['SET k "a b"']);
  });

  it('is always the admin, edits users through commands it records, and reads the ACL views', async () => {
    const { backend, engine } = make();
    const me = await backend.me();
    expect(me.admin).toBe(true);
    expect(me.permissions['acl.write']).toEqual({ allowed: true, reason: null });
    expect(await backend.aclSetUser('reader', ' on  >pw ~* +@read ')).toMatchObject({ name: 'reader', rules: 'on >pw ~* +@read' });
    expect(await backend.aclPreview('reader', 'off')).toBe('user reader off');
    await expect(backend.aclPreview('reader', 'bogus')).rejects.toMatchObject({ status: 400, message: expect.stringContaining("modifier 'bogus'") });
    await expect(backend.aclSetUser('reader', 'bogus')).rejects.toMatchObject({ status: 400, message: expect.stringContaining("modifier 'bogus'") });
    await expect(backend.aclDelUser('default')).rejects.toMatchObject({ message: "ERR The 'default' user cannot be removed" });
    await backend.aclDelUser('reader');
    expect(engine().acl.has('reader')).toBe(false);
    expect(await backend.aclLog()).toHaveLength(1);
    expect(engine().calls).toContain('acl log 128');
    // Writes are session lines (replayed, shared); the refused ones are not.
    expect(backend.playground.lines).toEqual(['ACL SETUSER reader on ">pw" "~*" +@read', 'ACL DELUSER reader']);
  });

  it('exports a key file as bytes, and records the RESTOREs an import ran as lines in its database', async () => {
    const { backend } = make();
    const file = await backend.exportKeys({ db: 4, format: 'json', match: 'user:*' });
    expect(file).toMatchObject({ filename: 'vitrine-db4-1.json', keys: 1, missing: 0 });
    expect(new TextDecoder().decode(file.data)).toBe('{"keys":[]}');
    const report = await backend.importKeys(new Uint8Array([1]), 'replace');
    expect(report).toMatchObject({ db: 2, mode: 'replace', restored: 1 });
    expect(backend.playground.lines).toEqual([{ db: 2, line: 'RESTORE k 0 "\\xff"' }]);
    await expect(backend.importKeys(new Uint8Array(), 'skip', 0)).rejects.toMatchObject({ status: 422, message: 'not a keys file' });
    expect(backend.playground.lines).toHaveLength(1);
  });

  it('reads and writes keys in the database asked for, and records the lines that do the same', async () => {
    const { backend, engine } = make();
    await backend.putKey('k', { value: 'three' }, 3);
    expect(engine().dbs[3].get('k')).toBe('three');
    expect(engine().dbs[0].has('k')).toBe(false);
    expect(await backend.key('k', 3)).toMatchObject({ value: 'three' });
    expect(await backend.key('k')).toBeNull();
    expect((await backend.keys({ match: '*', type: '', cursor: '0', count: 10, db: 3 })).keys.map((k) => k.key)).toEqual(['k']);
    expect((await backend.keys({ match: '*', type: '', cursor: '0', count: 10 })).keys).toEqual([]);
    // In the console's own database a write is a console line; elsewhere it is kept with its
    // database, and no SELECT is added around it.
    await backend.console('SELECT 3');
    await backend.deleteKey('k', 3);
    await backend.putKey('z', { value: '0' }, 0);
    await backend.putKey('y', { value: '1' }, 3);
    expect(backend.playground.lines).toEqual([{ db: 3, line: 'SET k three' }, 'SELECT 3', 'DEL k', { db: 0, line: 'SET z 0' }, 'SET y 1']);
    // Replayed, the lines leave every database as it was and the console where it was; the
    // transcript is the console's lines.
    const lines = backend.playground.lines;
    const { transcript } = backend.playground.restore(lines);
    expect(transcript.map((t) => t.line)).toEqual(['SELECT 3', 'DEL k', 'SET y 1']);
    expect(engine().dbs[0].get('z')).toBe('0');
    expect([...engine().dbs[3].entries()]).toEqual([['y', '1']]);
    expect(engine().db).toBe(3);
    expect(backend.playground.lines).toEqual(lines);
  });

  it('runs a line in another database beside the console, without a SELECT', async () => {
    const { backend, engine } = make();
    await backend.console('SELECT 2');
    const r = await backend.consoleIn('SET a 1', 5);
    expect(r).toMatchObject({ kind: 'reply', db: 5 });
    expect(engine().dbs[5].get('a')).toBe('1');
    expect(engine().db).toBe(2);
    expect(engine().calls.filter((c) => /SELECT/.test(c))).toEqual([`console SELECT 2 ${T0}`]);
    expect(backend.playground.lines).toEqual(['SELECT 2', { db: 5, line: 'SET a 1' }]);
    // In the console's database: just the line.
    await backend.consoleIn('SET b 1', 2);
    expect(backend.playground.lines.at(-1)).toBe('SET b 1');
    // A database that does not exist: the API's 400, nothing runs or is recorded.
    await expect(backend.consoleIn('SET c 1', 99)).rejects.toMatchObject({ status: 400, message: /between 0 and 15/ });
    expect(backend.playground.lines).toHaveLength(3);
    expect(engine().db).toBe(2);
    // Replayed from the tab's storage or a link, the line runs in its database again, and the
    // transcript holds only the console's lines.
    const { transcript } = backend.playground.restore(null);
    expect(transcript.map((t) => t.line)).toEqual(['SELECT 2', 'SET b 1']);
    expect(engine().dbs[5].get('a')).toBe('1');
    expect(engine().db).toBe(2);
    backend.playground.restore([{ db: 99, line: 'SET bad 1' }, { db: 1, line: 'SET one 1' }]);
    expect(engine().dbs[1].get('one')).toBe('1');
    expect(backend.playground.lines).toEqual([{ db: 1, line: 'SET one 1' }]);
  });

  it('turns what the engine throws into the API error', async () => {
    const { backend } = make();
    await expect(backend.keys({ match: '*', type: '', cursor: 'bad', count: 10 })).rejects.toMatchObject({ status: 400, message: 'invalid cursor' });
    await backend.putKey('k', { value: 'v' });
    const conflict = await backend.putKey('k', { value: 'w', nx: true }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ApiError);
    expect(conflict).toMatchObject({ status: 409, code: 'conflict', message: 'the key exists' });
    await expect(backend.patchConfig({ maxmemory: 'lots' })).rejects.toMatchObject({ message: /CONFIG SET failed/ });
  });

  it('runs the expiry cycle ten times a second and streams a sample each second', async () => {
    vi.useFakeTimers();
    const { backend, clock, engine } = make();
    const got: Sample[] = [];
    const controller = new AbortController();
    const streaming = backend.feed.stream((s) => got.push(s), controller.signal);
    backend.start();
    backend.start(); // idempotent
    clock.now = T0 + 1000;
    vi.advanceTimersByTime(1000);
    expect(engine().calls.filter((c) => c.startsWith('expire'))).toHaveLength(10);
    expect(got.map((s) => s.t_ms)).toEqual([T0 + 1000]);
    // The samples are kept in the engine's history, for the feed's back-fill.
    expect((await backend.feed.history(60, controller.signal)).map((s) => s.t_ms)).toEqual([T0 + 1000]);
    controller.abort();
    await expect(streaming).rejects.toBeDefined();
    vi.advanceTimersByTime(1000);
    expect(got).toHaveLength(1);
    backend.stop();
    const before = engine().calls.length;
    vi.advanceTimersByTime(5000);
    expect(engine().calls.length).toBe(before);
  });

  it('feeds the stats feed like the server stream does', async () => {
    vi.useFakeTimers();
    const { backend, clock } = make();
    const feed = new StatsFeed(backend.feed);
    backend.start();
    feed.start();
    await vi.advanceTimersByTimeAsync(0);
    clock.now = T0 + 1000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(feed.status).toBe('live');
    expect(feed.latest?.t_ms).toBe(T0 + 1000);
    // A hidden tab slows the timer down: late samples are not a dead stream.
    backend.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(feed.status).toBe('live');
    feed.stop();
    backend.stop();
  });

  it('adds FILL, the playground command, to the console and the command table', async () => {
    const { backend } = make();
    const r = await backend.console('FILL 3 10');
    expect(r).toMatchObject({ kind: 'reply', reply: { type: 'status' } });
    expect(r.text).toMatch(/^wrote 3 keys, evicted 0; 3 keys/);
    expect((await backend.console('FILL lots')).text).toMatch(/^\(error\) ERR usage: FILL count/);
    expect((await backend.console('HELP')).text).toMatch(/FILL count \[size\]/);
    expect((await backend.console('help fill')).text).toMatch(/^ {2}FILL count \[size\]/);
    expect((await backend.commands()).commands.map((c) => c.name)).toEqual(['GET', 'FILL']);
  });

  it('keeps the session in storage, writes from pages as the lines that do the same', async () => {
    const { backend, clock, storage } = make();
    await backend.console('SET a 1');
    await backend.console('HELP'); // answered without the engine changing: not kept
    clock.now = T0 + 10;
    await backend.putKey('a key', { value: 'v', ttl: 60 });
    await backend.deleteKey('a');
    await backend.patchConfig({ maxmemory: '64kb', 'maxmemory-policy': 'allkeys-lru' });
    expect(backend.playground.lines).toEqual([
      'SET a 1',
      'SET "a key" v EX 60',
      'DEL a',
      'CONFIG SET maxmemory 64kb maxmemory-policy allkeys-lru',
    ]);
    const saved = JSON.parse(storage!.getItem(SESSION_KEY) ?? '[]') as { line: string; at: number }[];
    expect(saved.map((s) => s.at)).toEqual([T0, T0 + 10, T0 + 10, T0 + 10]);
  });

  it('restores a stored session into a fresh engine at the recorded times, with its transcript', async () => {
    const storage = memoryStorage();
    const first = make(storage);
    await first.backend.console('INCR visits');
    first.clock.now = T0 + 2000;
    await first.backend.console('INCR visits');

    const second = make(storage);
    second.clock.now = T0 + 60_000;
    const restored = second.backend.playground.restore(null);
    expect(restored.notice).toBe("Restored this tab's session (2 commands).");
    expect(restored.transcript.map((t) => t.reply.text)).toEqual(['(integer) 1\n', '(integer) 2\n']);
    // The engine made for the replay starts at the first line's time and runs each at its own.
    const engine = second.engine();
    expect(engine.createdAt).toBe(T0);
    expect(engine.calls.filter((c) => c.startsWith('console'))).toEqual([`console INCR visits ${T0}`, `console INCR visits ${T0 + 2000}`]);
    expect(engine.calls).toContain(`expire ${T0 + 2000}`);
    // Then the clock is the real one again.
    expect((await second.backend.console('INCR visits')).text).toBe('(integer) 3\n');
    expect(engine.calls.at(-1)).toBe(`console INCR visits ${T0 + 60_000}`);
    expect(second.backend.playground.lines).toHaveLength(3);
  });

  it('replays a share link now, replacing the stored session, and resets', async () => {
    const { backend, storage, engine } = make();
    await backend.console('SET old 1');
    const restored = backend.playground.restore(['SET a 1', 'INCR n']);
    expect(restored.notice).toBe('Replayed 2 commands from a shared link.');
    expect(backend.playground.lines).toEqual(['SET a 1', 'INCR n']);
    expect(JSON.parse(storage!.getItem(SESSION_KEY) ?? '[]')).toHaveLength(2);
    expect(FakeEngine.made[0].freed).toBe(true);
    backend.playground.reset();
    expect(backend.playground.lines).toEqual([]);
    expect(engine().data.size).toBe(0);
    expect(backend.playground.restore(null).notice).toBeNull();
  });

  it('is what the app reads: the console runs in the tab, without confirmations', async () => {
    const { backend } = make();
    const app = new AppState(backend, { storage: memoryStorage() });
    await app.console.submit('FLUSHALL');
    expect(app.console.pending).toBeNull();
    expect(app.console.entries[0]).toMatchObject({ input: 'FLUSHALL', output: 'PONG' });
    app.loadCommands();
    await vi.waitFor(() => expect(app.commands.loaded).toBe(true));
    expect(app.console.complete('fi')).toBe('FILL ');
  });
});
