// Shapes of the admin API's JSON. The views both backends answer (stats, samples, keys,
// evictions, config, console) are generated from the engine's Rust types by ts-rs into
// ./api-types (scripts/gen-types; a cargo test fails when they drift), so the web is checked
// against what Rust emits. What only the server adds (persistence, benchmarks) and the request
// bodies are typed here.

import type { Bytes, StatsSnapshot as EngineSnapshot } from './api-types';

export type {
  Bytes,
  CommandInfo,
  CommandLatency,
  CommandStat,
  CompatRow,
  CompatView,
  ConfigParam,
  ConfigView,
  Effect,
  Group,
  DbKeyspace,
  ConsoleReply,
  DeleteResult,
  Departure,
  History,
  HostFacts,
  HotKeyRow,
  HotKeysView,
  KeyDetail,
  KeyEvent,
  KeyPage,
  KeyRow,
  KeysByType,
  LatencyEvent,
  LatencyView,
  MissesByCause,
  RecentEvents,
  Reply,
  Sample,
  ScriptCommandCount,
  ScriptDetail,
  ScriptRow,
  ScriptsView,
  SlowEntry,
  SlowLogView,
  StreamEntryView,
  StreamPage,
  StringBits,
  WhatIf,
  GeoPoints,
  GeoPointView,
} from './api-types';

/** GET /api/stats: the engine's snapshot, and on the server the append-only file's state. */
export type StatsSnapshot = EngineSnapshot & {
  /** The append-only file (added by the server next to the engine's snapshot). */
  persistence?: Persistence;
};

/** What the last start-up load of the append-only file found. */
export interface AofRecovery {
  file_bytes: number;
  blocks: number;
  commands: number;
  failed_commands: number;
  /** Where a torn tail was cut off (null when the file ended cleanly). */
  truncated_at: number | null;
  dropped_bytes: number;
  /** `vitrine`, `resp` (a plain RESP file), `rdb-preamble`, `redis-multi-part`, or '' (no file). */
  format: string;
  /** The file, or Redis's manifest, that was loaded. */
  source: string;
  /** The file whose tail was torn. */
  truncated_file: string | null;
  /** The fsynced copy of exactly the bytes cut off, and its size. */
  torn_copy: string | null;
  torn_copy_bytes: number;
  /** Where a plain RESP file was kept when Vitrine's own format replaced it. */
  kept_copy: string | null;
  /** Keys loaded from an RDB part (Redis's `aof-use-rdb-preamble yes`). */
  rdb_keys: number;
}

/** `persistence` in GET /api/stats: `{ enabled: false }` when `--appendonly no`. */
export type Persistence =
  | { enabled: false }
  | {
      enabled: true;
      appendfsync: string;
      path: string;
      file_size: number;
      base_size: number;
      rewrite_in_progress: boolean;
      rewrites: number;
      /** Unix ms when the last rewrite ended. */
      last_rewrite_ms: number | null;
      /** "ok" or "err: ..." */
      last_rewrite_status: string | null;
      /** Milliseconds since the oldest unsynced write (0 when everything is fsynced). */
      fsync_lag_ms: number;
      last_write_error: string | null;
      recovery: AofRecovery;
    };

export interface BenchParams {
  clients: number;
  pipeline: number;
  ratio: string;
  value_size: number;
  key_space: number;
  duration_s: number | null;
  requests: number | null;
}

export interface BenchSecond {
  t_s: number;
  ops: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface BenchResults {
  requests: number;
  errors: number;
  sets: number;
  gets: number;
  elapsed_s: number;
  ops_per_sec: number;
  latency_ms: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number };
  timeline: BenchSecond[];
}

export interface BenchImported {
  server: string | null;
  load: string | null;
  test: string | null;
  ops_per_sec: number | null;
  p50_ms: number | null;
  p90_ms: number | null;
  p99_ms: number | null;
  p999_ms: number | null;
  max_ms: number | null;
  cpu_us_per_op: number | null;
  extra?: Record<string, unknown>;
  fingerprint: string;
}

export type BenchStatus = 'running' | 'completed' | 'cancelled' | 'failed';

export interface BenchRun {
  id: number;
  source: 'builtin' | 'imported';
  status: BenchStatus;
  started_at_ms: number;
  finished_at_ms: number | null;
  params?: BenchParams;
  progress?: number;
  results?: BenchResults;
  error?: string;
  imported?: BenchImported;
}

/** What POST /api/bench accepts (all optional server-side). */
export interface BenchRequest {
  clients?: number;
  pipeline?: number;
  ratio?: string;
  value_size?: number;
  key_space?: number;
  duration_s?: number;
  requests?: number;
}

/** What PUT /api/keys/{key} takes (and the wasm `put_key`). */
export interface PutKeyBody {
  value: Bytes;
  /** Seconds. */
  ttl?: number;
  ttl_ms?: number;
  /** Create only: refused (409) when the key exists. */
  nx?: boolean;
  /** Keep the current TTL exactly (SET ... KEEPTTL). */
  keep_ttl?: boolean;
}
