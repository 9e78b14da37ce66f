// StatsFeed: the dashboard's live view of the backend. On start it back-fills the last 15
// minutes of samples (GET /api/stats/history), then follows the stream (GET /api/stats/stream,
// or the wasm backend's timer: one sample a second). It keeps a bounded ring of samples; when the stream drops (or goes quiet) it
// marks itself disconnected, reconnects by itself with exponential backoff, and back-fills
// the samples it missed.

import type { FeedSource } from './backend/backend';
import type { Sample } from './types';

export type { FeedSource };

export interface FeedOptions {
  /** Samples kept (one a second): 900 = 15 minutes. */
  capacity?: number;
  /** First reconnect delay; doubles on each failure up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** No sample for this long means the stream is dead even if the socket is open. */
  staleAfterMs?: number;
}

export type FeedStatus = 'idle' | 'connecting' | 'live' | 'reconnecting';

export class StatsFeed {
  /** Samples, oldest first, at most `capacity`. Replaced (never mutated) on each change. */
  samples = $state.raw<Sample[]>([]);
  status = $state<FeedStatus>('idle');
  /** True while samples are arriving from the stream. */
  connected = $derived(this.status === 'live');
  /** When the next reconnect attempt happens (ms since epoch), while reconnecting. */
  retryAt = $state<number | null>(null);
  /** The last error, for the banner's details. */
  error = $state<string | null>(null);
  latest = $derived<Sample | null>(this.samples.length ? this.samples[this.samples.length - 1] : null);

  readonly capacity: number;
  readonly #source: FeedSource;
  readonly #initialBackoff: number;
  readonly #maxBackoff: number;
  readonly #staleAfter: number | null;
  #failures = 0;
  #controller: AbortController | null = null;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #staleTimer: ReturnType<typeof setTimeout> | null = null;
  #running = false;
  #wasDown = false;
  #reconnectListeners = new Set<() => void>();

  constructor(source: FeedSource, options: FeedOptions = {}) {
    this.#source = source;
    this.capacity = options.capacity ?? 900;
    this.#initialBackoff = options.initialBackoffMs ?? 1000;
    this.#maxBackoff = options.maxBackoffMs ?? 15_000;
    this.#staleAfter = options.staleAfterMs ?? (source.stalls === false ? null : 5000);
  }

  /** Starts following the server (idempotent). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#connect();
  }

  /** Stops following and cancels any pending reconnect. Samples are kept. */
  stop(): void {
    this.#running = false;
    this.#controller?.abort();
    this.#controller = null;
    this.#clearTimers();
    this.retryAt = null;
    this.status = 'idle';
  }

  /** Reconnects now instead of waiting for the backoff (the banner's "Retry now"). */
  retryNow(): void {
    if (!this.#running || this.status !== 'reconnecting') return;
    this.#clearTimers();
    this.retryAt = null;
    void this.#connect();
  }

  /** The delay before reconnect attempt number `failures` (1-based). */
  backoff(failures: number): number {
    return Math.min(this.#maxBackoff, this.#initialBackoff * 2 ** Math.max(0, failures - 1));
  }

  /** Adds samples (oldest first), dropping any not newer than what we have, keeping the ring bounded. */
  add(batch: Sample[]): void {
    const lastT = this.latest?.t_ms ?? -Infinity;
    const fresh: Sample[] = [];
    let t = lastT;
    for (const s of batch) {
      if (s.t_ms > t) {
        fresh.push(s);
        t = s.t_ms;
      }
    }
    if (fresh.length === 0) return;
    const merged = this.samples.length + fresh.length > this.capacity ? [...this.samples, ...fresh].slice(-this.capacity) : [...this.samples, ...fresh];
    this.samples = merged;
  }

  async #connect(): Promise<void> {
    const controller = new AbortController();
    this.#controller = controller;
    if (this.status !== 'reconnecting') this.status = 'connecting';
    try {
      await this.#backfill(controller.signal);
      if (controller.signal.aborted) return;
      this.#armStale(controller);
      await this.#source.stream((s) => this.#onSample(s, controller), controller.signal);
      this.error = 'The stats stream ended.';
    } catch (e) {
      if (!this.#running || this.#controller !== controller) return;
      this.error = controller.signal.aborted ? 'No stats for a while: the stream stalled.' : e instanceof Error ? e.message : String(e);
    } finally {
      if (this.#staleTimer) clearTimeout(this.#staleTimer);
      this.#staleTimer = null;
    }
    if (!this.#running || this.#controller !== controller) return;
    controller.abort();
    this.#scheduleReconnect();
  }

  async #backfill(signal: AbortSignal): Promise<void> {
    const latest = this.latest;
    // First load: the whole window. After a drop: only what was missed (plus a little).
    const seconds = latest ? Math.ceil((Date.now() - latest.t_ms) / 1000) + 2 : this.capacity;
    try {
      this.add(await this.#source.history(Math.min(Math.max(seconds, 1), this.capacity), signal));
    } catch (e) {
      if (signal.aborted) throw e;
      // History is a nicety; the stream decides whether the server is there.
    }
  }

  /** Calls `fn` each time the stream is back after a drop (e.g. to reload server facts). */
  onReconnect(fn: () => void): () => void {
    this.#reconnectListeners.add(fn);
    return () => this.#reconnectListeners.delete(fn);
  }

  #onSample(s: Sample, controller: AbortController): void {
    if (this.#controller !== controller) return;
    this.add([s]);
    if (this.#wasDown) {
      this.#wasDown = false;
      for (const fn of this.#reconnectListeners) fn();
    }
    this.#failures = 0;
    this.error = null;
    this.retryAt = null;
    this.status = 'live';
    this.#armStale(controller);
  }

  #armStale(controller: AbortController): void {
    if (this.#staleTimer) clearTimeout(this.#staleTimer);
    if (this.#staleAfter !== null) this.#staleTimer = setTimeout(() => controller.abort(), this.#staleAfter);
  }

  #scheduleReconnect(): void {
    this.#failures++;
    this.#wasDown = true;
    const delay = this.backoff(this.#failures);
    this.status = 'reconnecting';
    this.retryAt = Date.now() + delay;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      this.retryAt = null;
      if (this.#running) void this.#connect();
    }, delay);
  }

  #clearTimers(): void {
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    if (this.#staleTimer) clearTimeout(this.#staleTimer);
    this.#retryTimer = null;
    this.#staleTimer = null;
  }
}
