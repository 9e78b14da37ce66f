// The Monitor page's feed: the commands the cache runs, in a bounded buffer, with pause and
// filters by command, key pattern and client. Where the backend streams them (the server's
// GET /api/monitor/stream) the feed follows the stream, catching up once through
// Backend.monitor each time it (re)connects, since a stream brings only what runs after it
// opened; it reconnects with backoff when the stream drops, and polls (GET /api/monitor?since=)
// only when the stream cannot be opened. Without a stream (the playground's engine ring) it
// polls. Pure parts (matching, the buffer's bound) are plain functions, tested on their own.

import type { MonitorEventView, MonitorView } from './api-types';

/** Commands kept on the page; older ones scroll away. */
export const MONITOR_BUFFER = 500;

export interface MonitorFilter {
  /** Command names, comma- or space-separated, any case (`get, set`); empty = all. */
  commands: string;
  /** A glob (`user:*`) the command's first argument (its key, for most) must match; empty = all. */
  key: string;
  /** Part of the client's address, name or id; empty = all. */
  client: string;
}

/** An argument as the monitor quoted it (`"user:1"`), unquoted for matching. */
export function unquote(arg: string): string {
  return arg.startsWith('"') && arg.endsWith('"') && arg.length >= 2 ? arg.slice(1, -1).replace(/\\(.)/g, '$1') : arg;
}

/** Redis-style glob: `*`, `?`, `[abc]`, and `\` escapes. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '\\' && i + 1 < glob.length) re += glob[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        re += `[${glob.slice(i + 1, end).replace(/^\^/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

/** Whether an event passes the filter. */
export function matches(e: MonitorEventView, f: MonitorFilter): boolean {
  const names = f.commands
    .split(/[\s,]+/)
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  if (names.length && !names.includes(e.command) && !names.includes(e.command.split('|')[0])) return false;
  if (f.key.trim()) {
    const first = e.args[0];
    if (first === undefined || !globToRegExp(f.key.trim()).test(unquote(first))) return false;
  }
  const who = f.client.trim().toLowerCase();
  if (who && !`${e.addr} ${e.client_name ?? ''} ${e.client_id}`.toLowerCase().includes(who)) return false;
  return true;
}

/** `kept` plus `incoming`, newest last, at most `limit`. */
export function appendBounded<T>(kept: readonly T[], incoming: readonly T[], limit = MONITOR_BUFFER): T[] {
  const all = kept.concat(incoming);
  return all.length > limit ? all.slice(all.length - limit) : all;
}

/** Where the commands come from: Backend.monitor and, when it has one, Backend.monitorStream. */
export interface MonitorSource {
  /** The commands after event `since`, oldest first. */
  poll(since: number): Promise<MonitorView>;
  /** See Backend.monitorStream. */
  stream?(onView: (v: MonitorView) => void, signal: AbortSignal, onOpen: () => void): Promise<void>;
}

export interface MonitorOptions {
  /** How often to poll, without a stream or after it failed. */
  intervalMs?: number;
  /** First reconnect delay after the stream drops; doubles on each failure up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Attempts in a row that fail to open the stream before the feed polls instead. */
  streamAttempts?: number;
}

/** How the feed gets its commands now: following the stream, or polling. */
export type MonitorVia = 'stream' | 'poll' | null;

/** Follows (or polls) the backend's monitor while open; holds the last MONITOR_BUFFER commands. */
export class MonitorFeed {
  events = $state.raw<MonitorEventView[]>([]);
  paused = $state(false);
  error = $state<string | null>(null);
  /** Commands that arrived while paused (shown when resumed). */
  missed = $state(0);
  /** 'stream' while the stream is up, 'poll' after falling back (or without a stream). */
  via = $state<MonitorVia>(null);

  readonly #source: MonitorSource;
  readonly #intervalMs: number;
  readonly #initialBackoff: number;
  readonly #maxBackoff: number;
  readonly #attempts: number;
  /** The newest event taken (`since` for the next poll); later ones only are new. */
  #since = 0;
  #held: MonitorEventView[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #controller: AbortController | null = null;
  /** Stream attempts in a row that did not open. */
  #failures = 0;
  #open = false;

  constructor(source: MonitorSource | ((since: number) => Promise<MonitorView>), options: MonitorOptions = {}) {
    this.#source = typeof source === 'function' ? { poll: source } : source;
    this.#intervalMs = options.intervalMs ?? 500;
    this.#initialBackoff = options.initialBackoffMs ?? 1000;
    this.#maxBackoff = options.maxBackoffMs ?? 15_000;
    this.#attempts = options.streamAttempts ?? 3;
  }

  /**
   * Starts following; the first catch-up brings what the engine's ring holds (it records only
   * while somebody reads it, so that is what ran since the page was last open, if lately).
   */
  open(): void {
    if (this.#open) return;
    this.#open = true;
    this.#failures = 0;
    if (this.#source.stream) void this.#follow();
    else void this.#startPolling();
  }

  close(): void {
    this.#open = false;
    this.#controller?.abort();
    this.#controller = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.via = null;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.events = appendBounded(this.events, this.#held);
    this.#held = [];
    this.missed = 0;
  }

  clear(): void {
    this.events = [];
    this.#held = [];
    this.missed = 0;
  }

  /** One poll (also what the polling timer runs). */
  async poll(): Promise<void> {
    try {
      this.#take(await this.#source.poll(this.#since));
      this.error = null;
    } catch (e) {
      this.error = message(e);
    }
  }

  /** The delay before reconnect attempt number `failures` (1-based). */
  backoff(failures: number): number {
    return Math.min(this.#maxBackoff, this.#initialBackoff * 2 ** Math.max(0, failures - 1));
  }

  /** Adds a batch: only events newer than the last one taken, held while paused. */
  #take(view: MonitorView): void {
    // A counter behind ours: the server restarted, and numbers its commands from 1 again.
    if (view.last_seq < this.#since) this.#since = 0;
    const fresh = view.events.filter((e) => e.seq > this.#since);
    this.#since = Math.max(this.#since, view.last_seq);
    if (fresh.length === 0) return;
    if (this.paused) {
      this.#held = appendBounded(this.#held, fresh);
      this.missed += fresh.length;
    } else {
      this.events = appendBounded(this.events, fresh);
    }
  }

  /** One stream connection: catch up when it opens, then take what it brings until it ends. */
  async #follow(): Promise<void> {
    const stream = this.#source.stream;
    if (!stream || !this.#open) return;
    const controller = new AbortController();
    this.#controller = controller;
    let opened = false;
    // Batches that arrive before the catch-up has answered wait for it, to stay in order.
    let early: MonitorView[] | null = [];
    const onOpen = () => {
      if (this.#controller !== controller) return;
      opened = true;
      this.#failures = 0;
      this.via = 'stream';
      this.error = null;
      void this.#source
        .poll(this.#since)
        .then(
          (view) => this.#controller === controller && this.#take(view),
          () => {}, // the catch-up is a nicety; the stream decides whether the server is there
        )
        .finally(() => {
          const waiting = early ?? [];
          early = null;
          if (this.#controller === controller) for (const v of waiting) this.#take(v);
        });
    };
    const onView = (v: MonitorView) => {
      if (this.#controller !== controller) return;
      if (early) early.push(v);
      else this.#take(v);
    };
    let why: string;
    try {
      await stream(onView, controller.signal, onOpen);
      why = 'The monitor stream ended.';
    } catch (e) {
      why = message(e);
    }
    if (!this.#open || this.#controller !== controller) return;
    controller.abort();
    this.#controller = null;
    if (!opened) this.#failures++;
    if (!opened && this.#failures >= this.#attempts) {
      // The stream cannot be had here (a proxy that buffers, an older server): poll instead.
      this.error = null;
      void this.#startPolling();
      return;
    }
    this.via = null;
    this.error = `${why} Reconnecting…`;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#follow();
    }, this.backoff(Math.max(1, this.#failures)));
  }

  async #startPolling(): Promise<void> {
    this.via = 'poll';
    await this.poll();
    this.#schedule();
  }

  #schedule(): void {
    if (!this.#open) return;
    this.#timer = setTimeout(async () => {
      await this.poll();
      this.#schedule();
    }, this.#intervalMs);
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
