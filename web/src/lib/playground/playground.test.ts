// PlaygroundState over the real wasm build; skipped when it has not been built (scripts/test
// builds it before the web tests).
import { describe, expect, it } from 'vitest';
import { splitArgs } from '../cli';
import { FILL_INFO, PlaygroundState, SESSION_KEY } from './playground.svelte';
import { TOUR } from './tour';
import { WasmMissingError } from './wasm';
import { loadNodeWasm, wasmBuilt } from './wasm-testing';

class MemoryStorage {
  data = new Map<string, string>();
  get length() {
    return this.data.size;
  }
  clear() {
    this.data.clear();
  }
  getItem(k: string) {
    return this.data.get(k) ?? null;
  }
  key(i: number) {
    return [...this.data.keys()][i] ?? null;
  }
  removeItem(k: string) {
    this.data.delete(k);
  }
  setItem(k: string, v: string) {
    this.data.set(k, v);
  }
}

const T0 = 1_700_000_000_000;

function make(storage = new MemoryStorage(), clock = { now: T0 }) {
  const pg = new PlaygroundState({ load: loadNodeWasm, now: () => clock.now, storage: storage as unknown as Storage, seed: 7 });
  return { pg, storage, clock };
}

describe('the tour', () => {
  it('has a few steps, each with commands redis-cli can split', () => {
    expect(TOUR.length).toBeGreaterThanOrEqual(4);
    expect(TOUR.map((s) => s.title).join(' ')).toMatch(/Strings.*TTL.*Eviction.*LRU vs LFU/s);
    for (const step of TOUR) {
      expect(step.commands.length).toBeGreaterThan(0);
      for (const c of step.commands) expect(splitArgs(c), c).not.toBeNull();
    }
  });
});

describe.skipIf(!wasmBuilt)('PlaygroundState (wasm)', () => {
  it('prints replies exactly as redis-cli does and keeps history', async () => {
    const { pg } = make();
    await pg.start();
    expect(pg.status).toBe('ready');
    expect(pg.run('SET greeting "hello world"')).toMatchObject({ output: 'OK', kind: 'reply' });
    expect(pg.run('GET greeting')?.output).toBe('"hello world"');
    expect(pg.run('MGET greeting nope')?.output).toBe('1) "hello world"\n2) (nil)');
    expect(pg.run('INCR greeting')).toMatchObject({ kind: 'error', output: '(error) ERR value is not an integer or out of range' });
    expect(pg.run('GET "x')).toMatchObject({ kind: 'error', output: 'Invalid argument(s)' });
    expect(pg.run('HELP GET')?.output).toMatch(/GET key/);
    expect(pg.run('HELP FILL')?.output).toContain('FILL count [size]');
    expect(pg.up('draft')).toBe('HELP FILL');
    expect(pg.up('')).toBe('HELP GET');
    expect(pg.down()).toBe('HELP FILL');
    expect(pg.down()).toBe('draft');
    expect(pg.complete('INCRB')).toBe('INCRBY');
    expect(pg.complete('fil')).toBe('FILL ');
    expect(pg.hint('SET k')).toMatch(/^SET key value/);
    pg.run('CLEAR');
    expect(pg.entries).toEqual([]);
  });

  it('expires keys from the active cycle and lists them with TTLs', async () => {
    const { pg, clock } = make();
    await pg.start();
    pg.run('SET session:42 alice PX 500');
    expect(pg.keys[0]).toMatchObject({ key: 'session:42', ttl_ms: 500 });
    clock.now += 200;
    pg.tick();
    expect(pg.keys[0].ttl_ms).toBe(300);
    clock.now += 400;
    pg.tick();
    expect(pg.keys).toEqual([]);
    expect(pg.events[0]).toMatchObject({ kind: 'expired', key: 'session:42' });
  });

  it('evicts under a tiny limit with the controls and Fill', async () => {
    const { pg } = make();
    await pg.start();
    expect(pg.setLimit('64kb')).toMatchObject({ output: 'OK' });
    expect(pg.setPolicy('allkeys-lru')).toMatchObject({ output: 'OK' });
    expect(pg.setPolicy('bogus')?.kind).toBe('error');
    const f = pg.fill();
    expect(f?.output).toMatch(/^wrote 2000 keys, evicted [1-9]/);
    expect(pg.stats!.maxmemory).toBe(65536);
    expect(pg.stats!.used_memory).toBeLessThanOrEqual(65536);
    expect(pg.events.some((e) => e.kind === 'evicted')).toBe(true);
    expect(pg.run('FILL nope')?.kind).toBe('error');
    pg.setPolicy('noeviction');
    expect(pg.fill()?.output).toMatch(/OOM/);
  });

  it('persists the session and replays it at the recorded times into a fresh engine', async () => {
    const storage = new MemoryStorage();
    const clock = { now: T0 };
    const a = make(storage, clock).pg;
    await a.start();
    a.run('SET short v PX 1000');
    clock.now += 10;
    a.run('SET long v EX 100');
    a.run('INCR n');
    const saved = JSON.parse(storage.getItem(SESSION_KEY)!);
    expect(saved).toEqual([
      { line: 'SET short v PX 1000', at: T0 },
      { line: 'SET long v EX 100', at: T0 + 10 },
      { line: 'INCR n', at: T0 + 10 },
    ]);

    clock.now = T0 + 5000; // reopened later: "short" has expired since
    const b = make(storage, clock).pg;
    await b.start();
    expect(b.notice).toMatch(/Restored/);
    expect(b.entries.map((e) => e.output)).toEqual(['OK', 'OK', '(integer) 1']);
    expect(b.keys.map((k) => k.key)).toEqual(['long', 'n']);
    expect(b.keys[0].ttl_ms).toBe(100_000 - 4990);
    expect(b.run('INCR n')?.output).toBe('(integer) 2');
    expect(b.up('')).toBe('INCR n');
  });

  it('replays a shared command list now, replacing the stored session', async () => {
    const storage = new MemoryStorage();
    storage.setItem(SESSION_KEY, JSON.stringify([{ line: 'SET old 1', at: T0 }]));
    const { pg } = make(storage);
    await pg.start(['SET a 1', 'INCR a']);
    expect(pg.notice).toMatch(/shared link/);
    expect(pg.commands).toEqual(['SET a 1', 'INCR a']);
    expect(pg.entries.at(-1)?.output).toBe('(integer) 2');
    expect(JSON.parse(storage.getItem(SESSION_KEY)!).map((s: { line: string }) => s.line)).toEqual(['SET a 1', 'INCR a']);
    pg.reset();
    expect(pg.commands).toEqual([]);
    expect(pg.keyCount).toBe(0);
  });

  it('runs every tour step without a Redis error, and LFU keeps the hot key', async () => {
    const { pg } = make();
    await pg.start();
    for (const step of TOUR) {
      pg.runAll(step.commands);
      const errors = pg.entries.filter((e) => e.kind === 'error');
      expect(errors, step.title).toEqual([]);
    }
    expect(pg.entries.find((e) => e.input === 'EXISTS hot')?.output).toBe('(integer) 1');
    expect(FILL_INFO.name).toBe('FILL');
  });

  it('says so when the engine cannot load', async () => {
    const pg = new PlaygroundState({ load: () => Promise.reject(new Error('no wasm')), storage: null });
    await pg.start();
    expect(pg).toMatchObject({ status: 'failed', error: 'no wasm' });
    expect(pg.run('PING')).toBeNull();
  });

  it('tells a build without the engine from a failure: the page says it is being built', async () => {
    const pg = new PlaygroundState({ load: () => Promise.reject(new WasmMissingError()), storage: null });
    await pg.start();
    expect(pg.status).toBe('unbuilt');
    expect(pg.error).toContain('scripts/start builds it in the background');
    expect(pg.run('PING')).toBeNull();
  });
});
