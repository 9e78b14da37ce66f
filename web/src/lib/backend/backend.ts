// Backend: where the dashboard's data comes from. Two implementations answer it with the same
// JSON (both built once, by the engine's `inspect` module): HttpBackend, the admin API of a
// running server with its SSE stats stream, and WasmBackend, the engine compiled to
// WebAssembly in this tab with a timer for its samples and expiry cycle. Pages get one
// through context (app.svelte.ts) and never know which.
//
// What only one of them can do is an optional member, read as a feature: `bench` (the server
// runs benchmarks), `auth` (the server asks for a token), `persistence` (an append-only file),
// `playground` (a session kept in the tab, replayable from a share link).

import type { AclLogView, AclUserView, MeView } from '../acl';
import type { Auth } from '../auth.svelte';
import type { BenchApi } from '../bench.svelte';
import type {
  BulkJob,
  ClientsView,
  ConflictMode,
  FileFormat,
  ImportReport,
  EditResult,
  KeyCount,
  KeyEdit,
  MemoryView,
  KeyspaceEventsView,
  MonitorView,
  RunningScriptView,
} from '../api-types';
import type {
  Bytes,
  CommandInfo,
  ConfigView,
  ConsoleReply,
  KeyDetail,
  KeyPage,
  LatencyView,
  CompatView,
  HotKeysView,
  PutKeyBody,
  RecentEvents,
  Reply,
  ScriptDetail,
  ScriptsView,
  WhatIf,
  Sample,
  SlowLogView,
  StatsSnapshot,
  StreamPage,
  GeoPoints,
  StringBits,
} from '../types';

/** One SCAN step's query (GET /api/keys). */
export interface PageQuery {
  match: string;
  type: string;
  cursor: string;
  count: number;
  /** The database to scan (0 when absent). */
  db?: number;
}

/** A window of a string's bytes to show as bits (GET /api/string-bits/{key}). */
export interface StringBitsQuery {
  /** The window's first byte. */
  offset: number;
  /** Bytes in the window. */
  count: number;
}

/** One page of a stream's entries (GET /api/stream-entries/{key}). */
export interface StreamEntriesQuery {
  order: 'newest' | 'oldest';
  /** The last ID of the previous page; empty for the first. */
  cursor: string;
  count: number;
}

/** Which keys a count or a bulk job covers (GET /api/key-count). */
export interface KeyFilter {
  match: string;
  type: string;
  db: number;
}

/** What starts a bulk job (POST /api/key-jobs). */
export interface BulkRequest extends KeyFilter {
  action: 'delete' | 'expire' | 'persist';
  /** Seconds, for `expire` only. */
  ttl?: number;
}

/** The body of POST /api/key-jobs (and the wasm `bulk_start`): the default match, type and db left out. */
export function bulkBody(r: BulkRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { action: r.action };
  if (r.match && r.match !== '*') body.match = r.match;
  if (r.type) body.type = r.type;
  if (r.db) body.db = r.db;
  if (r.action === 'expire') body.ttl = r.ttl;
  return body;
}

/** What POST /api/key-export exports: the keys named, or those matching `match`/`type`. */
export interface ExportRequest {
  db: number;
  format: FileFormat;
  keys?: Bytes[];
  match?: string;
  type?: string;
}

/** An exported key file, ready to download. */
export interface ExportedFile {
  filename: string;
  contentType: string;
  /** Keys in the file, and keys named that did not exist (left out). */
  keys: number;
  missing: number;
  data: Uint8Array;
}

/** The body of POST /api/key-export (and the wasm `export_keys`): the default match and type left out. */
export function exportBody(r: ExportRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { db: r.db, format: r.format };
  if (r.keys) body.keys = r.keys;
  else {
    if (r.match && r.match !== '*') body.match = r.match;
    if (r.type) body.type = r.type;
  }
  return body;
}

/** Where the live samples come from (StatsFeed reads this). */
export interface FeedSource {
  /** The last `seconds` samples, oldest first. */
  history(seconds: number, signal: AbortSignal): Promise<Sample[]>;
  /** Calls `onSample` for every new sample until the stream ends or fails, or `signal` aborts. */
  stream(onSample: (s: Sample) => void, signal: AbortSignal): Promise<void>;
  /**
   * false: a quiet stream is not a dead one (the tab's own timer, which a hidden tab slows
   * down), so the feed does not reconnect when samples are late.
   */
  readonly stalls?: false;
}

/** A console line that ran, with its reply (a restored session's transcript). */
export interface TranscriptLine {
  line: string;
  reply: ConsoleReply;
}

/**
 * One entry of a playground session: a console line (in the console's database), or a line
 * a page ran in database `db` outside the console's session (the key panel's EXPIRE, a key
 * written in another database), replayed there without a SELECT around it.
 */
export type SessionCommand = string | { db: number; line: string };

/** What the playground adds: its session, kept in the tab and shareable as a link. */
export interface PlaygroundFeature {
  /** The lines this session ran, oldest first (what a share link carries). */
  readonly lines: readonly SessionCommand[];
  /**
   * Rebuilds the engine from `shared` (a share link's lines, run now) or else from the session
   * kept in this tab (each line at its recorded time). Says what it did, and the transcript
   * (the console's lines: those run in a database of their own are not in it).
   */
  restore(shared: readonly SessionCommand[] | null): { notice: string | null; transcript: TranscriptLine[] };
  /** A fresh, empty engine and session. */
  reset(): void;
}

/** Words about the backend, for the few places that name what the dashboard is looking at. */
export interface BackendLabel {
  /** "the admin API", "the engine in this tab". */
  via: string;
  /** The console's prompt, without the database (see `dbPrompt`). */
  prompt(snapshot: StatsSnapshot | null): string;
  /** Where it runs, for the Overview's first line: "RESP port 6379". */
  where(snapshot: StatsSnapshot): string;
  /** Storage key of the console's line history. */
  historyKey: string;
  /** Other clients use this cache: the console confirms before FLUSHALL and the like. */
  shared: boolean;
}

export interface Backend {
  readonly label: BackendLabel;
  /** GET /api/stats. */
  stats(): Promise<StatsSnapshot>;
  /** The per-second samples: history and the live stream. */
  readonly feed: FeedSource;
  /** One SCAN step; rejects with the API's 400 message on a bad query. */
  keys(q: PageQuery): Promise<KeyPage>;
  /** A key's detail in database `db` (default 0), or null when there is no such key. */
  key(key: Bytes, db?: number): Promise<KeyDetail | null>;
  /** A page of the stream at `key` by ID; rejects when there is no such stream. */
  streamEntries(key: Bytes, q: StreamEntriesQuery, db?: number): Promise<StreamPage>;
  /** The sorted set at `key` as points when its scores are geohashes (GET /api/geo-points/{key}). */
  geoPoints(key: Bytes, limit: number, db?: number): Promise<GeoPoints>;
  /** A window of the string at `key` as bytes with its set-bit counts; rejects when there is no such string. */
  stringBits(key: Bytes, q: StringBitsQuery, db?: number): Promise<StringBits>;
  /** Writes a string key; rejects with ApiError (409 for `nx` on an existing key). */
  putKey(key: Bytes, body: PutKeyBody, db?: number): Promise<KeyDetail>;
  deleteKey(key: Bytes, db?: number): Promise<{ deleted: boolean }>;
  /**
   * One edit of a collection (HSET, LPUSH, ZADD...: PATCH /api/keys/{key}); rejects with
   * Redis's error text (WRONGTYPE...) as the API's 422 message.
   */
  editKey(key: Bytes, edit: KeyEdit, db?: number): Promise<EditResult>;
  /** How many keys match (a bounded SCAN; `exact` says whether it saw every key). */
  countKeys(f: KeyFilter): Promise<KeyCount>;
  /** Starts a bulk delete/EXPIRE/PERSIST job in the background; rejects on a bad request. */
  startBulk(r: BulkRequest): Promise<BulkJob>;
  /** A bulk job's progress. */
  bulkJob(id: number): Promise<BulkJob>;
  /** Cancels a bulk job after its current batch. */
  cancelBulk(id: number): Promise<BulkJob>;
  /**
   * Exports keys as a file of DUMP payloads (POST /api/key-export); rejects with the API's
   * message (too many keys, too large).
   */
  exportKeys(r: ExportRequest): Promise<ExportedFile>;
  /**
   * Imports a key file (JSON or binary) into database `db` (the file's own when absent) with
   * RESTORE (POST /api/key-import); rejects when the file is not one, or under `fail` when a
   * key exists (409, nothing imported).
   */
  importKeys(file: Uint8Array, mode: ConflictMode, db?: number): Promise<ImportReport>;
  /** Recent evictions and expirations, newest first. */
  recentEvents(): Promise<RecentEvents>;
  /** What-if memory: the miss-ratio curve and the ghost record's horizon (GET /api/evictions/what-if). */
  whatIf(): Promise<WhatIf>;
  /** The slow log, newest first (GET /api/slowlog; all entries without `count`). */
  slowlog(count?: number): Promise<SlowLogView>;
  /** Empties the slow log (DELETE /api/slowlog), answering the emptied view. */
  resetSlowlog(): Promise<SlowLogView>;
  /** Per-command latency percentiles and histograms, and latency events (GET /api/latency). */
  latency(): Promise<LatencyView>;
  /** The compatibility radar: refused commands and options per client library (GET /api/compat). */
  compat(): Promise<CompatView>;
  /** Forgets the radar's rows (DELETE /api/compat), answering the emptied view. */
  resetCompat(): Promise<CompatView>;
  /** The most accessed keys over the sliding window (GET /api/hotkeys; 20 without `count`). */
  hotKeys(count?: number): Promise<HotKeysView>;
  /** Empties the hot-key sketches (DELETE /api/hotkeys), answering the emptied view. */
  resetHotKeys(): Promise<HotKeysView>;
  /** The cached Lua scripts and what they did (GET /api/scripts); the playground's says it has no VM. */
  scripts(): Promise<ScriptsView>;
  /** One script by SHA1 (GET /api/scripts/{id}); rejects with ApiError 404 when it is not cached. */
  script(id: string): Promise<ScriptDetail>;
  /**
   * Runs one already-split command (POST /api/command with `{"args": [...]}`), so an argument
   * with newlines and quotes (a script's body) arrives exactly; answers the tagged reply. Not
   * part of the console's session (nor of a playground's recorded session).
   */
  command(args: string[]): Promise<Reply>;
  /** The memory ledger, biggest keys and TTLs of database `db`, or of all (GET /api/memory). */
  memory(db?: number): Promise<MemoryView>;
  /** The command table, for the console's hints and completion. */
  commands(): Promise<{ commands: CommandInfo[] }>;
  /** The connections (GET /api/clients). */
  clients(): Promise<ClientsView>;
  /** Closes a connection (CLIENT KILL ID); rejects with ApiError 404 when it is gone. */
  killClient(id: number): Promise<{ killed: boolean }>;
  /** The commands run after event `since` (GET /api/monitor), oldest first. */
  monitor(since: number): Promise<MonitorView>;
  /**
   * The keyspace notifications published after event `since` (GET /api/events/keyspace),
   * oldest first, with `notify-keyspace-events` (empty: none are published).
   */
  keyspaceEvents(since: number): Promise<KeyspaceEventsView>;
  /**
   * The commands as they run (GET /api/monitor/stream): `onOpen` once the stream is up (it
   * brings only what runs from then on), then `onView` for each batch, until the stream ends
   * (resolves), fails (rejects) or `signal` aborts. Absent: the Monitor page polls `monitor`.
   */
  monitorStream?(onView: (v: MonitorView) => void, signal: AbortSignal, onOpen: () => void): Promise<void>;
  config(): Promise<ConfigView>;
  /** Applies settings all at once, as one CONFIG SET. */
  patchConfig(changes: Record<string, string>): Promise<ConfigView>;
  /**
   * Runs one console line, in `session` when given (MULTI, WATCH... carry over between the
   * lines of one session).
   */
  console(line: string, session?: string): Promise<ConsoleReply>;
  /**
   * Runs one console line in database `db`, outside the console's session, which stays in
   * its own database (the key panel's EXPIRE and PERSIST).
   */
  consoleIn(line: string, db: number): Promise<ConsoleReply>;

  /** Who is signed in and which dashboard actions they may take (GET /api/auth/me). */
  me(): Promise<MeView>;
  /** The ACL users (GET /api/acl/users). */
  aclUsers(): Promise<AclUserView[]>;
  /** The ACL LOG, newest first (GET /api/acl/log; the server's default count without `count`). */
  aclLog(count?: number): Promise<AclLogView[]>;
  /**
   * Applies rules to a user, creating it when new (ACL SETUSER with the rules split on
   * whitespace: PUT /api/acl/users/{name}); rejects with Redis's ERR text on a bad rule.
   */
  aclSetUser(name: string, rules: string): Promise<AclUserView>;
  /** The ACL LIST line the user would have after `rules`, nothing changed; rejects as aclSetUser. */
  aclPreview(name: string, rules: string): Promise<string>;
  /** Deletes a user (ACL DELUSER), closing its connections; rejects for `default`. */
  aclDelUser(name: string): Promise<void>;
  /** Empties the ACL LOG (ACL LOG RESET). */
  aclLogReset(): Promise<void>;

  /**
   * The script running now and whether it is busy (GET /api/running-script). Absent where no
   * script can run (the playground has no Lua VM).
   */
  runningScript?(): Promise<RunningScriptView>;
  /**
   * Stops the busy script (POST /api/running-script/kill); rejects with Redis's NOTBUSY or
   * UNKILLABLE text.
   */
  killRunningScript?(): Promise<{ killed: boolean }>;

  /** Built-in benchmarks (the server's load generator). */
  readonly bench?: BenchApi;
  /** The admin token (or RESP password) the server may ask for. */
  readonly auth?: Auth;
  /** The snapshot may carry the append-only file's state (GET /api/stats `persistence`). */
  readonly persistence?: true;
  /** A session in the tab, a share link, a guided tour. */
  readonly playground?: PlaygroundFeature;
}
