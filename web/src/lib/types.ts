// Shapes of the admin API's JSON (see server/src/http/openapi.json). Only what the dashboard
// reads is typed strictly; everything else is left open.

/** A binary-safe byte string: valid UTF-8 as a plain string, other bytes as base64. */
export type Bytes = string | { base64: string };

/** Key counts by type. Today only `string`; more types arrive with more data types. */
export type KeysByType = Record<string, number>;

/** One per-second sample (GET /api/stats/history, the `sample` SSE event). */
export interface Sample {
  t_ms: number;
  uptime_s: number;
  used_memory: number;
  maxmemory: number;
  rss_bytes: number;
  allocator_bytes: number;
  keys: number;
  keys_with_ttl: number;
  keys_by_type: KeysByType;
  connected_clients: number;
  ops_per_sec: number;
  net_input_per_sec: number;
  net_output_per_sec: number;
  commands_processed: number;
  hits: number;
  misses: number;
  misses_never_seen: number;
  misses_expired: number;
  misses_evicted: number;
  evicted_keys: number;
  expired_keys: number;
  hit_ratio: number;
  hits_per_sec: number;
  misses_per_sec: number;
  misses_never_seen_per_sec: number;
  misses_expired_per_sec: number;
  misses_evicted_per_sec: number;
  evicted_per_sec: number;
  expired_per_sec: number;
  hit_ratio_interval: number | null;
}

export interface History {
  interval_ms: number;
  samples: Sample[];
}

/** GET /api/stats: the engine's StatsSnapshot. */
export interface StatsSnapshot {
  version: string;
  now_ms: number;
  uptime_s: number;
  used_memory: number;
  maxmemory: number;
  maxmemory_policy: string;
  maxmemory_samples: number;
  keys: number;
  keys_with_ttl: number;
  keys_by_type: KeysByType;
  hits: number;
  misses: number;
  misses_never_seen: number;
  misses_expired: number;
  misses_evicted: number;
  hit_ratio: number;
  expired_keys: number;
  evicted_keys: number;
  rejected_oom: number;
  commands_processed: number;
  ops_per_sec: number;
  connected_clients: number;
  host: { process_id: number; tcp_port: number; rss_bytes: number; allocator_bytes: number; threads: number };
  commands: { name: string; calls: number; failed: number }[];
  /** The append-only file (added by the server next to the engine's snapshot). */
  persistence?: Persistence;
  [more: string]: unknown;
}

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

/** One eviction or expiration (GET /api/evictions/recent). */
export interface KeyEvent {
  kind: 'evicted' | 'expired';
  /** The key's first 200 bytes (binary-safe: a string, or {base64}). */
  key: Bytes;
  policy: string | null;
  idle_ms: number;
  freq: number;
  size: number;
  at_ms: number;
}

export interface RecentEvents {
  now_ms: number;
  policy: string;
  evicted_keys: number;
  expired_keys: number;
  events: KeyEvent[];
}

/** One key in a listing (GET /api/keys). */
export interface KeyRow {
  key: Bytes;
  type: string;
  /** Milliseconds left, or null when the key has no TTL. */
  ttl_ms: number | null;
  size: number;
}

export interface KeyPage {
  cursor: string;
  done: boolean;
  keys: KeyRow[];
}

/** GET /api/keys/{key}. */
export interface KeyDetail {
  key: Bytes;
  type: string;
  encoding: string;
  ttl_ms: number | null;
  expire_at_ms: number | null;
  size: number;
  idle_ms: number;
  freq: number;
  /** Full length in bytes for strings (the value may be cut, see `truncated`). */
  length: number;
  truncated: boolean;
  /** A string value is Bytes; other types are JSON arrays/objects. */
  value: unknown;
}

/** A reply of POST /api/command, tagged with its RESP type (engine/src/reply_json.rs). */
export type Reply =
  | { type: 'status'; value: string }
  | { type: 'error'; value: string }
  | { type: 'int'; value: number | string }
  | { type: 'bulk'; value: Bytes }
  | { type: 'nil' }
  | { type: 'array'; value: Reply[] }
  | { type: 'set'; value: Reply[] }
  | { type: 'map'; value: [Reply, Reply][] }
  | { type: 'double'; value: number | string }
  | { type: 'bool'; value: boolean }
  | { type: 'verbatim'; format: string; value: string };

/** One row of GET /api/commands. */
export interface CommandInfo {
  name: string;
  arity: number;
  flags: string[];
  first_key: number;
  last_key: number;
  step: number;
  group: string;
  summary: string;
  syntax: string;
  /** A container's subcommands (CLIENT, CONFIG, ...), each named as typed: `CLIENT LIST`. */
  subcommands?: CommandInfo[];
}

export interface ConfigView {
  config: Record<string, string>;
  writable: string[];
}

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
