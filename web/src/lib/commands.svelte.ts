// The command table (GET /api/commands) for console help and completion, and running one
// command through POST /api/command.

import { api, apiText } from './api';
import { parseReplyJson } from './cli';
import type { Bytes, CommandInfo, Reply } from './types';

/** POST /api/command: the reply as tagged JSON (a Redis error is a reply, not a throw). With a
 * `session` id the command runs in that console session on the server, so MULTI/EXEC, WATCH
 * and CLIENT SETNAME carry over from one command to the next. */
export async function runCommand(argv: Bytes[], session?: string): Promise<Reply> {
  const body = session === undefined ? argv : { args: argv, session };
  return parseReplyJson(await apiText('/api/command', { method: 'POST', body }));
}

/** A fresh console session id (letters, digits and '-', as the server accepts). */
export function newSessionId(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return `s-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** "SET key value [NX | XX] ..." */
export function usage(c: CommandInfo): string {
  return c.syntax ? `${c.name} ${c.syntax}` : c.name;
}

/** Help for one command, laid out as redis-cli's `help <command>`. */
export function helpText(c: CommandInfo): string {
  return [`  ${usage(c)}`, `  summary: ${c.summary}`, `  group: ${c.group}`].join('\n');
}

export class CommandTable {
  list = $state.raw<CommandInfo[]>([]);
  loaded = $state(false);
  #loading: Promise<void> | null = null;

  /** Loads the table once (later calls share the first request). */
  load(fetchTable: () => Promise<{ commands: CommandInfo[] }> = () => api('/api/commands')): Promise<void> {
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

  /** Every group with its commands, for `help` alone. */
  groups(): Map<string, CommandInfo[]> {
    const g = new Map<string, CommandInfo[]>();
    for (const c of this.list) {
      const arr = g.get(c.group) ?? [];
      arr.push(c);
      g.set(c.group, arr);
    }
    return g;
  }
}

export const commandTable = new CommandTable();
