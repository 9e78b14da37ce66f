// KeyBrowser: the Keys page's list. Cursor-based paging over Backend.keys (SCAN underneath):
// "Load more" asks for the next page, never the whole keyspace. A SCAN step may return few
// or no keys while the cursor is not done (sparse patterns), so one "Load more" runs a few
// steps until it has a page's worth, and stops there.

import type { BulkRequest, KeyFilter, PageQuery } from './backend/backend';
import type { BulkJob, KeyCount } from './api-types';
import { bytesId } from './bytes';
import type { Bytes, KeyDetail, KeyPage, KeyRow, PutKeyBody } from './types';

export type { PageQuery };

export type FetchPage = (q: PageQuery) => Promise<KeyPage>;

/** A listed key, with when it was listed (so its TTL can count down). */
export type ListedKey = KeyRow & { seen_at: number };

export interface BrowserOptions {
  /** Keys one "Load more" aims for. */
  pageSize?: number;
  /** SCAN `count` of the first request of a "Load more"; doubled on each further step. */
  scanCount?: number;
  /** Largest SCAN `count` a step grows to. */
  maxScanCount?: number;
  /** Most requests one "Load more" makes before handing back to the person... */
  maxSteps?: number;
  /** ...and the most time it spends (after its first request). */
  budgetMs?: number;
  /** Looks up one key by name in a database (a pattern without wildcards is looked up directly). */
  fetchKey?: (key: string, db: number) => Promise<KeyDetail | null>;
}

/** Whether a SCAN pattern has glob syntax; without any it names exactly one key. */
export function isGlob(pattern: string): boolean {
  return /[*?[\\]/.test(pattern);
}

export class KeyBrowser {
  pattern = $state('*');
  type = $state('');
  /** The database to search (SELECT's number). */
  db = $state(0);
  rows = $state.raw<ListedKey[]>([]);
  /** The cursor to continue from; "0" with `done` when the scan is complete. */
  cursor = $state('0');
  done = $state(false);
  /** Whether a search has run (the list is meaningful). */
  started = $state(false);
  loading = $state(false);
  error = $state<string | null>(null);
  /** Pattern and type of the rows shown (the inputs may have changed since). */
  shownPattern = $state('*');
  shownType = $state('');
  shownDb = $state(0);

  readonly #fetch: FetchPage;
  readonly #pageSize: number;
  readonly #scanCount: number;
  readonly #maxScanCount: number;
  readonly #maxSteps: number;
  readonly #budgetMs: number;
  readonly #fetchKey: (key: string, db: number) => Promise<KeyDetail | null>;
  #seen = new Set<string>();
  /** Bumped on every new search so answers to an older one are dropped. */
  #generation = 0;

  constructor(fetchPage: FetchPage, options: BrowserOptions = {}) {
    this.#fetch = fetchPage;
    this.#pageSize = options.pageSize ?? 100;
    this.#scanCount = options.scanCount ?? this.#pageSize;
    this.#maxScanCount = options.maxScanCount ?? 5000;
    this.#maxSteps = options.maxSteps ?? 25;
    this.#budgetMs = options.budgetMs ?? 1500;
    this.#fetchKey = options.fetchKey ?? (() => Promise.resolve(null));
  }

  /** Starts a new scan with the current pattern, type and database, from the first cursor. */
  async search(): Promise<void> {
    this.#generation++;
    this.rows = [];
    this.#seen = new Set();
    this.cursor = '0';
    this.done = false;
    this.started = true;
    this.shownPattern = this.pattern.trim() || '*';
    this.shownType = this.type;
    this.shownDb = this.db;
    this.loading = false;
    if (!isGlob(this.shownPattern)) {
      await this.#lookup(this.shownPattern);
      return;
    }
    await this.loadMore();
  }

  /** A pattern without wildcards: one GET for that key instead of a scan. */
  async #lookup(name: string): Promise<void> {
    const gen = this.#generation;
    this.loading = true;
    this.error = null;
    try {
      const d = await this.#fetchKey(name, this.shownDb);
      if (gen !== this.#generation) return;
      if (d && (!this.shownType || d.type === this.shownType)) this.upsert(d);
      this.done = true;
    } catch (e) {
      if (gen === this.#generation) this.error = e instanceof Error ? e.message : String(e);
    } finally {
      if (gen === this.#generation) this.loading = false;
    }
  }

  /** Loads the next page of keys (up to `pageSize`, in at most `maxSteps` SCAN steps). */
  async loadMore(): Promise<void> {
    if (this.loading || this.done) return;
    const gen = this.#generation;
    this.loading = true;
    this.error = null;
    const added: ListedKey[] = [];
    try {
      // A sparse pattern finds few keys per step: look at more of the keyspace each time.
      let count = this.#scanCount;
      const started = Date.now();
      for (
        let step = 0;
        step < this.#maxSteps && added.length < this.#pageSize && !this.done && (step === 0 || Date.now() - started < this.#budgetMs);
        step++, count = Math.min(count * 2, this.#maxScanCount)
      ) {
        const page = await this.#fetch({ match: this.shownPattern, type: this.shownType, cursor: this.cursor, count, db: this.shownDb });
        if (gen !== this.#generation) return;
        for (const row of page.keys) {
          const id = bytesId(row.key);
          // SCAN may return a key more than once.
          if (this.#seen.has(id)) continue;
          this.#seen.add(id);
          added.push({ ...row, seen_at: Date.now() });
        }
        this.cursor = page.cursor;
        this.done = page.done || page.cursor === '0';
      }
    } catch (e) {
      if (gen === this.#generation) this.error = e instanceof Error ? e.message : String(e);
    } finally {
      if (gen === this.#generation) {
        if (added.length) this.rows = [...this.rows, ...added];
        this.loading = false;
      }
    }
  }

  /** Drops a key from the list (after it was deleted). */
  remove(key: Bytes): void {
    const id = bytesId(key);
    this.rows = this.rows.filter((r) => bytesId(r.key) !== id);
    this.#seen.delete(id);
  }

  /** Updates or adds a key's row (after it was written). */
  upsert(d: KeyDetail): void {
    const id = bytesId(d.key);
    const row: ListedKey = { key: d.key, type: d.type, ttl_ms: d.ttl_ms, size: d.size, idle_ms: d.idle_ms, freq: d.freq, seen_at: Date.now() };
    if (this.#seen.has(id)) {
      this.rows = this.rows.map((r) => (bytesId(r.key) === id ? row : r));
    } else {
      this.#seen.add(id);
      this.rows = [row, ...this.rows];
    }
  }
}

/** How a write treats an existing key and its TTL. */
export interface PutOptions {
  seconds?: number;
  ms?: number;
  /** Create only: refused (409) when the key exists. */
  nx?: boolean;
  /** Keep the current TTL exactly (SET ... KEEPTTL). */
  keepTtl?: boolean;
}

/** The body of a string key's write (PUT /api/keys/{key}), with an optional TTL. */
export function putBody(value: Bytes, opts?: PutOptions): PutKeyBody {
  const body: PutKeyBody = { value };
  if (opts?.seconds !== undefined) body.ttl = opts.seconds;
  else if (opts?.ms !== undefined) body.ttl_ms = opts.ms;
  if (opts?.nx) body.nx = true;
  if (opts?.keepTtl) body.keep_ttl = true;
  return body;
}

// ---------------------------------------------------------------- bulk actions

/** The backend calls a bulk action needs (Backend's, so tests can pass fakes). */
export interface BulkApi {
  countKeys(f: KeyFilter): Promise<KeyCount>;
  startBulk(r: BulkRequest): Promise<BulkJob>;
  bulkJob(id: number): Promise<BulkJob>;
  cancelBulk(id: number): Promise<BulkJob>;
}

/** The preview of a bulk action in words: "1,234 keys match" or "about 1,200 keys match (an estimate…)". */
export function describeCount(c: KeyCount): string {
  const n = c.matched.toLocaleString('en-US');
  const keys = c.matched === 1 ? 'key matches' : 'keys match';
  if (c.exact) return `${n} ${keys} (exact: every key was looked at).`;
  return `About ${n} ${keys} (an estimate from ${c.scanned.toLocaleString('en-US')} of ${c.keys.toLocaleString('en-US')} keys).`;
}

/** Progress of a job between 0 and 1: keys done of those expected (or matched, when more). */
export function jobProgress(j: BulkJob): number {
  if (j.state === 'done') return 1;
  const total = Math.max(j.expected, j.matched);
  return total === 0 ? 0 : Math.min(1, j.done / total);
}

const VERBS: Record<BulkJob['action'], string> = { delete: 'deleted', expire: 'given a TTL', persist: 'made persistent' };

/** "120 of 3,000 keys deleted", and how the job ended. */
export function describeJob(j: BulkJob): string {
  const total = j.state === 'running' ? Math.max(j.expected, j.matched) : j.matched;
  const head = `${j.done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} keys ${VERBS[j.action]}`;
  switch (j.state) {
    case 'running':
      return j.paused ? `${head}; waiting for CLIENT PAUSE to end` : `${head}…`;
    case 'done':
      return `Done: ${head}.`;
    case 'cancelled':
      return `Cancelled: ${head}; the rest were left as they were.`;
    case 'failed':
      return `Stopped: ${head}. ${j.error ?? ''}`.trim();
  }
}

/** A bulk action on the Keys page: preview, confirm, run with progress, cancel. */
export class BulkRunner {
  count = $state.raw<KeyCount | null>(null);
  /** The request the count was made for (confirming runs exactly this). */
  counted = $state.raw<BulkRequest | null>(null);
  job = $state.raw<BulkJob | null>(null);
  error = $state<string | null>(null);
  busy = $state(false);

  readonly #api: BulkApi;
  readonly #pollMs: number;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** Called once a job ends (the list is searched again). */
  onfinish: (j: BulkJob) => void = () => {};

  constructor(api: BulkApi, pollMs = 250) {
    this.#api = api;
    this.#pollMs = pollMs;
  }

  get running(): boolean {
    return this.job?.state === 'running';
  }

  /** Counts what `r` would touch. */
  async preview(r: BulkRequest): Promise<void> {
    this.error = null;
    this.busy = true;
    try {
      this.count = await this.#api.countKeys({ match: r.match, type: r.type, db: r.db });
      this.counted = r;
    } catch (e) {
      this.count = null;
      this.counted = null;
      this.error = e instanceof Error ? e.message : String(e);
    } finally {
      this.busy = false;
    }
  }

  /** Starts the previewed request and follows it to its end. */
  async start(): Promise<void> {
    if (!this.counted) return;
    this.error = null;
    this.busy = true;
    try {
      this.job = await this.#api.startBulk(this.counted);
      this.count = null;
      this.counted = null;
      this.#follow();
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    } finally {
      this.busy = false;
    }
  }

  async cancel(): Promise<void> {
    if (!this.job) return;
    try {
      this.job = await this.#api.cancelBulk(this.job.id);
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  /** Forgets the preview (the filter changed). */
  clearPreview(): void {
    this.count = null;
    this.counted = null;
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #follow(): void {
    this.stop();
    this.#timer = setTimeout(async () => {
      this.#timer = null;
      const job = this.job;
      if (!job) return;
      try {
        // A cancel answered meanwhile may still see the last batch land: read until it ends.
        const next = await this.#api.bulkJob(job.id);
        if (this.job?.id !== job.id) return;
        this.job = next;
        if (next.state === 'running') this.#follow();
        else this.onfinish(next);
      } catch (e) {
        this.error = e instanceof Error ? e.message : String(e);
      }
    }, this.#pollMs);
  }
}

// ---------------------------------------------------------------- value formatters

/** The ways a string value can be shown. */
export type ValueFormat = 'text' | 'json' | 'hex';

/** The value pretty-printed as JSON, or null when it is not JSON (or is a bare scalar). */
export function prettyJson(text: string): string | null {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return null;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return null;
  }
}
