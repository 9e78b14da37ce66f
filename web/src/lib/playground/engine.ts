// The playground's engine from TypeScript: typed, parsed answers over the `Playground` class
// that wasm/ exports (web/src/lib/wasm/pkg, built by scripts/lib.sh build_wasm_if_present).
//
// The generated module is passed in rather than imported here, so this file type-checks and
// tests without a wasm build; the page loads it:
//
//     import init, * as wasm from '../wasm/pkg/vitrine_wasm.js';
//     await init();
//     const engine = new PlaygroundEngine(wasm);
//
// The JSON shapes are the admin API's (types.ts), so the dashboard's pieces take the
// playground as another source: `new KeyBrowser(engine.fetchPage)`,
// `commandTable.load(() => Promise.resolve(engine.commands()))`. Time is always `now()`
// (Date.now by default): the engine has no clock of its own.

import { parseReplyJson } from '../cli';
import type { FetchPage } from '../keys.svelte';
import type { Bytes, CommandInfo, KeyPage, KeyRow, RecentEvents, Reply, StatsSnapshot } from '../types';

/** The wasm-bindgen class (see wasm/src/lib.rs for each method). */
export interface WasmPlayground {
  console(line: string, now_ms: number): string;
  call(argv: string[], now_ms: number): string;
  stats_json(now_ms: number): string;
  sample_json(now_ms: number): string;
  history_json(seconds?: number | null): string;
  keys_json(pattern: string, type_name: string, cursor: string, count: number, now_ms: number): string;
  key_json(key_json: string, now_ms: number): string;
  put_key(key_json: string, body_json: string, now_ms: number): string;
  delete_key(key_json: string, now_ms: number): string;
  evictions_json(now_ms: number): string;
  config_json(): string;
  patch_config(body_json: string, now_ms: number): string;
  expiry_cycle(now_ms: number): number;
  set_config(name: string, value: string, now_ms: number): void;
  fill(count: number, value_size: number, now_ms: number): string;
  free(): void;
}

/** What the generated module exports, once initialised. */
export interface WasmModule {
  Playground: {
    new (now_ms: number, seed: number): WasmPlayground;
    commands_json(): string;
    version(): string;
  };
}

/** One console line's outcome. `text` is exactly what redis-cli prints, final newline included. */
export type LineResult =
  | { kind: 'reply'; argv: Bytes[]; reply: Reply; text: string; resp: Bytes }
  | { kind: 'empty' | 'invalid' | 'help' | 'clear'; text: string };

/** A listed key with the playground's extras (idle time and LFU counter). */
export type PlaygroundKey = KeyRow & { idle_ms: number; freq: number };

export interface FillResult {
  requested: number;
  written: number;
  /** The Redis error that stopped the fill (OOM under noeviction), or null. */
  error: string | null;
  evicted: number;
  keys: number;
  used_memory: number;
  maxmemory: number;
}

export class PlaygroundEngine {
  readonly #mod: WasmModule;
  readonly #pg: WasmPlayground;
  readonly #now: () => number;

  constructor(mod: WasmModule, options: { now?: () => number; seed?: number } = {}) {
    this.#mod = mod;
    this.#now = options.now ?? Date.now;
    this.#pg = new mod.Playground(this.#now(), options.seed ?? Math.floor(Math.random() * 2 ** 32));
  }

  /** Runs a line as typed into redis-cli. A Redis error is a reply, not an exception. */
  runLine(line: string): LineResult {
    return parseReplyJson(this.#pg.console(line, this.#now())) as unknown as LineResult;
  }

  /** Runs one already-split command; its reply as tagged JSON. */
  call(argv: string[]): Reply {
    return parseReplyJson(this.#pg.call(argv, this.#now()));
  }

  stats(): StatsSnapshot {
    return JSON.parse(this.#pg.stats_json(this.#now())) as StatsSnapshot;
  }

  /** Up to `count` keys matching `pattern`, for a live list with TTLs counting down. */
  keys(pattern = '*', count = 200): { keys: PlaygroundKey[]; truncated: boolean } {
    const now = this.#now();
    const keys: PlaygroundKey[] = [];
    let cursor = '0';
    for (;;) {
      const page = JSON.parse(this.#pg.keys_json(pattern, '', cursor, 1000, now)) as KeyPage;
      keys.push(...(page.keys as PlaygroundKey[]));
      cursor = page.cursor;
      if (page.done || keys.length >= count) break;
    }
    const truncated = keys.length > count || (cursor !== '0' && keys.length === count);
    return { keys: keys.slice(0, count), truncated };
  }

  /** One SCAN step, as GET /api/keys answers it: a `FetchPage` for the dashboard's KeyBrowser. */
  fetchPage: FetchPage = (q) =>
    Promise.resolve(JSON.parse(this.#pg.keys_json(q.match, q.type, q.cursor, q.count, this.#now())) as KeyPage);

  /** Recent evictions and expirations, newest first. */
  events(): RecentEvents {
    return JSON.parse(this.#pg.evictions_json(this.#now())) as RecentEvents;
  }

  /** Active expiry; call from a timer (the server runs it 10 times a second). Keys expired. */
  sweep(): number {
    return this.#pg.expiry_cycle(this.#now());
  }

  /** CONFIG SET; throws the Redis error text when the setting is refused. */
  setConfig(name: string, value: string): void {
    this.#pg.set_config(name, value, this.#now());
  }

  /** Writes `count` new keys of `valueSize` bytes, to watch eviction. */
  fill(count: number, valueSize: number): FillResult {
    return JSON.parse(this.#pg.fill(count, valueSize, this.#now())) as FillResult;
  }

  commands(): { commands: CommandInfo[] } {
    return JSON.parse(this.#mod.Playground.commands_json()) as { commands: CommandInfo[] };
  }

  version(): string {
    return this.#mod.Playground.version();
  }

  /** Frees the engine's memory; the object is unusable afterwards. */
  free(): void {
    this.#pg.free();
  }
}
