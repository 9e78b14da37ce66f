// ServerInfo: one GET /api/stats for the facts samples do not carry (version, RESP port,
// policy), refreshed on demand.

import { api } from './api';
import type { StatsSnapshot } from './types';

export class ServerInfo {
  snapshot = $state.raw<StatsSnapshot | null>(null);
  error = $state<string | null>(null);

  async load(): Promise<void> {
    try {
      this.snapshot = await api<StatsSnapshot>('/api/stats');
      this.error = null;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  }
}

export const serverInfo = new ServerInfo();
