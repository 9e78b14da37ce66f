// ConsoleState: the Console page's transcript, line history (ArrowUp/ArrowDown, kept in
// localStorage like redis-cli's ~/.rediscli_history, secrets left out), help from the command
// table, and the confirmation step for dangerous commands.

import { argText, argsToJson, formatReply, isRawOutput, splitArgs } from './cli';
import { commandTable, helpText, newSessionId, runCommand, usage, type CommandTable } from './commands.svelte';
import { feed } from './stats.svelte';
import type { Bytes, Reply } from './types';

export interface Entry {
  id: number;
  /** What was typed ('' for messages not tied to a line). */
  input: string;
  output: string;
  kind: 'reply' | 'error' | 'info';
}

export interface PendingConfirm {
  line: string;
  argv: Uint8Array[];
  words: string[];
  reason: string;
}

/** More keys than this make KEYS ask first (it walks the whole keyspace at once). */
export const LARGE_KEYSPACE = 10_000;
const MAX_ENTRIES = 500;
const MAX_HISTORY = 200;
const HISTORY_KEY = 'vitrine.consoleHistory';

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

export interface ConsoleDeps {
  run: (argv: Bytes[]) => Promise<Reply>;
  keyCount: () => number | null;
  table: CommandTable;
  storage: Storage | null;
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

  readonly #deps: ConsoleDeps;
  #history: string[];
  /** Position in history while browsing; history.length means "the line being typed". */
  #pos: number;
  #draft = '';
  #nextId = 1;

  constructor(deps: Partial<ConsoleDeps> = {}) {
    // One server-side session per console, so a transaction typed line by line works.
    const session = newSessionId();
    this.#deps = {
      run: deps.run ?? ((argv) => runCommand(argv, session)),
      keyCount: deps.keyCount ?? (() => feed.latest?.keys ?? null),
      table: deps.table ?? commandTable,
      storage: deps.storage === undefined ? defaultStorage() : deps.storage,
    };
    this.#history = this.#loadHistory();
    this.#pos = this.#history.length;
  }

  get history(): readonly string[] {
    return this.#history;
  }

  /** Runs a typed line: local commands (HELP, CLEAR), confirmation when dangerous, else the server. */
  async submit(line: string): Promise<void> {
    if (line.trim() === '') return;
    const argv = splitArgs(line);
    const words = argv ? argv.map(argText) : [];
    this.#remember(line, words);
    if (argv === null) {
      this.#push(line, 'Invalid argument(s)', 'error');
      return;
    }
    const cmd = words[0].toUpperCase();
    if (cmd === 'CLEAR' && words.length === 1) {
      this.entries = [];
      return;
    }
    if (cmd === 'HELP') {
      this.#push(line, await this.#help(words.slice(1)), 'info');
      return;
    }
    const reason = dangerReason(words, this.#deps.keyCount());
    if (reason) {
      this.pending = { line, argv, words, reason };
      return;
    }
    await this.#execute(line, argv, words);
  }

  /** Runs the command waiting for confirmation. */
  async confirm(): Promise<void> {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    await this.#execute(p.line, p.argv, p.words);
  }

  /** Drops the command waiting for confirmation, noting it in the transcript. */
  cancel(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    this.#push(p.line, '(not run)', 'info');
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
    const argv = splitArgs(line);
    if (!argv || argv.length === 0) return null;
    const name = argText(argv[0]);
    const info = this.#deps.table.find(name);
    if (info) return usage(info);
    if (argv.length === 1 && !/\s$/.test(line)) {
      const names = this.#deps.table.complete(name);
      if (names.length > 0) return names.slice(0, 8).join('  ') + (names.length > 8 ? '  …' : '');
    }
    return null;
  }

  async #execute(line: string, argv: Uint8Array[], words: string[]): Promise<void> {
    this.busy = true;
    try {
      const reply = await this.#deps.run(argsToJson(argv));
      this.#push(line, formatReply(reply, { raw: isRawOutput(words) }), reply.type === 'error' ? 'error' : 'reply');
    } catch (e) {
      this.#push(line, `(error) ${e instanceof Error ? e.message : String(e)}`, 'error');
    } finally {
      this.busy = false;
    }
  }

  async #help(topic: string[]): Promise<string> {
    const table = this.#deps.table;
    try {
      await table.load();
    } catch {
      return 'Help is not available: the command table could not be loaded.';
    }
    if (topic.length === 0) {
      const groups = [...table.groups().keys()].sort().map((g) => '@' + g);
      return [
        'Type a command as in redis-cli, for example: SET greeting hello',
        '  HELP <command>   syntax and summary of a command',
        `  HELP @<group>    commands of a group: ${groups.join(', ')}`,
        '  CLEAR            clear the screen',
        'Up/Down browse history; Tab completes a command name.',
      ].join('\n');
    }
    const first = topic[0];
    if (first.startsWith('@')) {
      const list = table.groups().get(first.slice(1).toLowerCase());
      if (!list) return `No such group: ${first}`;
      return list.map(helpText).join('\n\n');
    }
    const info = table.find(topic.join(' ')) ?? table.find(first);
    return info ? helpText(info) : `No help for ${topic.join(' ')}: not a known command.`;
  }

  #push(input: string, output: string, kind: Entry['kind']): void {
    const next = [...this.entries, { id: this.#nextId++, input, output, kind }];
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
        this.#deps.storage?.setItem(HISTORY_KEY, JSON.stringify(this.#history));
      } catch {
        // full or disabled storage: history lasts for this page
      }
    }
    this.#pos = this.#history.length;
  }

  #loadHistory(): string[] {
    try {
      const v = JSON.parse(this.#deps.storage?.getItem(HISTORY_KEY) ?? '[]');
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(-MAX_HISTORY) : [];
    } catch {
      return [];
    }
  }
}
