import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WasmMissingError } from '../backend/load-wasm';
import { loadNodeWasm, wasmBuilt } from '../backend/wasm-testing';
import { openPlayground } from './open';
import { encodeCommands } from './share';

let replaced: string[] = [];

beforeEach(() => {
  replaced = [];
  vi.stubGlobal('location', { hash: '', pathname: '/playground', search: '' });
  vi.stubGlobal('history', { state: null, replaceState: (_s: unknown, _t: string, url: string) => replaced.push(url) });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('openPlayground', () => {
  it('tells a build without the engine from a failure, and tries again next time', async () => {
    await expect(openPlayground(() => Promise.reject(new WasmMissingError()))).rejects.toBeInstanceOf(WasmMissingError);
    await expect(openPlayground(() => Promise.reject(new Error('no wasm')))).rejects.toThrow('no wasm');
  });

  it.skipIf(!wasmBuilt)('replays a share link into the console once, then keeps the same app for the tab', async () => {
    vi.stubGlobal('localStorage', undefined);
    vi.stubGlobal('location', { hash: `#cmds=${encodeCommands(['SET a 1', 'INCR n'])}`, pathname: '/playground', search: '' });
    const app = await openPlayground(loadNodeWasm);
    try {
      expect(app.console.notice).toBe('Replayed 2 commands from a shared link.');
      expect(app.console.entries.map((e) => e.output)).toEqual(['OK', '(integer) 1']);
      // The link has done its job: the address loses it.
      expect(replaced).toEqual(['/playground']);
      expect(await openPlayground(() => Promise.reject(new Error('not again')))).toBe(app);
    } finally {
      (app.backend as { stop?: () => void }).stop?.();
    }
  });
});
