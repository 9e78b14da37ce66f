// The command table (GET /api/commands, or the wasm engine's) for the console's hints and
// Tab completion.

import type { CommandInfo } from './types';

/** A fresh console session id (letters, digits and '-', as the server accepts). */
export function newSessionId(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return `s-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** "SET key value [NX | XX] ..." */
export function usage(c: CommandInfo): string {
  return c.syntax ? `${c.name} ${c.syntax}` : c.name;
}

export class CommandTable {
  list = $state.raw<CommandInfo[]>([]);
  loaded = $state(false);
  #loading: Promise<void> | null = null;

  /** Loads the table once (later calls share the first request). */
  load(fetchTable: () => Promise<{ commands: CommandInfo[] }>): Promise<void> {
    this.#loading ??= fetchTable()
      .then((t) => {
        this.list = [...t.commands].sort((a, b) => a.name.localeCompare(b.name));
        this.loaded = true;
      })
      .catch((e) => {
        this.#loading = null; // try again next time
        throw e;
      });
    return this.#loading;
  }

  /** The command named `name` (any case), or its container's subcommand form. */
  find(name: string): CommandInfo | null {
    const n = name.toUpperCase();
    return this.list.find((c) => c.name === n) ?? null;
  }

  /** Command names starting with `prefix` (any case), shortest first. */
  complete(prefix: string): string[] {
    const p = prefix.toUpperCase();
    if (!p) return [];
    return this.list
      .map((c) => c.name)
      .filter((n) => n.startsWith(p))
      .sort((a, b) => a.length - b.length || a.localeCompare(b));
  }

}
