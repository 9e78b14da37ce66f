// ConfigState: GET /api/config (every parameter, and which can change at run time) and
// PATCH /api/config (applied all at once, as one CONFIG SET).

import type { Backend } from './backend/backend';
import type { ConfigView } from './types';

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
