// ConsoleState: the terminal of the Console and Playground pages, over either backend. The
// engine splits each line as redis-cli does, runs it (or answers help and clear) and formats
// the reply as redis-cli prints it (Backend.console); this keeps the transcript, the line
// history (ArrowUp/ArrowDown, kept in localStorage like redis-cli's ~/.rediscli_history,
// secrets left out), Tab completion and the syntax hint from the command table, and the
// confirmation step for dangerous commands.

import type { CommandTable } from './commands.svelte';
import { usage } from './commands.svelte';
import type { ConsoleReply } from './types';

export interface Entry {
  id: number;
  /** What was typed ('' for messages not tied to a line). */
  input: string;
  output: string;
  kind: 'reply' | 'error' | 'info';
  /** The database the line was typed in (its prompt's). */
  db: number;
}

export interface PendingConfirm {
  line: string;
  words: string[];
  reason: string;
}

/** More keys than this make KEYS ask first (it walks the whole keyspace at once). */
export const LARGE_KEYSPACE = 10_000;
const MAX_ENTRIES = 500;
const MAX_HISTORY = 200;

/**
 * Why a command deserves a confirmation, or null: FLUSHALL, FLUSHDB, CONFIG SET, SHUTDOWN,
 * and KEYS when the keyspace is large.
 */
export function dangerReason(words: string[], keyCount: number | null): string | null {
  const cmd = (words[0] ?? '').toUpperCase();
  const sub = (words[1] ?? '').toUpperCase();
  switch (cmd) {
    case 'FLUSHALL':
      return 'FLUSHALL deletes every key in the cache. This cannot be undone.';
    case 'FLUSHDB':
      return 'FLUSHDB deletes every key in the database. This cannot be undone.';
    case 'SHUTDOWN':
      return 'SHUTDOWN stops the server for every client.';
    case 'CONFIG':
      if (sub === 'SET') return "CONFIG SET changes the running server's settings for every client.";
      return null;
    case 'KEYS':
      if (keyCount !== null && keyCount > LARGE_KEYSPACE) {
        return `KEYS lists all ${keyCount.toLocaleString('en-US')} keys in one reply and holds up the server while it does. SCAN, or the Keys page, pages through them instead.`;
      }
      return null;
    default:
      return null;
  }
}

/** Lines with secrets that must not be saved in history (as redis-cli skips them). */
export function isSecret(words: string[]): boolean {
  const cmd = (words[0] ?? '').toUpperCase();
  const sub = (words[1] ?? '').toUpperCase();
  if (cmd === 'AUTH' || cmd === 'MIGRATE') return true;
  if (cmd === 'HELLO' && words.some((w) => w.toUpperCase() === 'AUTH')) return true;
  if (cmd === 'ACL' && sub === 'SETUSER') return true;
  if (cmd === 'CONFIG' && sub === 'SET' && words.some((w) => /^(requirepass|masterauth)$/i.test(w))) return true;
  return false;
}

/**
 * A line's words, for deciding before it is sent whether it needs a confirmation or must stay
 * out of history. Only whitespace splits and quotes are dropped: the engine does the real
 * splitting.
 */
export function roughWords(line: string): string[] {
  return line
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '')
    .map((w) => w.replace(/^["']|["']$/g, ''));
}

export interface ConsoleDeps {
  /** Runs one line (Backend.console in this console's session). */
  run: (line: string) => Promise<ConsoleReply>;
  keyCount: () => number | null;
  table: CommandTable;
  storage: Storage | null;
  /** Storage key of the line history. */
  historyKey: string;
  /** Whether dangerous commands ask first (false when no one else uses the cache). */
  confirmDangerous: boolean;
}

function defaultStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

export class ConsoleState {
  entries = $state.raw<Entry[]>([]);
  busy = $state(false);
  pending = $state<PendingConfirm | null>(null);
  /** A note above the transcript (a restored session). */
  notice = $state<string | null>(null);
  /** The database the session is in, as the last reply said (SELECT changes it). */
  db = $state(0);

  readonly #deps: ConsoleDeps;
  #history: string[];
  /** Position in history while browsing; history.length means "the line being typed". */
  #pos: number;
  #draft = '';
  #nextId = 1;

  constructor(deps: Pick<ConsoleDeps, 'run' | 'keyCount' | 'table'> & Partial<ConsoleDeps>) {
    this.#deps = {
      ...deps,
      storage: deps.storage === undefined ? defaultStorage() : deps.storage,
      historyKey: deps.historyKey ?? 'vitrine.consoleHistory',
      confirmDangerous: deps.confirmDangerous ?? true,
    };
    this.#history = this.#loadHistory();
    this.#pos = this.#history.length;
  }

  get history(): readonly string[] {
    return this.#history;
  }

  /** Runs a typed line, after a confirmation when it is dangerous. */
  async submit(line: string): Promise<void> {
    if (line.trim() === '') return;
    const words = roughWords(line);
    this.#remember(line, words);
    const reason = this.#deps.confirmDangerous ? dangerReason(words, this.#deps.keyCount()) : null;
    if (reason) {
      this.pending = { line, words, reason };
      return;
    }
    await this.#execute(line);
  }

  /** Runs the command waiting for confirmation. */
  async confirm(): Promise<void> {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    await this.#execute(p.line);
  }

  /** Drops the command waiting for confirmation, noting it in the transcript. */
  cancel(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    this.#push(p.line, '(not run)', 'info');
  }

  /** Adds a line that already ran, with its reply, to the transcript. */
  show(line: string, r: ConsoleReply): void {
    const text = r.text.replace(/\n$/, '');
    if (r.kind === 'reply') {
      // The line was typed at the prompt of the database before it.
      this.#push(line, text, r.reply.type === 'error' ? 'error' : 'reply');
      this.db = r.db;
      return;
    }
    switch (r.kind) {
      case 'clear':
        this.entries = [];
        return;
      case 'empty':
        return;
      case 'invalid':
        this.#push(line, text, 'error');
        return;
      case 'help':
        this.#push(line, text, 'info');
    }
  }

  /** Empties the transcript. */
  clear(): void {
    this.entries = [];
    this.notice = null;
  }

  /** ArrowUp: the previous history line (saving what was being typed), or null at the top. */
  up(current: string): string | null {
    if (this.#pos === 0) return null;
    if (this.#pos === this.#history.length) this.#draft = current;
    this.#pos--;
    return this.#history[this.#pos];
  }

  /** ArrowDown: the next history line, then back to what was being typed; null at the bottom. */
  down(): string | null {
    if (this.#pos >= this.#history.length) return null;
    this.#pos++;
    return this.#pos === this.#history.length ? this.#draft : this.#history[this.#pos];
  }

  /** Tab: completes a command name when the line is one word. */
  complete(line: string): string | null {
    if (!/^\s*\S+$/.test(line)) return null;
    const word = line.trim();
    const names = this.#deps.table.complete(word);
    if (names.length === 0) return null;
    if (names.length === 1) return names[0] + ' ';
    // Longest common prefix of the candidates, as a shell does.
    let prefix = names[0];
    for (const n of names) while (!n.startsWith(prefix)) prefix = prefix.slice(0, -1);
    return prefix.length > word.length ? prefix : names[0];
  }

  /**
   * The hint under the input: the syntax of the command being typed ("SET key value [NX | XX]
   * ..."), redis-cli style, or while its name is incomplete the commands it could become.
   */
  hint(line: string): string | null {
    const words = roughWords(line);
    if (words.length === 0) return null;
    const name = words[0];
    const info = this.#deps.table.find(name);
    if (info) return usage(info);
    if (words.length === 1 && !/\s$/.test(line)) {
      const names = this.#deps.table.complete(name);
      if (names.length > 0) return names.slice(0, 8).join('  ') + (names.length > 8 ? '  …' : '');
    }
    return null;
  }

  async #execute(line: string): Promise<void> {
    this.busy = true;
    try {
      this.show(line, await this.#deps.run(line));
    } catch (e) {
      this.#push(line, `(error) ${e instanceof Error ? e.message : String(e)}`, 'error');
    } finally {
      this.busy = false;
    }
  }

  #push(input: string, output: string, kind: Entry['kind']): void {
    const next = [...this.entries, { id: this.#nextId++, input, output, kind, db: this.db }];
    this.entries = next.length > MAX_ENTRIES ? next.slice(-MAX_ENTRIES) : next;
  }

  #remember(line: string, words: string[]): void {
    this.#pos = this.#history.length;
    this.#draft = '';
    if (isSecret(words)) return;
    if (this.#history[this.#history.length - 1] !== line) {
      this.#history.push(line);
      if (this.#history.length > MAX_HISTORY) this.#history.splice(0, this.#history.length - MAX_HISTORY);
      try {
        this.#deps.storage?.setItem(this.#deps.historyKey, JSON.stringify(this.#history));
      } catch {
        // full or disabled storage: history lasts for this page
      }
    }
    this.#pos = this.#history.length;
  }

  #loadHistory(): string[] {
    try {
      const v = JSON.parse(this.#deps.storage?.getItem(this.#deps.historyKey) ?? '[]');
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(-MAX_HISTORY) : [];
    } catch {
      return [];
    }
  }
}
