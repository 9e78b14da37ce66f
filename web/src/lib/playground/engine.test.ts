// PlaygroundEngine over the real wasm build (web/src/lib/wasm/pkg). Skipped when the package
// has not been built (scripts/test builds it before the web tests; so does
// `source scripts/lib.sh && build_wasm_if_present`).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KeyBrowser } from '../keys.svelte';
import { PlaygroundEngine, type WasmModule } from './engine';

const pkg = new URL('../wasm/pkg/', import.meta.url);
const wasmFile = fileURLToPath(new URL('vitrine_wasm_bg.wasm', pkg));
const built = existsSync(wasmFile);

async function load(): Promise<WasmModule> {
  const mod = (await import(/* @vite-ignore */ new URL('vitrine_wasm.js', pkg).href)) as WasmModule & {
    initSync(opts: { module: Uint8Array }): unknown;
  };
  mod.initSync({ module: readFileSync(wasmFile) });
  return mod;
}

describe.skipIf(!built)('PlaygroundEngine (wasm)', () => {
  const T0 = 1_700_000_000_000;

  it('runs lines as redis-cli would and prints what it prints', async () => {
    let now = T0;
    const engine = new PlaygroundEngine(await load(), { now: () => now, seed: 1 });
    expect(engine.runLine('SET greeting "hello world" EX 10')).toMatchObject({ kind: 'reply', text: 'OK\n' });
    const mget = engine.runLine('MGET greeting nope');
    expect(mget.text).toBe('1) "hello world"\n2) (nil)\n');
    expect(mget.kind === 'reply' && mget.reply).toEqual({
      type: 'array',
      value: [{ type: 'bulk', value: 'hello world' }, { type: 'nil' }],
    });
    expect(engine.runLine('INCR greeting')).toMatchObject({
      kind: 'reply',
      reply: { type: 'error', value: 'ERR value is not an integer or out of range' },
    });
    expect(engine.runLine('GET "x')).toEqual({ kind: 'invalid', text: 'Invalid argument(s)\n' });
    expect(engine.call(['INCRBY', 'big', '9007199254740993'])).toEqual({ type: 'int', value: '9007199254740993' });
    now += 11_000;
    expect(engine.sweep()).toBe(1);
    expect(engine.events().events[0]).toMatchObject({ kind: 'expired', key: 'greeting' });
    engine.free();
  });

  it('feeds the dashboard key browser and command table', async () => {
    const engine = new PlaygroundEngine(await load(), { now: () => T0, seed: 1 });
    for (let i = 0; i < 25; i++) engine.call(['SET', `user:${i}`, 'v']);
    const browser = new KeyBrowser(engine.fetchPage, { pageSize: 10 });
    browser.pattern = 'user:*';
    await browser.search();
    expect(browser.rows.length).toBeGreaterThanOrEqual(10);
    expect(browser.rows[0]).toMatchObject({ type: 'string', ttl_ms: null });
    expect(engine.commands().commands.some((c) => c.name === 'GET')).toBe(true);
    expect(engine.stats().keys).toBe(25);
    engine.free();
  });

  it('shows eviction under a tiny memory limit', async () => {
    const engine = new PlaygroundEngine(await load(), { now: () => T0, seed: 1 });
    engine.setConfig('maxmemory', '64kb');
    engine.setConfig('maxmemory-policy', 'allkeys-lru');
    expect(() => engine.setConfig('maxmemory-policy', 'nope')).toThrow(/CONFIG SET failed/);
    const fill = engine.fill(1000, 100);
    expect(fill.written).toBe(1000);
    expect(fill.evicted).toBeGreaterThan(0);
    expect(engine.stats().used_memory).toBeLessThanOrEqual(64 * 1024);
    expect(engine.events().events[0]).toMatchObject({ kind: 'evicted', policy: 'allkeys-lru' });
    expect(engine.keys('fill:*', 5).keys).toHaveLength(5);
    engine.free();
  });
});
