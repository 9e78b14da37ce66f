// PlaygroundState: the in-browser playground over the wasm engine. A console (transcript,
// history on the arrow keys, Tab completion and HELP from the engine's command table), the
// engine's memory, keys and eviction/expiration feed refreshed by the active-expiry timer,
// and the session: every typed line with its time, kept in localStorage and replayed on load
// into a fresh engine at the same recorded times (or replayed from a share link).
//
// Lines are what drives the engine, the controls included: the memory limit and policy run
// `CONFIG SET ...`, and the Fill button runs `FILL count size`, the playground's one command
// of its own. So a session, a share link and the tour are all just lists of lines.

import { CommandTable, helpText, usage } from '../commands.svelte';
import { argText, splitArgs } from '../cli';
import { formatBytes as bytes } from '../format';
import type { CommandInfo, KeyEvent, StatsSnapshot } from '../types';
import { PlaygroundEngine, type PlaygroundKey, type WasmModule } from './engine';
import { loadWasm, WasmMissingError } from './wasm';

export interface Entry {
  id: number;
  input: string;
  output: string;
  kind: 'reply' | 'error' | 'info';
}

/** One typed line and when it ran (ms since the epoch). */
export interface SessionLine {
  line: string;
  at: number;
}

export interface PlaygroundDeps {
  load: () => Promise<WasmModule>;
  now: () => number;
  storage: Storage | null;
  seed?: number;
}

export const SESSION_KEY = 'vitrine.playground.session';
export const POLICIES = [
  'noeviction',
  'allkeys-lru',
  'allkeys-lfu',
  'allkeys-random',
  'volatile-lru',
  'volatile-lfu',
  'volatile-random',
  'volatile-ttl',
] as const;
/** The active expiry cycle's period, as the server's (10 times a second). */
export const SWEEP_MS = 100;
export const FILL_COUNT = 2000;
export const FILL_SIZE = 100;
const MAX_SESSION = 500;
const MAX_ENTRIES = 500;
const MAX_FILL = 100_000;
const KEY_LIST = 100;

/** FILL, the playground's own command, in the command table's shape (for HELP and Tab). */
export const FILL_INFO: CommandInfo = {
  name: 'FILL',
  arity: -2,
  flags: ['write'],
  first_key: 0,
  last_key: 0,
  step: 0,
  group: 'playground',
  summary: `Writes COUNT new keys (fill:N) of SIZE bytes (default ${FILL_SIZE}), to watch eviction. Playground only.`,
  syntax: 'count [size]',
};

function defaultStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}


export class PlaygroundState {
  /** `unbuilt`: this build of the web app has no wasm engine in it (yet). */
  status = $state<'idle' | 'loading' | 'ready' | 'unbuilt' | 'failed'>('idle');
  error = $state<string | null>(null);
  entries = $state.raw<Entry[]>([]);
  stats = $state.raw<StatsSnapshot | null>(null);
  keys = $state.raw<PlaygroundKey[]>([]);
  keyCount = $state(0);
  events = $state.raw<KeyEvent[]>([]);
  /** A note about the session (restored, replayed from a link). */
  notice = $state<string | null>(null);
  readonly table = new CommandTable();

  readonly #deps: PlaygroundDeps;
  #mod: WasmModule | null = null;
  #engine: PlaygroundEngine | null = null;
  #session: SessionLine[] = [];
  /** During a replay, the recorded time; otherwise null (the real clock). */
  #clock: number | null = null;
  #pos = 0;
  #draft = '';
  #nextId = 1;
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(deps: Partial<PlaygroundDeps> = {}) {
    this.#deps = {
      load: deps.load ?? loadWasm,
      now: deps.now ?? Date.now,
      storage: deps.storage === undefined ? defaultStorage() : deps.storage,
      seed: deps.seed,
    };
  }

  /** The typed lines of this session, oldest first. */
  get commands(): string[] {
    return this.#session.map((s) => s.line);
  }

  get session(): readonly SessionLine[] {
    return this.#session;
  }

  /**
   * Loads the engine, then replays `shared` (a share link's commands, run now) or else the
   * stored session (at its recorded times).
   */
  async start(shared: string[] | null = null): Promise<void> {
    if (this.status === 'loading' || this.status === 'ready') return;
    this.status = 'loading';
    try {
      this.#mod = await this.#deps.load();
    } catch (e) {
      this.status = e instanceof WasmMissingError ? 'unbuilt' : 'failed';
      this.error = e instanceof Error ? e.message : String(e);
      return;
    }
    await this.table.load(() => Promise.resolve({ commands: [...this.#newEngine().commands().commands, FILL_INFO] }));
    if (shared) {
      const now = this.#deps.now();
      this.#replay(shared.map((line) => ({ line, at: now })));
      this.notice = `Replayed ${shared.length} command${shared.length === 1 ? '' : 's'} from a shared link.`;
      this.#save();
    } else {
      const stored = this.#load();
      if (stored.length > 0) {
        this.#replay(stored);
        this.notice = `Restored this tab's session (${stored.length} command${stored.length === 1 ? '' : 's'}).`;
      }
    }
    this.status = 'ready';
    this.refresh();
  }

  /** Starts the active expiry cycle (sweep + refresh every 100 ms); returns a stop function. */
  startTimer(period = SWEEP_MS): () => void {
    this.stopTimer();
    this.#timer = setInterval(() => this.tick(), period);
    return () => this.stopTimer();
  }

  stopTimer(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** One active expiry cycle, then a fresh view of memory, keys and events. */
  tick(): void {
    if (!this.#engine) return;
    this.#engine.sweep();
    this.refresh();
  }

  refresh(): void {
    const engine = this.#engine;
    if (!engine) return;
    this.stats = engine.stats();
    const list = engine.keys('*', KEY_LIST);
    const decoded = (k: PlaygroundKey) => (typeof k.key === 'string' ? k.key : k.key.base64);
    this.keys = [...list.keys].sort((a, b) => decoded(a).localeCompare(decoded(b), 'en', { numeric: true }));
    this.keyCount = this.stats.keys;
    const ev = engine.events().events;
    // Only re-render the feed when it changed (the ring's head is the newest).
    const head = ev[0];
    const cur = this.events[0];
    if (ev.length !== this.events.length || head?.at_ms !== cur?.at_ms || head?.key !== cur?.key) this.events = ev;
  }

  /** Runs a typed line (recorded in the session, saved, shown in the transcript). */
  run(line: string): Entry | null {
    if (!this.#engine || line.trim() === '') return null;
    const at = this.#deps.now();
    this.#remember(line, at);
    const entry = this.#exec(line);
    this.#save();
    this.refresh();
    return entry;
  }

  /** Runs several lines in order, as if typed one after another (the tour's Run). */
  runAll(lines: readonly string[]): void {
    for (const l of lines) this.run(l);
  }

  setLimit(text: string): Entry | null {
    return this.run(`CONFIG SET maxmemory ${text.trim() || '0'}`);
  }

  setPolicy(policy: string): Entry | null {
    return this.run(`CONFIG SET maxmemory-policy ${policy}`);
  }

  fill(count = FILL_COUNT, size = FILL_SIZE): Entry | null {
    return this.run(`FILL ${count} ${size}`);
  }

  /** A fresh engine with an empty session (and transcript). */
  reset(): void {
    if (!this.#mod) return;
    this.#session = [];
    this.#pos = 0;
    this.entries = [];
    this.notice = null;
    this.#newEngine();
    this.#save();
    this.refresh();
  }

  up(current: string): string | null {
    const h = this.#session;
    if (this.#pos === 0) return null;
    if (this.#pos === h.length) this.#draft = current;
    this.#pos--;
    return h[this.#pos].line;
  }

  down(): string | null {
    const h = this.#session;
    if (this.#pos >= h.length) return null;
    this.#pos++;
    return this.#pos === h.length ? this.#draft : h[this.#pos].line;
  }

  /** Tab: completes a command name when the line is one word. */
  complete(line: string): string | null {
    if (!/^\s*\S+$/.test(line)) return null;
    const word = line.trim();
    const names = this.table.complete(word);
    if (names.length === 0) return null;
    if (names.length === 1) return names[0] + ' ';
    let prefix = names[0];
    for (const n of names) while (!n.startsWith(prefix)) prefix = prefix.slice(0, -1);
    return prefix.length > word.length ? prefix : names[0];
  }

  /** The syntax of the command being typed, or the commands its name could become. */
  hint(line: string): string | null {
    const argv = splitArgs(line);
    if (!argv || argv.length === 0) return null;
    const name = argText(argv[0]);
    const info = this.table.find(name);
    if (info) return usage(info);
    if (argv.length === 1 && !/\s$/.test(line)) {
      const names = this.table.complete(name);
      if (names.length > 0) return names.slice(0, 8).join('  ') + (names.length > 8 ? '  …' : '');
    }
    return null;
  }

  #newEngine(): PlaygroundEngine {
    this.#engine?.free();
    const engine = new PlaygroundEngine(this.#mod!, { now: () => this.#clock ?? this.#deps.now(), seed: this.#deps.seed });
    this.#engine = engine;
    return engine;
  }

  /** A fresh engine, then every line at its recorded time (the transcript rebuilt). */
  #replay(lines: SessionLine[]): void {
    this.#newEngine();
    this.entries = [];
    this.#session = [];
    try {
      for (const s of lines) {
        this.#clock = s.at;
        // The active cycle would have run in between: expire what was due by then.
        this.#engine!.sweep();
        this.#remember(s.line, s.at);
        this.#exec(s.line);
      }
    } finally {
      this.#clock = null;
    }
  }

  #exec(line: string): Entry {
    const engine = this.#engine!;
    const argv = splitArgs(line);
    const words = argv ? argv.map(argText) : [];
    const cmd = (words[0] ?? '').toUpperCase();
    if (cmd === 'FILL') return this.#fill(line, words);
    if ((cmd === 'HELP' || cmd === '?') && (words[1] ?? '').toUpperCase() === 'FILL') {
      return this.#push(line, helpText(FILL_INFO), 'info');
    }
    const r = engine.runLine(line);
    const text = r.text.replace(/\n$/, '');
    switch (r.kind) {
      case 'clear':
        this.entries = [];
        return { id: 0, input: line, output: '', kind: 'info' };
      case 'help':
        return this.#push(line, cmd === 'HELP' && words.length === 1 ? `${text}\n  FILL count [size]  (playground) writes keys to watch eviction` : text, 'info');
      case 'invalid':
        return this.#push(line, text, 'error');
      case 'reply':
        return this.#push(line, text, r.reply.type === 'error' ? 'error' : 'reply');
      default:
        return this.#push(line, text, 'info');
    }
  }

  #fill(line: string, words: string[]): Entry {
    const count = Number(words[1]);
    const size = words[2] === undefined ? FILL_SIZE : Number(words[2]);
    if (words.length < 2 || words.length > 3 || !Number.isInteger(count) || !Number.isInteger(size) || count < 1 || count > MAX_FILL || size < 0 || size > 1024 * 1024) {
      return this.#push(line, `(error) ERR usage: FILL count [size], count 1-${MAX_FILL}, size 0-1048576`, 'error');
    }
    try {
      const f = this.#engine!.fill(count, size);
      const limit = f.maxmemory > 0 ? ` of ${bytes(f.maxmemory)}` : ' (no limit)';
      const head = `wrote ${f.written} keys, evicted ${f.evicted}; ${f.keys} keys, ${bytes(f.used_memory)}${limit}`;
      return f.error ? this.#push(line, `${head}\n(error) ${f.error}`, 'error') : this.#push(line, head, 'info');
    } catch (e) {
      return this.#push(line, `(error) ${e instanceof Error ? e.message : String(e)}`, 'error');
    }
  }

  #push(input: string, output: string, kind: Entry['kind']): Entry {
    const entry = { id: this.#nextId++, input, output, kind };
    const next = [...this.entries, entry];
    this.entries = next.length > MAX_ENTRIES ? next.slice(-MAX_ENTRIES) : next;
    return entry;
  }

  #remember(line: string, at: number): void {
    this.#session.push({ line, at });
    if (this.#session.length > MAX_SESSION) this.#session.splice(0, this.#session.length - MAX_SESSION);
    this.#pos = this.#session.length;
    this.#draft = '';
  }

  #save(): void {
    try {
      this.#deps.storage?.setItem(SESSION_KEY, JSON.stringify(this.#session));
    } catch {
      // full or disabled storage: the session lasts for this page
    }
  }

  #load(): SessionLine[] {
    try {
      const v: unknown = JSON.parse(this.#deps.storage?.getItem(SESSION_KEY) ?? '[]');
      if (!Array.isArray(v)) return [];
      return v
        .filter((s): s is SessionLine => typeof s === 'object' && s !== null && typeof s.line === 'string' && Number.isFinite(s.at))
        .slice(-MAX_SESSION);
    } catch {
      return [];
    }
  }
}
