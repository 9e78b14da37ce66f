// The Monitor page's feed: the commands the cache runs, polled from Backend.monitor (the
// server's GET /api/monitor, the playground's engine ring) into a bounded buffer, with pause
// and filters by command, key pattern and client. Pure parts (matching, the buffer's bound)
// are plain functions, tested on their own.

import type { MonitorEventView } from './api-types';

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

/** Polls the backend's monitor while open; holds the last MONITOR_BUFFER commands. */
export class MonitorFeed {
  events = $state.raw<MonitorEventView[]>([]);
  paused = $state(false);
  error = $state<string | null>(null);
  /** Commands that arrived while paused (shown when resumed). */
  missed = $state(0);

  readonly #fetch: (since: number) => Promise<{ events: MonitorEventView[]; last_seq: number }>;
  readonly #intervalMs: number;
  #since = 0;
  #held: MonitorEventView[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #open = false;

  constructor(fetch: (since: number) => Promise<{ events: MonitorEventView[]; last_seq: number }>, intervalMs = 500) {
    this.#fetch = fetch;
    this.#intervalMs = intervalMs;
  }

  /**
   * Starts polling; the first poll brings what the engine's ring holds (it records only while
   * somebody reads it, so that is what ran since the page was last open, if lately).
   */
  open(): void {
    if (this.#open) return;
    this.#open = true;
    void this.#first();
  }

  close(): void {
    this.#open = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
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

  async #first(): Promise<void> {
    try {
      const view = await this.#fetch(0);
      this.#since = view.last_seq;
      this.events = appendBounded([], view.events);
      this.error = null;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
    this.#schedule();
  }

  /** One poll (also what the timer runs). */
  async poll(): Promise<void> {
    try {
      const view = await this.#fetch(this.#since);
      this.#since = view.last_seq;
      this.error = null;
      if (view.events.length === 0) return;
      if (this.paused) {
        this.#held = appendBounded(this.#held, view.events);
        this.missed += view.events.length;
      } else {
        this.events = appendBounded(this.events, view.events);
      }
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  #schedule(): void {
    if (!this.#open) return;
    this.#timer = setTimeout(async () => {
      await this.poll();
      this.#schedule();
    }, this.#intervalMs);
  }
}
