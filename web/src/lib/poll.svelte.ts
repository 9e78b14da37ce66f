// Poll: a view fetched now and again every couple of seconds while a page is open (the
// Evictions page's recent events, the Slow log, Latency).

export class Poll<T> {
  data = $state.raw<T | null>(null);
  error = $state<string | null>(null);
  /** Browser time when `data` arrived. */
  receivedAt = $state(0);

  readonly #intervalMs: number;
  readonly #fetch: () => Promise<T>;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #open = false;

  constructor(fetch: () => Promise<T>, intervalMs = 2000) {
    this.#intervalMs = intervalMs;
    this.#fetch = fetch;
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

  /** Shows a body another request already answered (DELETE /api/slowlog's). */
  set(data: T): void {
    this.data = data;
    this.receivedAt = Date.now();
    this.error = null;
  }

  /** Shows what `request` answers (a DELETE's emptied view), or its error in `error`. */
  async apply(request: () => Promise<T>): Promise<void> {
    try {
      this.set(await request());
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  async #tick(): Promise<void> {
    await this.refresh();
    if (this.#open) this.#timer = setTimeout(() => void this.#tick(), this.#intervalMs);
  }
}
