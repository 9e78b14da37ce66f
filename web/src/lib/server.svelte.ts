// ServerInfo: one GET /api/stats for the facts samples do not carry (version, RESP port,
// policy), refreshed on demand.

import type { StatsSnapshot } from './types';

export class ServerInfo {
  snapshot = $state.raw<StatsSnapshot | null>(null);
  error = $state<string | null>(null);

  readonly #fetch: () => Promise<StatsSnapshot>;

  constructor(fetchStats: () => Promise<StatsSnapshot>) {
    this.#fetch = fetchStats;
  }

  async load(): Promise<void> {
    try {
      this.snapshot = await this.#fetch();
      this.error = null;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }
}
