// The Scripts page's state: the cached Lua scripts (polled), the one selected with its detail,
// and the page's script console (a body, KEYS and ARGV; Load answers the SHA, Run the reply).
// The console sends the command already split (`Backend.command`), so a body with newlines and
// quotes reaches the server exactly as typed.

import { displayBytes } from './bytes';
import { errorMessage } from './api';
import { Poll } from './poll.svelte';
import type { Backend } from './backend/backend';
import type { Reply, ScriptDetail, ScriptRow, ScriptsView } from './types';

/** What the badge says on a script that touches keys it did not declare in KEYS. */
export const UNDECLARED_BADGE = 'touches undeclared keys: breaks in a cluster';

/** Whether a script touched keys outside its KEYS (it works here, but not in a cluster). */
export function touchesUndeclared(row: ScriptRow): boolean {
  return row.undeclared_keys > 0;
}

/** KEYS or ARGV as typed: words separated by spaces or newlines (none when blank). */
export function splitWords(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

/** EVAL's arguments: the body as is, the number of keys, the keys, then the arguments. */
export function evalArgs(body: string, keys: string[], argv: string[]): string[] {
  return ['EVAL', body, String(keys.length), ...keys, ...argv];
}

/** A tagged reply printed roughly as redis-cli prints it. */
export function formatReply(r: Reply, indent = ''): string {
  switch (r.type) {
    case 'status':
      return r.value;
    case 'error':
      return `(error) ${r.value}`;
    case 'int':
      return `(integer) ${r.value}`;
    case 'bulk':
      return `"${displayBytes(r.value)}"`;
    case 'verbatim':
      return `"${r.value}"`;
    case 'nil':
      return '(nil)';
    case 'double':
      return `(double) ${r.value}`;
    case 'bool':
      return `(${r.value ? 'true' : 'false'})`;
    case 'map':
      return list(r.value.flat(), indent);
    default:
      return list(r.value, indent);
  }
}

function list(items: Reply[], indent: string): string {
  if (items.length === 0) return '(empty array)';
  const width = String(items.length).length;
  return items
    .map((item, i) => {
      const n = `${String(i + 1).padStart(width)}) `;
      const inner = formatReply(item, indent + ' '.repeat(n.length));
      return (i === 0 ? '' : indent) + n + inner;
    })
    .join('\n');
}

/** The reply of a Load or Run, for the console's output. */
export interface ConsoleResult {
  text: string;
  error: boolean;
}

export class ScriptsState {
  readonly list: Poll<ScriptsView>;
  /** The selected script's SHA1. */
  selected = $state<string | null>(null);
  detail = $state.raw<ScriptDetail | null>(null);
  detailError = $state<string | null>(null);

  body = $state("return redis.call('GET', KEYS[1])");
  keys = $state('greeting');
  argv = $state('');
  /** The SHA1 the last Load answered. */
  sha = $state<string | null>(null);
  result = $state.raw<ConsoleResult | null>(null);
  busy = $state(false);

  readonly #backend: Pick<Backend, 'scripts' | 'script' | 'command'>;

  constructor(backend: Pick<Backend, 'scripts' | 'script' | 'command'>, intervalMs = 2000) {
    this.#backend = backend;
    this.list = new Poll(() => backend.scripts(), intervalMs);
  }

  /** Whether this backend runs scripts (false in the playground; unknown until loaded). */
  get available(): boolean | null {
    return this.list.data ? this.list.data.available : null;
  }

  /** Shows one script's detail (`null` closes it). */
  async select(id: string | null): Promise<void> {
    this.selected = id;
    this.detail = null;
    this.detailError = null;
    if (id === null) return;
    try {
      const d = await this.#backend.script(id);
      if (this.selected === id) this.detail = d;
    } catch (e) {
      if (this.selected === id) this.detailError = errorMessage(e);
    }
  }

  /** SCRIPT LOAD of the body: shows the SHA1 it answers. */
  async load(): Promise<void> {
    await this.#send(['SCRIPT', 'LOAD', this.body], (r) => {
      if (r.type === 'bulk') this.sha = displayBytes(r.value);
    });
  }

  /** EVAL of the body with the KEYS and ARGV typed. */
  async run(): Promise<void> {
    await this.#send(evalArgs(this.body, splitWords(this.keys), splitWords(this.argv)));
  }

  async #send(args: string[], then?: (r: Reply) => void): Promise<void> {
    this.busy = true;
    try {
      const r = await this.#backend.command(args);
      this.result = { text: formatReply(r), error: r.type === 'error' };
      then?.(r);
      // The list shows the new script (or its new call) at once.
      await this.list.refresh();
      if (this.selected) await this.select(this.selected);
    } catch (e) {
      this.result = { text: errorMessage(e), error: true };
    } finally {
      this.busy = false;
    }
  }
}
