// ConfigState: GET /api/config (every parameter, and which can change at run time) and
// PATCH /api/config (applied all at once, as one CONFIG SET); and how the Config page groups
// and filters the parameters.

import type { Backend } from './backend/backend';
import type { ConfigParam, ConfigView, Effect, Group } from './types';

/** The groups in the order the page shows them, with their titles. */
export const GROUPS: readonly (readonly [Group, string])[] = [
  ['memory', 'Memory and eviction'],
  ['encoding', 'Encodings'],
  ['clients', 'Clients'],
  ['security', 'Security'],
  ['network', 'Network'],
  ['persistence', 'Persistence'],
  ['monitoring', 'Monitoring'],
  ['lazyfree', 'Lazy freeing'],
  ['advanced', 'Advanced'],
  ['general', 'General'],
  ['replication', 'Replication'],
  ['cluster', 'Cluster'],
  ['tls', 'TLS'],
];

/** What a parameter does in Vitrine, in a few words. */
export const EFFECT_TEXT: Record<Effect, string> = {
  live: 'takes effect at once',
  startup: 'read at start-up',
  none: 'no effect yet',
};

/** The parameters whose name, alias or description contains `query` (any case), in `group`
 *  (or every group), grouped in the page's order and by name within a group; empty groups are
 *  left out. */
export function groupParams(params: readonly ConfigParam[], query: string, group: Group | 'all'): { group: Group; title: string; params: ConfigParam[] }[] {
  const q = query.trim().toLowerCase();
  const hit = (p: ConfigParam) =>
    q === '' || p.name.includes(q) || (p.alias ?? '').includes(q) || p.description.toLowerCase().includes(q);
  return GROUPS.filter(([g]) => group === 'all' || g === group)
    .map(([g, title]) => ({
      group: g,
      title,
      params: params.filter((p) => p.group === g && hit(p)).sort((a, b) => a.name.localeCompare(b.name)),
    }))
    .filter((s) => s.params.length > 0);
}

export const POLICIES = [
  'noeviction',
  'allkeys-lru',
  'allkeys-lfu',
  'allkeys-random',
  'volatile-lru',
  'volatile-lfu',
  'volatile-random',
  'volatile-ttl',
] as const;

/** What each policy does, in a few words. */
export const POLICY_HELP: Record<string, string> = {
  noeviction: 'Refuse writes that need memory (OOM error) instead of evicting.',
  'allkeys-lru': 'Evict the least recently used key, among all keys.',
  'allkeys-lfu': 'Evict the least frequently used key, among all keys.',
  'allkeys-random': 'Evict a random key.',
  'volatile-lru': 'Evict the least recently used key among keys with a TTL.',
  'volatile-lfu': 'Evict the least frequently used key among keys with a TTL.',
  'volatile-random': 'Evict a random key among keys with a TTL.',
  'volatile-ttl': 'Evict the key with a TTL closest to expiring.',
};

export class ConfigState {
  view = $state.raw<ConfigView | null>(null);
  error = $state<string | null>(null);
  saving = $state(false);

  readonly #backend: Pick<Backend, 'config' | 'patchConfig'>;

  constructor(backend: Pick<Backend, 'config' | 'patchConfig'>) {
    this.#backend = backend;
  }

  async load(): Promise<void> {
    try {
      this.view = await this.#backend.config();
      this.error = null;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  /**
   * Saves the form's values that differ from the current ones (trimmed), as one change.
   * Resolves with null on success (or with nothing to change) or the server's message.
   */
  async saveChanged(form: Record<string, string>): Promise<string | null> {
    const current = this.view?.config ?? {};
    const changes: Record<string, string> = {};
    for (const [name, value] of Object.entries(form)) {
      if (value.trim() !== current[name]) changes[name] = value.trim();
    }
    return Object.keys(changes).length ? this.save(changes) : null;
  }

  /** Applies changes; resolves with null on success or the server's message. */
  async save(changes: Record<string, string>): Promise<string | null> {
    this.saving = true;
    try {
      this.view = await this.#backend.patchConfig(changes);
      return null;
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    } finally {
      this.saving = false;
    }
  }

  writable(name: string): boolean {
    return this.view?.writable.includes(name) ?? false;
  }
}
