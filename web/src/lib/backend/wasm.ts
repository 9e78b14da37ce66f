// WasmBackend: the engine compiled to WebAssembly (wasm/, the `Playground` class), in this tab.
// Its methods answer the same JSON as the admin API (both come from the engine's `inspect`
// module). The engine has no clock: every call passes `now()`, and a timer here does what the
// server's timers do: the active expiry cycle ten times a second, and one stats sample a
// second (kept in the engine's own history ring, and streamed to the feed).
//
// It also keeps the playground's session: every line that changed the engine, with its time,
// saved in localStorage and replayed into a fresh engine on load, or replayed from a share
// link. Writes from the Keys and Evictions pages are recorded as the command lines that do
// the same, so a session is always a list of lines (see quoteArg); a line a page ran in
// another database than the console's is kept with its database and replayed there
// (`console_in`), so no SELECT lands in the session, its transcript or its share links.

import { ADMIN_ME, ruleWords, type AclLogView, type AclUserView, type MeView } from '../acl';
import { ApiError } from '../api';
import { commandLine, toBytes } from '../bytes';
import { formatBytes } from '../format';
import type {
  BulkJob,
  ClientsView,
  ConflictMode,
  ImportReport,
  EditResult,
  KeyCount,
  KeyEdit,
  KeyspaceEventsView,
  MemoryView,
  MonitorView,
} from '../api-types';
import type {
  Bytes,
  CommandInfo,
  ConfigView,
  ConsoleReply,
  History,
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
import { bulkBody, exportBody, type ExportRequest, type ExportedFile } from './backend';
import type {
  Backend,
  BackendLabel,
  BulkRequest,
  FeedSource,
  KeyFilter,
  PageQuery,
  PlaygroundFeature,
  SessionCommand,
  StreamEntriesQuery,
  StringBitsQuery,
  TranscriptLine,
} from './backend';

/** The wasm-bindgen class (wasm/src/lib.rs; JSON text in, JSON text out). */
export interface WasmEngine {
  stats_json(now_ms: number): string;
  sample_json(now_ms: number): string;
  history_json(seconds: number): string;
  keys_json(pattern: string, type_name: string, cursor: string, count: number, now_ms: number, db: number): string;
  key_json(key_json: string, now_ms: number, db: number): string;
  stream_entries_json(key_json: string, order: string, cursor: string, count: number, now_ms: number, db: number): string;
  geo_points_json(key_json: string, limit: number, now_ms: number, db: number): string;
  string_bits_json(key_json: string, offset: number, count: number, now_ms: number, db: number): string;
  put_key(key_json: string, body_json: string, now_ms: number, db: number): string;
  delete_key(key_json: string, now_ms: number, db: number): string;
  edit_key(key_json: string, body_json: string, now_ms: number, db: number): string;
  count_keys(pattern: string, type_name: string, now_ms: number, db: number): string;
  bulk_start(body_json: string, now_ms: number): string;
  /** `{"job","commands"}` after up to `batches` SCAN batches. */
  bulk_step(now_ms: number, batches: number): string;
  bulk_cancel(now_ms: number): string;
  /** `{"filename","content_type","keys","missing","file"}` (`file` as Bytes). */
  export_keys(body_json: string, now_ms: number): string;
  /** `{"report","commands"}`; `db` < 0 for the file's own database. */
  import_keys(file: Uint8Array, db: number, mode: string, now_ms: number): string;
  evictions_json(now_ms: number): string;
  what_if_json(now_ms: number): string;
  slowlog_json(count?: number): string;
  reset_slowlog(): string;
  latency_json(): string;
  compat_json(): string;
  reset_compat(): string;
  hotkeys_json(count: number | undefined, now_ms: number): string;
  reset_hotkeys(now_ms: number): string;
  memory_json(now_ms: number, db?: number): string;
  scripts_json(): string;
  /** Throws: the playground has no Lua VM. */
  script_json(id: string): string;
  /** One already-split command; its tagged JSON reply. */
  call(argv: string[], now_ms: number): string;
  clients_json(now_ms: number): string;
  kill_client(id: number, now_ms: number): string;
  monitor_json(since: number, now_ms: number): string;
  keyspace_events_json(since: number): string;
  config_json(): string;
  patch_config(body_json: string, now_ms: number): string;
  console(line: string, now_ms: number): string;
  /** `console` in database `db`, the session staying in its own; throws for no such database. */
  console_in(line: string, now_ms: number, db: number): string;
  /** The ACL users (inspect::acl_users). */
  acl_users_json(): string;
  /** The newest `count` ACL LOG entries (inspect::acl_log). */
  acl_log_json(count: number): string;
  /** `{"line"}`: the ACL LIST line `rules` would give the user, stored nowhere; throws SETUSER's error. */
  acl_preview(name: string, rules: string): string;
  expiry_cycle(now_ms: number): number;
  fill(count: number, value_size: number, now_ms: number): string;
  free(): void;
}

/** What the generated module exports, once initialised. */
export interface WasmModule {
  Playground: {
    new (now_ms: number, seed: number): WasmEngine;
    commands_json(): string;
    version(): string;
  };
}

export interface FillResult {
  requested: number;
  written: number;
  /** The Redis error that stopped the fill (OOM under noeviction), or null. */
  error: string | null;
  evicted: number;
  keys: number;
  used_memory: number;
  maxmemory: number;
}

/** One line of the session and when it ran (ms since the epoch). */
export interface SessionLine {
  line: string;
  at: number;
  /** Run in this database, outside the console's session (absent: a console line). */
  db?: number;
}

export interface WasmOptions {
  now?: () => number;
  seed?: number;
  /** Where the session is kept (null: nowhere). */
  storage?: Storage | null;
  /** The active expiry cycle's period (the server's: 100 ms). */
  expiryMs?: number;
  /** One sample every... */
  sampleMs?: number;
}

export const SESSION_KEY = 'vitrine.playground.session';
export const FILL_COUNT = 2000;
export const FILL_SIZE = 100;
const MAX_FILL = 100_000;
const MAX_SESSION = 500;
/** SCAN batches one bulk chunk runs between two timeouts (of 500 keys each). */
const BULK_CHUNK = 4;
/** ACL LOG entries the Users page shows (ACL LOG's own default is 10). */
const ACL_LOG_COUNT = 128;

/** FILL, the playground's one command of its own, in the command table's shape. */
export const FILL_INFO: CommandInfo = {
  name: 'FILL',
  arity: -2,
  flags: ['write'],
  first_key: 0,
  last_key: 0,
  step: 0,
  movablekeys: false,
  acl_categories: ['@write', '@slow'],
  group: 'playground',
  summary: `Writes COUNT new keys (fill:N) of SIZE bytes (default ${FILL_SIZE}), to watch eviction. Playground only.`,
  syntax: 'count [size]',
};

const FILL_HELP = `\n  FILL count [size]\n  summary: ${FILL_INFO.summary}\n  group: playground\n`;

/**
 * The session line that replays a finished bulk job: `BULK DELETE|PERSIST|EXPIRE secs MATCH
 * pattern [TYPE type] DB n`, a playground-only line (like FILL) that runs the whole job at
 * once. One line instead of a command per key keeps a bulk TTL on thousands of keys from
 * pushing the rest of the session out. Null when a word would not survive the console's
 * split on spaces (the job's own commands are recorded then).
 */
export function bulkLine(j: BulkJob): string | null {
  const words = ['BULK', j.action.toUpperCase()];
  if (j.action === 'expire') words.push(String(j.ttl));
  words.push('MATCH', j.match);
  if (j.type) words.push('TYPE', j.type);
  words.push('DB', String(j.db));
  return words.every((w) => /^[^\s"'\\]+$/.test(w)) ? words.join(' ') : null;
}

function defaultStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** The HTTP status of each refusal code, as the admin API answers them. */
const STATUS: Record<string, number> = {
  bad_parameter: 400,
  not_found: 404,
  conflict: 409,
  invalid_body: 422,
  invalid_file: 422,
  too_many_keys: 422,
  too_large: 422,
  command_error: 422,
  config_error: 422,
  oom: 507,
};

/**
 * A wasm method's thrown message as the ApiError the HTTP API would give: the engine throws
 * a string (wasm-bindgen's `Err(String)`), or JSON `{"error":{"code","message"}}`.
 */
export function wasmError(e: unknown): ApiError {
  const text = e instanceof Error ? e.message : String(e);
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error?.message) {
      const code = body.error.code ?? 'bad_request';
      return new ApiError(STATUS[code] ?? 400, code, body.error.message);
    }
  } catch {
    // a plain message
  }
  return new ApiError(400, 'bad_request', text);
}

const status = (text: string, argv: Bytes[], db: number): ConsoleReply => ({
  kind: 'reply',
  argv,
  reply: { type: 'status', value: text },
  text: text + '\n',
  resp: `+${text}\r\n`,
  db,
});

const failure = (text: string, argv: Bytes[], db: number): ConsoleReply => ({
  kind: 'reply',
  argv,
  reply: { type: 'error', value: text },
  text: `(error) ${text}\n`,
  resp: `-${text}\r\n`,
  db,
});

export class WasmBackend implements Backend {
  readonly label: BackendLabel = {
    via: 'the engine in this tab (WebAssembly)',
    prompt: () => 'playground>',
    where: () => 'WebAssembly, in this tab',
    shared: false,
    historyKey: 'vitrine.playground.consoleHistory',
  };
  readonly playground: PlaygroundFeature;
  readonly feed: FeedSource;

  readonly #mod: WasmModule;
  readonly #now: () => number;
  readonly #seed: number | undefined;
  readonly #storage: Storage | null;
  readonly #expiryMs: number;
  readonly #sampleMs: number;
  #engine: WasmEngine;
  #session: SessionLine[] = [];
  /** The database the tab's one client session (the console's) is in. */
  #db = 0;
  /** During a replay, the recorded time; otherwise null (the real clock). */
  #clock: number | null = null;
  #listeners = new Set<(s: Sample) => void>();
  #timers: ReturnType<typeof setInterval>[] = [];
  /** The tab's bulk job as of its last chunk (the engine keeps the job itself). */
  #bulk: BulkJob | null = null;
  #bulkTimer: ReturnType<typeof setTimeout> | null = null;
  /** The running job's commands as lines, recorded when it ends unless one BULK line replays it. */
  #bulkRan: string[] = [];

  constructor(mod: WasmModule, options: WasmOptions = {}) {
    this.#mod = mod;
    this.#now = options.now ?? Date.now;
    this.#seed = options.seed;
    this.#storage = options.storage === undefined ? defaultStorage() : options.storage;
    this.#expiryMs = options.expiryMs ?? 100;
    this.#sampleMs = options.sampleMs ?? 1000;
    this.#engine = this.#newEngine(this.#now());
    const self = this;
    this.feed = {
      stalls: false,
      async history(seconds) {
        return (JSON.parse(self.#engine.history_json(seconds)) as History).samples;
      },
      stream(onSample, signal) {
        return new Promise<void>((_, reject) => {
          self.#listeners.add(onSample);
          signal.addEventListener('abort', () => {
            self.#listeners.delete(onSample);
            reject(signal.reason);
          });
        });
      },
    };
    this.playground = {
      get lines(): SessionCommand[] {
        return self.#session.map((s) => (s.db === undefined ? s.line : { db: s.db, line: s.line }));
      },
      restore: (shared) => this.#restore(shared),
      reset: () => {
        this.#stopBulk();
        this.#engine = this.#newEngine(this.#now());
        this.#session = [];
        this.#save();
      },
    };
  }

  /** Starts the engine's timers: the expiry cycle and the per-second sample. Idempotent. */
  start(): void {
    if (this.#timers.length) return;
    this.#timers.push(
      setInterval(() => this.expiryCycle(), this.#expiryMs),
      setInterval(() => this.sample(), this.#sampleMs),
    );
  }

  stop(): void {
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    this.#stopBulk();
  }

  /** Drops the bulk job (a new engine has none). */
  #stopBulk(): void {
    if (this.#bulkTimer !== null) clearTimeout(this.#bulkTimer);
    this.#bulkTimer = null;
    this.#bulk = null;
    this.#bulkRan = [];
  }

  /** Records an ended job: one BULK line when it ran to the end, else the commands it ran. */
  #recordBulk(j: BulkJob): void {
    const line = j.state === 'done' ? bulkLine(j) : null;
    if (line) this.#record(line);
    else for (const l of this.#bulkRan) this.#recordIn(j.db, l);
    this.#bulkRan = [];
  }

  /** `BULK ...` typed or replayed: the whole job at once (see bulkLine). */
  #bulkCommand(words: string[]): ConsoleReply {
    const usage = 'ERR usage: BULK DELETE|PERSIST|EXPIRE seconds MATCH pattern [TYPE type] [DB n]';
    const action = (words[1] ?? '').toLowerCase();
    if (action !== 'delete' && action !== 'expire' && action !== 'persist') return failure(usage, words, this.#db);
    const body: Record<string, unknown> = { action };
    let i = 2;
    if (action === 'expire') body.ttl = Number(words[i++]);
    for (; i + 1 < words.length; i += 2) {
      const opt = words[i].toUpperCase();
      if (opt === 'MATCH') body.match = words[i + 1];
      else if (opt === 'TYPE') body.type = words[i + 1];
      else if (opt === 'DB') body.db = Number(words[i + 1]);
      else return failure(usage, words, this.#db);
    }
    if (i !== words.length) return failure(usage, words, this.#db);
    try {
      this.#engine.bulk_start(JSON.stringify(body), this.#time());
      const step = JSON.parse(this.#engine.bulk_step(this.#time(), 1_000_000)) as { job: BulkJob };
      const j = step.job;
      if (j.state === 'failed') return failure(j.error ?? 'ERR the bulk job failed', words, this.#db);
      const verb = { delete: 'deleted', expire: 'given a TTL', persist: 'made persistent' }[j.action];
      return status(`${j.done} of ${j.matched} keys ${verb}`, words, this.#db);
    } catch (e) {
      return failure(`ERR ${wasmError(e).message}`, words, this.#db);
    }
  }

  /** One active expiry cycle; how many keys expired. */
  expiryCycle(): number {
    return this.#engine.expiry_cycle(this.#time());
  }

  /** Takes a sample (the engine keeps it in its history) and streams it. */
  sample(): Sample {
    const s = JSON.parse(this.#engine.sample_json(this.#time())) as Sample;
    for (const fn of this.#listeners) fn(s);
    return s;
  }

  version(): string {
    return this.#mod.Playground.version();
  }

  async stats(): Promise<StatsSnapshot> {
    return JSON.parse(this.#engine.stats_json(this.#time())) as StatsSnapshot;
  }

  async keys(q: PageQuery): Promise<KeyPage> {
    return this.#call(() => JSON.parse(this.#engine.keys_json(q.match, q.type, q.cursor, q.count, this.#time(), q.db ?? 0)) as KeyPage);
  }

  async key(key: Bytes, db = 0): Promise<KeyDetail | null> {
    return this.#call(() => JSON.parse(this.#engine.key_json(JSON.stringify(key), this.#time(), db)) as KeyDetail | null);
  }

  async streamEntries(key: Bytes, q: StreamEntriesQuery, db = 0): Promise<StreamPage> {
    return this.#call(() => JSON.parse(this.#engine.stream_entries_json(JSON.stringify(key), q.order, q.cursor, q.count, this.#time(), db)) as StreamPage);
  }

  async geoPoints(key: Bytes, limit: number, db = 0): Promise<GeoPoints> {
    return this.#call(() => JSON.parse(this.#engine.geo_points_json(JSON.stringify(key), limit, this.#time(), db)) as GeoPoints);
  }

  async stringBits(key: Bytes, q: StringBitsQuery, db = 0): Promise<StringBits> {
    return this.#call(() => JSON.parse(this.#engine.string_bits_json(JSON.stringify(key), q.offset, q.count, this.#time(), db)) as StringBits);
  }

  async putKey(key: Bytes, body: PutKeyBody, db = 0): Promise<KeyDetail> {
    const d = this.#call(() => JSON.parse(this.#engine.put_key(JSON.stringify(key), JSON.stringify(body), this.#time(), db)) as KeyDetail);
    const argv: Bytes[] = ['SET', key, body.value];
    if (body.ttl !== undefined) argv.push('EX', String(body.ttl));
    else if (body.ttl_ms !== undefined) argv.push('PX', String(body.ttl_ms));
    if (body.nx) argv.push('NX');
    if (body.keep_ttl) argv.push('KEEPTTL');
    this.#recordIn(db, commandLine(argv));
    return d;
  }

  async deleteKey(key: Bytes, db = 0): Promise<{ deleted: boolean }> {
    const r = this.#call(() => JSON.parse(this.#engine.delete_key(JSON.stringify(key), this.#time(), db)) as { deleted: boolean });
    this.#recordIn(db, commandLine(['DEL', key]));
    return r;
  }

  async editKey(key: Bytes, edit: KeyEdit, db = 0): Promise<EditResult> {
    const r = this.#call(() => JSON.parse(this.#engine.edit_key(JSON.stringify(key), JSON.stringify(edit), this.#time(), db)) as EditResult);
    this.#recordIn(db, commandLine(r.command));
    return r;
  }

  async exportKeys(r: ExportRequest): Promise<ExportedFile> {
    const v = this.#call(
      () =>
        JSON.parse(this.#engine.export_keys(JSON.stringify(exportBody(r)), this.#time())) as {
          filename: string;
          content_type: string;
          keys: number;
          missing: number;
          file: Bytes;
        },
    );
    return { filename: v.filename, contentType: v.content_type, keys: v.keys, missing: v.missing, data: toBytes(v.file) };
  }

  /** Imports with RESTORE; the RESTOREs that ran are recorded in the session as lines, so a replay restores the keys too. */
  async importKeys(file: Uint8Array, mode: ConflictMode, db?: number): Promise<ImportReport> {
    const r = this.#call(() => JSON.parse(this.#engine.import_keys(file, db ?? -1, mode, this.#time())) as { report: ImportReport; commands: Bytes[][] });
    for (const argv of r.commands) this.#recordIn(r.report.db, commandLine(argv));
    return r.report;
  }

  async countKeys(f: KeyFilter): Promise<KeyCount> {
    return this.#call(() => JSON.parse(this.#engine.count_keys(f.match, f.type, this.#time(), f.db)) as KeyCount);
  }

  /**
   * Starts the tab's bulk job and steps it in chunks of a few SCAN batches, a timeout between
   * chunks so the page stays responsive (the server's task yields between batches the same
   * way). The commands each chunk ran are recorded in the session as lines.
   */
  async startBulk(r: BulkRequest): Promise<BulkJob> {
    const job = this.#call(() => JSON.parse(this.#engine.bulk_start(JSON.stringify(bulkBody(r)), this.#time())) as BulkJob);
    this.#bulk = job;
    this.#bulkRan = [];
    this.#scheduleBulk(0);
    return job;
  }

  async bulkJob(id: number): Promise<BulkJob> {
    if (this.#bulk?.id !== id) throw new ApiError(404, 'not_found', `no bulk job ${id}`);
    return this.#bulk;
  }

  async cancelBulk(id: number): Promise<BulkJob> {
    if (this.#bulk?.id !== id) throw new ApiError(404, 'not_found', `no bulk job ${id}`);
    this.#bulk = JSON.parse(this.#engine.bulk_cancel(this.#time())) as BulkJob;
    return this.#bulk;
  }

  #scheduleBulk(delay: number): void {
    if (this.#bulkTimer !== null) clearTimeout(this.#bulkTimer);
    this.#bulkTimer = setTimeout(() => {
      this.#bulkTimer = null;
      const step = JSON.parse(this.#engine.bulk_step(this.#time(), BULK_CHUNK)) as { job: BulkJob | null; commands: Bytes[][] };
      this.#bulk = step.job;
      for (const argv of step.commands) this.#bulkRan.push(commandLine(argv));
      if (step.job?.state === 'running') this.#scheduleBulk(step.job.paused ? 100 : 0);
      else if (step.job) this.#recordBulk(step.job);
    }, delay);
  }

  async slowlog(count?: number): Promise<SlowLogView> {
    return JSON.parse(this.#engine.slowlog_json(count)) as SlowLogView;
  }

  async resetSlowlog(): Promise<SlowLogView> {
    return JSON.parse(this.#engine.reset_slowlog()) as SlowLogView;
  }

  async latency(): Promise<LatencyView> {
    return JSON.parse(this.#engine.latency_json()) as LatencyView;
  }

  async compat(): Promise<CompatView> {
    return JSON.parse(this.#engine.compat_json()) as CompatView;
  }

  async resetCompat(): Promise<CompatView> {
    return JSON.parse(this.#engine.reset_compat()) as CompatView;
  }

  async hotKeys(count?: number): Promise<HotKeysView> {
    return JSON.parse(this.#engine.hotkeys_json(count, this.#time())) as HotKeysView;
  }

  async resetHotKeys(): Promise<HotKeysView> {
    return JSON.parse(this.#engine.reset_hotkeys(this.#time())) as HotKeysView;
  }

  /** No Lua VM in the tab: the view says scripting runs on the server. */
  async scripts(): Promise<ScriptsView> {
    return JSON.parse(this.#engine.scripts_json()) as ScriptsView;
  }

  /** Rejects as the API's 404 does (here: there is no script to find). */
  async script(id: string): Promise<ScriptDetail> {
    try {
      return JSON.parse(this.#engine.script_json(id)) as ScriptDetail;
    } catch (e) {
      throw new ApiError(404, 'not_found', e instanceof Error ? e.message : String(e));
    }
  }

  /** Recorded in the session as the line that does the same, as the pages' other writes. */
  async command(args: string[]): Promise<Reply> {
    const reply = JSON.parse(this.#engine.call(args, this.#time())) as Reply;
    if (reply.type !== 'error') this.#record(commandLine(args));
    return reply;
  }

  /** The person at the tab is the admin: every action is allowed. */
  async me(): Promise<MeView> {
    return ADMIN_ME;
  }

  async aclUsers(): Promise<AclUserView[]> {
    return JSON.parse(this.#engine.acl_users_json()) as AclUserView[];
  }

  async aclLog(count = ACL_LOG_COUNT): Promise<AclLogView[]> {
    return JSON.parse(this.#engine.acl_log_json(count)) as AclLogView[];
  }

  /** ACL SETUSER through the command path, so the session (and a share link) keeps it. */
  async aclSetUser(name: string, rules: string): Promise<AclUserView> {
    await this.#aclCommand(['ACL', 'SETUSER', name, ...ruleWords(rules)]);
    const user = (await this.aclUsers()).find((u) => u.name === name);
    if (!user) throw new ApiError(404, 'not_found', `ERR no such user '${name}'`);
    return user;
  }

  /** The engine's dry parse: nothing changes, and the session records nothing. */
  async aclPreview(name: string, rules: string): Promise<string> {
    try {
      return (JSON.parse(this.#engine.acl_preview(name, rules)) as { line: string }).line;
    } catch (e) {
      throw new ApiError(400, 'bad_request', wasmError(e).message);
    }
  }

  async aclDelUser(name: string): Promise<void> {
    await this.#aclCommand(['ACL', 'DELUSER', name]);
  }

  async aclLogReset(): Promise<void> {
    await this.#aclCommand(['ACL', 'LOG', 'RESET']);
  }

  /** One ACL command; rejects with its error text as the API's 400 does. */
  async #aclCommand(args: string[]): Promise<void> {
    const reply = await this.command(args);
    if (reply.type === 'error') throw new ApiError(400, 'bad_request', reply.value);
  }

  async memory(db?: number): Promise<MemoryView> {
    return this.#call(() => JSON.parse(this.#engine.memory_json(this.#time(), db)) as MemoryView);
  }

  async recentEvents(): Promise<RecentEvents> {
    return JSON.parse(this.#engine.evictions_json(this.#time())) as RecentEvents;
  }

  async whatIf(): Promise<WhatIf> {
    return JSON.parse(this.#engine.what_if_json(this.#time())) as WhatIf;
  }

  async clients(): Promise<ClientsView> {
    return JSON.parse(this.#engine.clients_json(this.#time())) as ClientsView;
  }

  async killClient(id: number): Promise<{ killed: boolean }> {
    try {
      return JSON.parse(this.#engine.kill_client(id, this.#time())) as { killed: boolean };
    } catch (e) {
      throw new ApiError(404, 'not_found', e instanceof Error ? e.message : String(e));
    }
  }

  async monitor(since: number): Promise<MonitorView> {
    return JSON.parse(this.#engine.monitor_json(since, this.#time())) as MonitorView;
  }

  async keyspaceEvents(since: number): Promise<KeyspaceEventsView> {
    return JSON.parse(this.#engine.keyspace_events_json(since)) as KeyspaceEventsView;
  }

  async commands(): Promise<{ commands: CommandInfo[] }> {
    const table = JSON.parse(this.#mod.Playground.commands_json()) as { commands: CommandInfo[] };
    return { commands: [...table.commands, FILL_INFO] };
  }

  async config(): Promise<ConfigView> {
    return JSON.parse(this.#engine.config_json()) as ConfigView;
  }

  async patchConfig(changes: Record<string, string>): Promise<ConfigView> {
    const v = this.#call(() => JSON.parse(this.#engine.patch_config(JSON.stringify(changes), this.#time())) as ConfigView);
    const args = Object.entries(changes).flat();
    if (args.length) this.#record(commandLine(['CONFIG', 'SET', ...args]));
    return v;
  }

  /** The tab has one engine and one client session: `session` is not needed. */
  async console(line: string): Promise<ConsoleReply> {
    const reply = this.#line(line);
    if (reply.kind === 'reply') this.#record(line);
    return reply;
  }

  /**
   * The line runs in `db` beside the console's session (the engine's `console_in`, as the
   * API's `"db"`), which stays in its database; the session keeps it with its database, so a
   * replay runs it there too, and no SELECT shows in the transcript or a share link. Rejects
   * as the API does when there is no such database.
   */
  async consoleIn(line: string, db: number): Promise<ConsoleReply> {
    if (db === this.#db) return this.console(line);
    const reply = this.#call(() => JSON.parse(this.#engine.console_in(line, this.#time(), db)) as ConsoleReply);
    if (reply.kind === 'reply') this.#recordIn(db, line);
    return reply;
  }

  /** Runs a line: FILL and its help here, everything else in the engine. */
  #line(line: string): ConsoleReply {
    const words = line.trim().split(/\s+/);
    const cmd = (words[0] ?? '').toUpperCase();
    if (cmd === 'FILL') return this.#fill(words);
    if (cmd === 'BULK') return this.#bulkCommand(words);
    const r = JSON.parse(this.#engine.console(line, this.#time())) as ConsoleReply;
    if (r.kind === 'reply') this.#db = r.db;
    if (r.kind === 'help' && (words.length === 1 || (words.length === 2 && words[1].toUpperCase() === 'FILL'))) {
      return { kind: 'help', text: words.length === 1 ? r.text + FILL_HELP : FILL_HELP.slice(1) };
    }
    return r;
  }

  #fill(words: string[]): ConsoleReply {
    const argv = words;
    const count = Number(words[1]);
    const size = words[2] === undefined ? FILL_SIZE : Number(words[2]);
    if (words.length < 2 || words.length > 3 || !Number.isInteger(count) || !Number.isInteger(size) || count < 1 || count > MAX_FILL || size < 0 || size > 1024 * 1024) {
      return failure(`ERR usage: FILL count [size], count 1-${MAX_FILL}, size 0-1048576`, argv, this.#db);
    }
    let f: FillResult;
    try {
      f = JSON.parse(this.#engine.fill(count, size, this.#time())) as FillResult;
    } catch (e) {
      return failure(`ERR ${wasmError(e).message}`, argv, this.#db);
    }
    const limit = f.maxmemory > 0 ? ` of ${formatBytes(f.maxmemory)}` : ' (no limit)';
    const head = `wrote ${f.written} keys, evicted ${f.evicted}; ${f.keys} keys, ${formatBytes(f.used_memory)}${limit}`;
    return f.error ? failure(`${f.error} (${head})`, argv, this.#db) : status(head, argv, this.#db);
  }

  #call<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw wasmError(e);
    }
  }

  #time(): number {
    return this.#clock ?? this.#now();
  }

  #newEngine(now: number): WasmEngine {
    this.#engine?.free();
    this.#db = 0;
    return new this.#mod.Playground(now, this.#seed ?? Math.floor(Math.random() * 2 ** 32));
  }

  /** Records a page's write in database `db`: a console line when the console is there. */
  #recordIn(db: number, line: string): void {
    this.#record(line, db === this.#db ? undefined : db);
  }

  #record(line: string, db?: number): void {
    if (this.#clock !== null) return; // replaying: #restore records
    this.#session.push(db === undefined ? { line, at: this.#now() } : { line, at: this.#now(), db });
    if (this.#session.length > MAX_SESSION) this.#session.splice(0, this.#session.length - MAX_SESSION);
    this.#save();
  }

  #restore(shared: readonly SessionCommand[] | null): { notice: string | null; transcript: TranscriptLine[] } {
    const now = this.#now();
    const lines = shared ? shared.map((c): SessionLine => (typeof c === 'string' ? { line: c, at: now } : { line: c.line, at: now, db: c.db })) : this.#load();
    const transcript = this.#replay(lines);
    if (shared) {
      this.#save();
      return { notice: `Replayed ${shared.length} command${shared.length === 1 ? '' : 's'} from a shared link.`, transcript };
    }
    const n = lines.length;
    return { notice: n ? `Restored this tab's session (${n} command${n === 1 ? '' : 's'}).` : null, transcript };
  }

  /** A fresh engine, then every line at its recorded time. */
  #replay(lines: SessionLine[]): TranscriptLine[] {
    this.#stopBulk();
    this.#engine = this.#newEngine(lines[0]?.at ?? this.#now());
    this.#session = [];
    const transcript: TranscriptLine[] = [];
    try {
      for (const s of lines) {
        this.#clock = s.at;
        // The expiry cycle would have run in between: expire what was due by then.
        this.#engine.expiry_cycle(s.at);
        if (s.db === undefined) transcript.push({ line: s.line, reply: this.#line(s.line) });
        else if (!this.#replayIn(s.line, s.at, s.db)) continue;
        this.#session.push(s);
      }
    } finally {
      this.#clock = null;
    }
    return transcript;
  }

  /** A page's line in database `db`, replayed; false when there is no such database. */
  #replayIn(line: string, at: number, db: number): boolean {
    try {
      this.#engine.console_in(line, at, db);
      return true;
    } catch {
      return false; // a link naming a database this engine does not have: left out
    }
  }

  #save(): void {
    try {
      this.#storage?.setItem(SESSION_KEY, JSON.stringify(this.#session));
    } catch {
      // full or disabled storage: the session lasts for this page
    }
  }

  #load(): SessionLine[] {
    try {
      const v: unknown = JSON.parse(this.#storage?.getItem(SESSION_KEY) ?? '[]');
      if (!Array.isArray(v)) return [];
      return v
        .filter(
          (s): s is SessionLine =>
            typeof s === 'object' && s !== null && typeof s.line === 'string' && Number.isFinite(s.at) && (s.db === undefined || (Number.isSafeInteger(s.db) && s.db >= 0)),
        )
        .slice(-MAX_SESSION);
    } catch {
      return [];
    }
  }
}
