// HttpBackend: a running vitrine's admin API (api.ts: the token flow and ApiError) and its
// stats stream (sse.ts: Server-Sent Events over fetch).

import type { AclLogView, AclUserView, MeView } from '../acl';
import { ApiError, api, errorFrom, request } from '../api';
import { auth, type Auth } from '../auth.svelte';
import { httpBenchApi, type BenchApi } from '../bench.svelte';
import { keyPath } from '../bytes';
import { streamEvents } from '../sse';
import type {
  BulkJob,
  ClientsView,
  ConflictMode,
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
import {
  bulkBody,
  exportBody,
  type Backend,
  type ExportRequest,
  type ExportedFile,
  type BackendLabel,
  type BulkRequest,
  type FeedSource,
  type KeyFilter,
  type PageQuery,
  type StreamEntriesQuery,
  type StringBitsQuery,
} from './backend';

export class HttpBackend implements Backend {
  readonly label: BackendLabel = {
    via: 'the admin API',
    prompt: (s) => (s ? `127.0.0.1:${s.host.tcp_port}>` : 'vitrine>'),
    where: (s) => `RESP port ${s.host.tcp_port}`,
    shared: true,
    historyKey: 'vitrine.consoleHistory',
  };
  readonly bench: BenchApi = httpBenchApi;
  readonly auth: Auth = auth;
  readonly persistence = true as const;

  readonly feed: FeedSource = {
    async history(seconds, signal) {
      const h = await api<History>(`/api/stats/history?seconds=${seconds}`, { signal });
      return h.samples;
    },
    stream(onSample, signal) {
      return streamEvents(
        '/api/stats/stream',
        (ev) => {
          if (ev.event === 'sample') onSample(JSON.parse(ev.data) as Sample);
        },
        signal,
      );
    },
  };

  stats(): Promise<StatsSnapshot> {
    return api<StatsSnapshot>('/api/stats');
  }

  keys(q: PageQuery): Promise<KeyPage> {
    const params = new URLSearchParams({ cursor: q.cursor, count: String(q.count) });
    if (q.match && q.match !== '*') params.set('match', q.match);
    if (q.type) params.set('type', q.type);
    if (q.db) params.set('db', String(q.db));
    return api<KeyPage>(`/api/keys?${params}`);
  }

  async key(key: Bytes, db = 0): Promise<KeyDetail | null> {
    try {
      return await api<KeyDetail>(`/api/keys/${keyPath(key)}${inDb(db)}`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }
  }

  streamEntries(key: Bytes, q: StreamEntriesQuery, db = 0): Promise<StreamPage> {
    const params = new URLSearchParams({ order: q.order, count: String(q.count) });
    if (q.cursor) params.set('cursor', q.cursor);
    if (db) params.set('db', String(db));
    return api<StreamPage>(`/api/stream-entries/${keyPath(key)}?${params}`);
  }

  geoPoints(key: Bytes, limit: number, db = 0): Promise<GeoPoints> {
    const params = new URLSearchParams({ limit: String(limit) });
    if (db) params.set('db', String(db));
    return api<GeoPoints>(`/api/geo-points/${keyPath(key)}?${params}`);
  }

  stringBits(key: Bytes, q: StringBitsQuery, db = 0): Promise<StringBits> {
    const params = new URLSearchParams({ offset: String(q.offset), count: String(q.count) });
    if (db) params.set('db', String(db));
    return api<StringBits>(`/api/string-bits/${keyPath(key)}?${params}`);
  }

  putKey(key: Bytes, body: PutKeyBody, db = 0): Promise<KeyDetail> {
    return api<KeyDetail>(`/api/keys/${keyPath(key)}${inDb(db)}`, { method: 'PUT', body });
  }

  deleteKey(key: Bytes, db = 0): Promise<{ deleted: boolean }> {
    return api<{ deleted: boolean }>(`/api/keys/${keyPath(key)}${inDb(db)}`, { method: 'DELETE' });
  }

  editKey(key: Bytes, edit: KeyEdit, db = 0): Promise<EditResult> {
    return api<EditResult>(`/api/keys/${keyPath(key)}${inDb(db)}`, { method: 'PATCH', body: edit });
  }

  countKeys(f: KeyFilter): Promise<KeyCount> {
    const params = new URLSearchParams();
    if (f.match && f.match !== '*') params.set('match', f.match);
    if (f.type) params.set('type', f.type);
    if (f.db) params.set('db', String(f.db));
    return api<KeyCount>(`/api/key-count?${params}`);
  }

  async exportKeys(r: ExportRequest): Promise<ExportedFile> {
    const res = await request('/api/key-export', { method: 'POST', body: exportBody(r) });
    if (!res.ok) throw await errorFrom(res);
    const disposition = res.headers.get('Content-Disposition') ?? '';
    const named = /filename="([^"]+)"/.exec(disposition);
    return {
      filename: named?.[1] ?? `vitrine-db${r.db}.${r.format === 'binary' ? 'vtrkeys' : 'json'}`,
      contentType: res.headers.get('Content-Type') ?? 'application/octet-stream',
      keys: Number(res.headers.get('X-Vitrine-Keys') ?? 0),
      missing: Number(res.headers.get('X-Vitrine-Missing') ?? 0),
      data: new Uint8Array(await res.arrayBuffer()),
    };
  }

  importKeys(file: Uint8Array, mode: ConflictMode, db?: number): Promise<ImportReport> {
    const params = new URLSearchParams({ mode });
    if (db !== undefined) params.set('db', String(db));
    // The server tells the formats apart by their first bytes; the type only has to be one a form cannot send.
    const type = file[0] === 0x7b || file[0] === 0x20 ? 'application/json' : 'application/octet-stream';
    return api<ImportReport>(`/api/key-import?${params}`, { method: 'POST', raw: { data: file, type } });
  }

  startBulk(r: BulkRequest): Promise<BulkJob> {
    return api<BulkJob>('/api/key-jobs', { method: 'POST', body: bulkBody(r) });
  }

  bulkJob(id: number): Promise<BulkJob> {
    return api<BulkJob>(`/api/key-jobs/${id}`);
  }

  cancelBulk(id: number): Promise<BulkJob> {
    return api<BulkJob>(`/api/key-jobs/${id}`, { method: 'DELETE' });
  }

  recentEvents(): Promise<RecentEvents> {
    return api<RecentEvents>('/api/evictions/recent');
  }

  whatIf(): Promise<WhatIf> {
    return api<WhatIf>('/api/evictions/what-if');
  }

  slowlog(count?: number): Promise<SlowLogView> {
    return api<SlowLogView>(count === undefined ? '/api/slowlog' : `/api/slowlog?count=${count}`);
  }

  resetSlowlog(): Promise<SlowLogView> {
    return api<SlowLogView>('/api/slowlog', { method: 'DELETE' });
  }

  latency(): Promise<LatencyView> {
    return api<LatencyView>('/api/latency');
  }

  compat(): Promise<CompatView> {
    return api<CompatView>('/api/compat');
  }

  resetCompat(): Promise<CompatView> {
    return api<CompatView>('/api/compat', { method: 'DELETE' });
  }

  hotKeys(count?: number): Promise<HotKeysView> {
    return api<HotKeysView>(count === undefined ? '/api/hotkeys' : `/api/hotkeys?count=${count}`);
  }

  resetHotKeys(): Promise<HotKeysView> {
    return api<HotKeysView>('/api/hotkeys', { method: 'DELETE' });
  }

  runningScript(): Promise<RunningScriptView> {
    return api<RunningScriptView>('/api/running-script');
  }

  killRunningScript(): Promise<{ killed: boolean }> {
    return api<{ killed: boolean }>('/api/running-script/kill', { method: 'POST' });
  }

  scripts(): Promise<ScriptsView> {
    return api<ScriptsView>('/api/scripts');
  }

  script(id: string): Promise<ScriptDetail> {
    return api<ScriptDetail>(`/api/scripts/${encodeURIComponent(id)}`);
  }

  command(args: string[]): Promise<Reply> {
    return api<Reply>('/api/command', { method: 'POST', body: { args } });
  }

  memory(db?: number): Promise<MemoryView> {
    return api<MemoryView>(db === undefined ? '/api/memory' : `/api/memory?db=${db}`);
  }

  commands(): Promise<{ commands: CommandInfo[] }> {
    return api<{ commands: CommandInfo[] }>('/api/commands');
  }

  clients(): Promise<ClientsView> {
    return api<ClientsView>('/api/clients');
  }

  killClient(id: number): Promise<{ killed: boolean }> {
    return api<{ killed: boolean }>(`/api/clients/${id}`, { method: 'DELETE' });
  }

  monitor(since: number): Promise<MonitorView> {
    return api<MonitorView>(`/api/monitor?since=${since}`);
  }

  keyspaceEvents(since: number): Promise<KeyspaceEventsView> {
    return api<KeyspaceEventsView>(`/api/events/keyspace?since=${since}`);
  }

  monitorStream(onView: (v: MonitorView) => void, signal: AbortSignal, onOpen: () => void): Promise<void> {
    return streamEvents(
      '/api/monitor/stream',
      (ev) => {
        if (ev.event === 'commands') onView(JSON.parse(ev.data) as MonitorView);
      },
      signal,
      onOpen,
    );
  }

  config(): Promise<ConfigView> {
    return api<ConfigView>('/api/config');
  }

  patchConfig(changes: Record<string, string>): Promise<ConfigView> {
    return api<ConfigView>('/api/config', { method: 'PATCH', body: changes });
  }

  me(): Promise<MeView> {
    return api<MeView>('/api/auth/me');
  }

  aclUsers(): Promise<AclUserView[]> {
    return api<AclUserView[]>('/api/acl/users');
  }

  aclLog(count?: number): Promise<AclLogView[]> {
    return api<AclLogView[]>(count === undefined ? '/api/acl/log' : `/api/acl/log?count=${count}`);
  }

  aclSetUser(name: string, rules: string): Promise<AclUserView> {
    return api<AclUserView>(`/api/acl/users/${encodeURIComponent(name)}`, { method: 'PUT', body: { rules } });
  }

  async aclPreview(name: string, rules: string): Promise<string> {
    const r = await api<{ line: string }>(`/api/acl/users/${encodeURIComponent(name)}/preview`, { method: 'POST', body: { rules } });
    return r.line;
  }

  async aclDelUser(name: string): Promise<void> {
    await noContent(`/api/acl/users/${encodeURIComponent(name)}`);
  }

  async aclLogReset(): Promise<void> {
    await noContent('/api/acl/log');
  }

  console(line: string, session?: string): Promise<ConsoleReply> {
    return api<ConsoleReply>('/api/console', { method: 'POST', body: { line, session } });
  }

  /** A one-off line run in database `db` (the API's `db` field; none for database 0). */
  consoleIn(line: string, db: number): Promise<ConsoleReply> {
    return api<ConsoleReply>('/api/console', { method: 'POST', body: db ? { line, db } : { line } });
  }
}

/** A DELETE answered with 204 (no body to parse); rejects with ApiError otherwise. */
async function noContent(path: string): Promise<void> {
  const res = await request(path, { method: 'DELETE' });
  if (!res.ok) throw await errorFrom(res);
}

/** The `?db=` of a single-key request (none for database 0, the API's default). */
function inDb(db: number): string {
  return db ? `?db=${db}` : '';
}
