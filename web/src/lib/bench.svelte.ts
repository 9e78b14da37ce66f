// BenchState: the Benchmarks page. Starts a run (POST /api/bench), follows it by polling
// GET /api/bench/{id} while it runs (progress, per-second timeline), and keeps the history
// (GET /api/bench) for the comparison chart.

import { ApiError, api } from './api';
import type { BenchRequest, BenchRun, BenchSecond } from './types';

export interface BenchApi {
  list(): Promise<BenchRun[]>;
  get(id: number): Promise<BenchRun>;
  start(req: BenchRequest): Promise<BenchRun>;
  cancel(id: number): Promise<BenchRun>;
}

export const httpBenchApi: BenchApi = {
  list: async () => (await api<{ runs: BenchRun[] }>('/api/bench')).runs,
  get: (id) => api<BenchRun>(`/api/bench/${id}`),
  start: (req) => api<BenchRun>('/api/bench', { method: 'POST', body: req }),
  cancel: (id) => api<BenchRun>(`/api/bench/${id}`, { method: 'DELETE' }),
};

/** Ops/sec and latencies of any run, built-in or imported, for lists and charts. */
export function runSummary(run: BenchRun): { opsPerSec: number | null; p50: number | null; p99: number | null; label: string } {
  if (run.results) {
    const p = run.params;
    const label = p ? `${p.clients} clients · pipeline ${p.pipeline} · ${p.ratio} · ${p.value_size} B` : `run ${run.id}`;
    return { opsPerSec: run.results.ops_per_sec, p50: run.results.latency_ms.p50, p99: run.results.latency_ms.p99, label };
  }
  if (run.imported) {
    const i = run.imported;
    const label = [i.server, i.test, i.load].filter(Boolean).join(' · ') || `imported ${run.id}`;
    return { opsPerSec: i.ops_per_sec, p50: i.p50_ms, p99: i.p99_ms, label };
  }
  return { opsPerSec: null, p50: null, p99: null, label: `run ${run.id}` };
}

/**
 * The seconds of a run worth charting: a finished run's last second is usually partial (the
 * run stopped inside it), so its count is not a rate; leave it out.
 */
export function fullSeconds(run: BenchRun | null): BenchSecond[] {
  const timeline = run?.results?.timeline ?? [];
  if (!run || run.status === 'running' || !run.results) return timeline;
  const elapsed = run.results.elapsed_s;
  return timeline.filter((s) => s.t_s + 1 <= elapsed + 0.05);
}

export class BenchState {
  runs = $state.raw<BenchRun[]>([]);
  /** The run shown in detail: the one running, or one picked from history (with its timeline). */
  current = $state.raw<BenchRun | null>(null);
  starting = $state(false);
  error = $state<string | null>(null);
  loaded = $state(false);
  running = $derived(this.current?.status === 'running');

  readonly #api: BenchApi;
  readonly #pollMs: number;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #active = false;

  constructor(benchApi: BenchApi = httpBenchApi, pollMs = 500) {
    this.#api = benchApi;
    this.#pollMs = pollMs;
  }

  /** Page shown: loads the history and follows a run already going. */
  async open(): Promise<void> {
    this.#active = true;
    await this.refresh();
    const running = this.runs.find((r) => r.status === 'running');
    if (running && this.#active) await this.#follow(running.id);
  }

  /** Page hidden: stops polling. */
  close(): void {
    this.#active = false;
    this.#stopPolling();
  }

  async refresh(): Promise<void> {
    try {
      this.runs = await this.#api.list();
      this.loaded = true;
    } catch (e) {
      this.error = messageOf(e);
    }
  }

  async start(req: BenchRequest): Promise<void> {
    this.error = null;
    this.starting = true;
    try {
      const run = await this.#api.start(req);
      this.current = run;
      this.runs = [run, ...this.runs.filter((r) => r.id !== run.id)];
      this.#schedule(run.id);
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) {
        this.error = 'A run is already in progress. Wait for it to finish or cancel it.';
        await this.refresh();
        const running = this.runs.find((r) => r.status === 'running');
        if (running) await this.#follow(running.id);
      } else {
        this.error = messageOf(e);
      }
    } finally {
      this.starting = false;
    }
  }

  async cancel(): Promise<void> {
    const run = this.current;
    if (!run || run.status !== 'running') return;
    try {
      this.current = await this.#api.cancel(run.id);
      if (this.current.status !== 'running') await this.refresh();
    } catch (e) {
      this.error = messageOf(e);
    }
  }

  /** Shows a run from history in detail (fetches its timeline). */
  async show(id: number): Promise<void> {
    await this.#follow(id);
  }

  async #follow(id: number): Promise<void> {
    this.#stopPolling();
    try {
      const run = await this.#api.get(id);
      this.current = run;
      if (run.status === 'running') this.#schedule(id);
    } catch (e) {
      this.error = messageOf(e);
    }
  }

  #schedule(id: number): void {
    this.#stopPolling();
    if (!this.#active) return;
    this.#timer = setTimeout(() => void this.#poll(id), this.#pollMs);
  }

  async #poll(id: number): Promise<void> {
    this.#timer = null;
    try {
      const run = await this.#api.get(id);
      if (this.current && this.current.id !== id) return; // the person picked another run
      this.current = run;
      if (run.status === 'running') {
        this.#schedule(id);
      } else {
        this.runs = this.runs.map((r) => (r.id === id ? { ...run, results: run.results && { ...run.results, timeline: [] } } : r));
        await this.refresh();
      }
    } catch (e) {
      this.error = messageOf(e);
      // The server may be restarting: keep trying while the page is open.
      this.#schedule(id);
    }
  }

  #stopPolling(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
