import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './api';
import { BenchState, fullSeconds, runSummary, type BenchApi } from './bench.svelte';
import type { BenchRequest, BenchRun } from './types';

function run(id: number, over: Partial<BenchRun> = {}): BenchRun {
  return {
    id,
    source: 'builtin',
    status: 'completed',
    started_at_ms: 1000 * id,
    finished_at_ms: 1000 * id + 500,
    params: { clients: 50, pipeline: 1, ratio: '1:10', value_size: 64, key_space: 100000, duration_s: 10, requests: null },
    results: {
      requests: 1000,
      errors: 0,
      sets: 90,
      gets: 910,
      elapsed_s: 3.2,
      ops_per_sec: 100_000,
      latency_ms: { p50: 0.1, p90: 0.2, p99: 0.5, p999: 1, max: 2, mean: 0.12 },
      timeline: [],
    },
    ...over,
  };
}

class FakeBench implements BenchApi {
  runs: BenchRun[] = [];
  gets: BenchRun[] = [];
  started: BenchRequest[] = [];
  startError: Error | null = null;
  async list() {
    return this.runs;
  }
  async get(id: number) {
    const next = this.gets.shift();
    if (!next) throw new Error(`no scripted answer for run ${id}`);
    return next;
  }
  async start(req: BenchRequest) {
    this.started.push(req);
    if (this.startError) throw this.startError;
    return run(7, { status: 'running', progress: 0, results: undefined });
  }
  async cancel(id: number) {
    return run(id, { status: 'cancelled' });
  }
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('BenchState', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('starts a run and polls it until it finishes', async () => {
    const api = new FakeBench();
    api.runs = [run(1)];
    const b = new BenchState(api, 500);
    await b.open();
    expect(b.runs.map((r) => r.id)).toEqual([1]);
    await b.start({ clients: 4, duration_s: 2 });
    expect(api.started).toEqual([{ clients: 4, duration_s: 2 }]);
    expect(b.running).toBe(true);
    expect(b.runs.map((r) => r.id)).toEqual([7, 1]);

    api.gets.push(run(7, { status: 'running', progress: 0.5 }));
    await vi.advanceTimersByTimeAsync(500);
    expect(b.current?.progress).toBe(0.5);
    expect(b.running).toBe(true);

    api.gets.push(run(7, { status: 'completed' }));
    api.runs = [run(7), run(1)];
    await vi.advanceTimersByTimeAsync(500);
    await settle();
    expect(b.running).toBe(false);
    expect(b.current?.status).toBe('completed');
    expect(b.runs.map((r) => r.id)).toEqual([7, 1]);
    // no more polling
    await vi.advanceTimersByTimeAsync(5000);
    expect(api.gets).toHaveLength(0);
    b.close();
  });

  it('says a run is already in progress on 409 and follows that run', async () => {
    const api = new FakeBench();
    const b = new BenchState(api, 500);
    await b.open();
    api.startError = new ApiError(409, 'conflict', 'benchmark run 3 is still going');
    api.runs = [run(3, { status: 'running', progress: 0.2 })];
    api.gets.push(run(3, { status: 'running', progress: 0.3 }));
    await b.start({});
    expect(b.error).toBe('A run is already in progress. Wait for it to finish or cancel it.');
    expect(b.current?.id).toBe(3);
    expect(b.running).toBe(true);
    b.close();
  });

  it('shows other errors as the server wrote them', async () => {
    const api = new FakeBench();
    api.startError = new ApiError(422, 'invalid_parameter', 'clients must be between 1 and 512');
    const b = new BenchState(api);
    await b.open();
    await b.start({ clients: 9999 });
    expect(b.error).toBe('clients must be between 1 and 512');
    expect(b.starting).toBe(false);
    b.close();
  });

  it('cancels the running run', async () => {
    const api = new FakeBench();
    const b = new BenchState(api, 500);
    await b.open();
    await b.start({});
    await b.cancel();
    expect(b.current?.status).toBe('cancelled');
    b.close();
  });

  it('follows a run already going when the page opens, and stops polling when it closes', async () => {
    const api = new FakeBench();
    api.runs = [run(5, { status: 'running' })];
    api.gets.push(run(5, { status: 'running', progress: 0.1 }));
    const b = new BenchState(api, 500);
    await b.open();
    expect(b.current?.id).toBe(5);
    b.close();
    await vi.advanceTimersByTimeAsync(5000);
    expect(b.current?.progress).toBe(0.1);
  });

  it('summarizes built-in and imported runs alike', () => {
    expect(runSummary(run(1))).toMatchObject({ opsPerSec: 100_000, p50: 0.1, p99: 0.5, label: '50 clients · pipeline 1 · 1:10 · 64 B' });
    const imported = run(2, {
      source: 'imported',
      params: undefined,
      results: undefined,
      imported: { server: 'redis', load: 'zipf', test: 'get', ops_per_sec: 5, p50_ms: 1, p90_ms: null, p99_ms: 2, p999_ms: null, max_ms: null, cpu_us_per_op: null, fingerprint: 'x' },
    });
    expect(runSummary(imported)).toMatchObject({ opsPerSec: 5, p99: 2, label: 'redis · get · zipf' });
  });

  it('leaves the partial last second out of a finished run', () => {
    const timeline = [0, 1, 2, 3].map((t_s) => ({ t_s, ops: 100, p50_ms: 0.1, p99_ms: 0.2, max_ms: 1 }));
    const done = run(1, { results: { ...run(1).results!, elapsed_s: 3.01, timeline } });
    expect(fullSeconds(done).map((s) => s.t_s)).toEqual([0, 1, 2]);
    expect(fullSeconds({ ...done, status: 'running' })).toHaveLength(4);
    expect(fullSeconds(null)).toEqual([]);
  });
});
