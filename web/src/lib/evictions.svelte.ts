// RecentEvents: recent evictions and expirations (Backend.recentEvents), refreshed every couple of seconds while the
// Evictions page is open.

import type { RecentEvents as RecentEventsBody } from './types';

export class RecentEvents {
  data = $state.raw<RecentEventsBody | null>(null);
  error = $state<string | null>(null);
  /** Browser time when `data` arrived (ages are computed against the server's now_ms). */
  receivedAt = $state(0);

  readonly #intervalMs: number;
  readonly #fetch: () => Promise<RecentEventsBody>;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #open = false;

  constructor(fetchRecent: () => Promise<RecentEventsBody>, intervalMs = 2000) {
    this.#intervalMs = intervalMs;
    this.#fetch = fetchRecent;
  }

  open(): void {
    if (this.#open) return;
    this.#open = true;
    void this.#tick();
  }

  close(): void {
    this.#open = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  async refresh(): Promise<void> {
    try {
      this.data = await this.#fetch();
      this.receivedAt = Date.now();
      this.error = null;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  async #tick(): Promise<void> {
    await this.refresh();
    if (this.#open) this.#timer = setTimeout(() => void this.#tick(), this.#intervalMs);
  }
}
