import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommandTable, newSessionId } from './commands.svelte';
import { ConsoleState, dangerReason, isSecret, LARGE_KEYSPACE } from './console.svelte';
import { AppState } from './backend/app.svelte';
import { HttpBackend } from './backend/http';
import type { CommandInfo, ConsoleReply, Reply } from './types';

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

const cmd = (name: string, syntax: string, group = 'string'): CommandInfo => ({
  name, arity: -2, flags: [], first_key: 1, last_key: 1, step: 1, movablekeys: false, acl_categories: [], group, summary: `${name} summary.`, syntax,
});

async function table(): Promise<CommandTable> {
  const t = new CommandTable();
  await t.load(async () => ({
    commands: [cmd('SET', 'key value [NX | XX]'), cmd('SETEX', 'key seconds value'), cmd('SETNX', 'key value'), cmd('GET', 'key'), cmd('FLUSHALL', '[ASYNC | SYNC]', 'server'), cmd('KEYS', 'pattern', 'generic')],
  }));
  return t;
}

/** What the engine answers for a line: a reply printed as redis-cli would, or help/invalid. */
const answer = (text: string, reply: Reply = { type: 'status', value: text }, db = 0): ConsoleReply => ({ kind: 'reply', argv: [], reply, text: text + '\n', resp: '', db });

/** A fake backend console: answers by the line's first word, and records what was sent. */
function setup(replies: Record<string, ConsoleReply> = {}, keys: number | null = 10, confirmDangerous = true) {
  const sent: string[] = [];
  const run = async (line: string): Promise<ConsoleReply> => {
    sent.push(line);
    return replies[line.trim().split(/\s+/)[0].toUpperCase()] ?? answer('OK');
  };
  return { sent, make: async () => new ConsoleState({ run, keyCount: () => keys, table: await table(), storage: memoryStorage(), confirmDangerous }) };
}

describe('ConsoleState', () => {
  it('sends the line as typed and prints the text the engine formatted', async () => {
    const { sent, make } = setup({ GET: answer('"a\\nb"', { type: 'bulk', value: 'a\nb' }), MGET: answer('1) (nil)\n2) (integer) 3', { type: 'array', value: [] }) });
    const c = await make();
    await c.submit('SET k "hello world"');
    await c.submit('GET k');
    await c.submit('MGET a b');
    expect(sent).toEqual(['SET k "hello world"', 'GET k', 'MGET a b']);
    expect(c.entries.map((e) => e.output)).toEqual(['OK', '"a\\nb"', '1) (nil)\n2) (integer) 3']);
    expect(c.entries[0].input).toBe('SET k "hello world"');
  });

  it('marks error replies', async () => {
    const err = "ERR unknown command 'NOPE'";
    const { make } = setup({ NOPE: answer(`(error) ${err}`, { type: 'error', value: err }) });
    const c = await make();
    await c.submit('NOPE');
    expect(c.entries[0]).toMatchObject({ kind: 'error', output: "(error) ERR unknown command 'NOPE'" });
  });

  it('shows Invalid argument(s) as an error, help as information, and nothing for an empty line', async () => {
    const { make } = setup({
      GET: { kind: 'invalid', text: 'Invalid argument(s)\n' },
      HELP: { kind: 'help', text: '  GET key\n  summary: Get the value of a key\n' },
      '"': { kind: 'empty', text: '' },
    });
    const c = await make();
    await c.submit('GET "oops');
    await c.submit('HELP GET');
    await c.submit('"');
    expect(c.entries).toHaveLength(2);
    expect(c.entries[0]).toMatchObject({ kind: 'error', output: 'Invalid argument(s)' });
    expect(c.entries[1]).toMatchObject({ kind: 'info', output: '  GET key\n  summary: Get the value of a key' });
  });

  it('clears when the engine says clear', async () => {
    const { make } = setup({ CLEAR: { kind: 'clear', text: '' } });
    const c = await make();
    await c.submit('PING');
    c.notice = 'Restored';
    await c.submit('clear');
    expect(c.entries).toHaveLength(0);
    c.clear();
    expect(c.notice).toBeNull();
  });

  it('follows the database the replies say the session is in, each line at the prompt it was typed at', async () => {
    const { make } = setup({ SELECT: answer('OK', { type: 'status', value: 'OK' }, 3) });
    const c = await make();
    expect(c.db).toBe(0);
    await c.submit('SELECT 3');
    expect(c.db).toBe(3);
    c.show('GET k', answer('(nil)', { type: 'nil' }, 3));
    c.show('HELP', { kind: 'help', text: 'help\n' });
    expect(c.entries.map((e) => [e.input, e.db])).toEqual([
      ['SELECT 3', 0],
      ['GET k', 3],
      ['HELP', 3],
    ]);
    // A session that ended (an idle one closed by the server) is back in database 0.
    c.show('PING', answer('PONG'));
    expect(c.db).toBe(0);
  });

  it('shows lines that ran elsewhere (a restored session) as typed', async () => {
    const { sent, make } = setup();
    const c = await make();
    c.show('INCR visits', answer('(integer) 1', { type: 'int', value: 1 }));
    expect(c.entries[0]).toMatchObject({ input: 'INCR visits', output: '(integer) 1', kind: 'reply' });
    expect(sent).toHaveLength(0);
  });

  it('shows a network failure as an error line', async () => {
    const c = new ConsoleState({ run: async () => Promise.reject(new Error('The server could not be reached.')), keyCount: () => 0, table: await table(), storage: null });
    await c.submit('PING');
    expect(c.entries[0]).toMatchObject({ kind: 'error', output: '(error) The server could not be reached.' });
    expect(c.busy).toBe(false);
  });

  it('ignores blank lines', async () => {
    const { sent, make } = setup();
    const c = await make();
    await c.submit('   ');
    expect(sent).toHaveLength(0);
    expect(c.entries).toHaveLength(0);
    expect(c.history).toHaveLength(0);
  });

  it('asks before FLUSHALL and runs it only when confirmed', async () => {
    const { sent, make } = setup();
    const c = await make();
    await c.submit('flushall');
    expect(sent).toHaveLength(0);
    expect(c.pending?.reason).toMatch(/deletes every key/);
    await c.confirm();
    expect(sent).toEqual(['flushall']);
    expect(c.pending).toBeNull();

    await c.submit('FLUSHDB');
    c.cancel();
    expect(sent).toHaveLength(1);
    expect(c.entries.at(-1)).toMatchObject({ input: 'FLUSHDB', output: '(not run)' });
  });

  it('does not ask when no one else uses the cache (the playground)', async () => {
    const { sent, make } = setup({}, LARGE_KEYSPACE + 1, false);
    const c = await make();
    await c.submit('FLUSHALL');
    await c.submit('KEYS *');
    expect(c.pending).toBeNull();
    expect(sent).toEqual(['FLUSHALL', 'KEYS *']);
  });

  it('asks before KEYS only on a large keyspace', async () => {
    const small = setup({}, 100);
    const c1 = await small.make();
    await c1.submit('KEYS *');
    expect(c1.pending).toBeNull();
    expect(small.sent).toHaveLength(1);

    const large = setup({}, LARGE_KEYSPACE + 1);
    const c2 = await large.make();
    await c2.submit('KEYS *');
    expect(c2.pending?.reason).toMatch(/KEYS lists all 10,001 keys/);
    expect(large.sent).toHaveLength(0);
  });

  it('names the dangerous commands', () => {
    expect(dangerReason(['FLUSHALL'], 0)).toMatch(/FLUSHALL/);
    expect(dangerReason(['flushdb', 'async'], 0)).toMatch(/FLUSHDB/);
    expect(dangerReason(['config', 'set', 'maxmemory', '1mb'], 0)).toMatch(/CONFIG SET/);
    expect(dangerReason(['CONFIG', 'GET', 'maxmemory'], 0)).toBeNull();
    expect(dangerReason(['KEYS', '*'], null)).toBeNull();
    expect(dangerReason(['KEYS', '*'], 20_000)).toMatch(/SCAN/);
    expect(dangerReason(['GET', 'k'], 1e9)).toBeNull();
  });

  it('walks history with up and down, keeping the line being typed', async () => {
    const { make } = setup();
    const c = await make();
    await c.submit('PING');
    await c.submit('GET a');
    await c.submit('GET a'); // a repeat is stored once
    expect(c.history).toEqual(['PING', 'GET a']);
    expect(c.up('GE')).toBe('GET a');
    expect(c.up('GET a')).toBe('PING');
    expect(c.up('PING')).toBeNull();
    expect(c.down()).toBe('GET a');
    expect(c.down()).toBe('GE');
    expect(c.down()).toBeNull();
  });

  it('keeps history across pages but never secrets', async () => {
    const storage = memoryStorage();
    const t = await table();
    const run = async (): Promise<ConsoleReply> => answer('OK');
    const c1 = new ConsoleState({ run, keyCount: () => 0, table: t, storage });
    await c1.submit('SET a 1');
    await c1.submit('AUTH hunter2');
    await c1.confirm();
    await c1.submit('CONFIG SET requirepass hunter2');
    await c1.confirm();
    const c2 = new ConsoleState({ run, keyCount: () => 0, table: t, storage });
    expect(c2.history).toEqual(['SET a 1']);
    expect(isSecret(['hello', '3', 'AUTH', 'u', 'p'])).toBe(true);
    expect(isSecret(['GET', 'auth'])).toBe(false);
  });

  it('completes command names and hints their syntax', async () => {
    const { make } = setup();
    const c = await make();
    expect(c.complete('ge')).toBe('GET ');
    expect(c.complete('SE')).toBe('SET'); // SET, SETEX, SETNX share "SET"
    expect(c.complete('SET')).toBe('SET');
    expect(c.complete('zz')).toBeNull();
    expect(c.complete('GET k')).toBeNull();
    expect(c.hint('set k')).toBe('SET key value [NX | XX]');
    expect(c.hint('SE')).toBe('SET  SETEX  SETNX');
    expect(c.hint('')).toBeNull();
  });
});

describe('console sessions', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sends every command of one console in one server session, and each console its own', async () => {
    const bodies: unknown[] = [];
    const paths: string[] = [];
    vi.stubGlobal('fetch', async (path: string, init: RequestInit) => {
      paths.push(path);
      bodies.push(JSON.parse(String(init.body)));
      return new Response(JSON.stringify(answer('OK')), { status: 200 });
    });
    const backend = new HttpBackend();
    const a = new AppState(backend, { storage: memoryStorage() }).console;
    const b = new AppState(backend, { storage: memoryStorage() }).console;
    await a.submit('MULTI');
    await a.submit('SET k v');
    await b.submit('PING');
    const sessions = bodies.map((body) => (body as { session: string }).session);
    expect(paths).toEqual(['/api/console', '/api/console', '/api/console']);
    expect(bodies[1]).toEqual({ line: 'SET k v', session: sessions[0] });
    expect(sessions[0]).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(sessions[1]).toBe(sessions[0]);
    expect(sessions[2]).not.toBe(sessions[0]);
  });

  it('makes ids the server accepts', () => {
    const ids = new Set(Array.from({ length: 20 }, () => newSessionId()));
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});
