// Share links: the typed commands, as base64url of a JSON list, in the URL's hash
// (`#cmds=...`), so no server ever sees them and the same link works under the dashboard
// (/playground) and the static build (index.html). `#/playground?cmds=...` is read too.
// An entry is a console line, or `{"db": n, "line": ...}` for a line a page ran in database n
// (SessionCommand).

import type { SessionCommand } from '../backend/backend';

const MAX_COMMANDS = 500;

function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** The command list as base64url (UTF-8 JSON). */
export function encodeCommands(commands: readonly SessionCommand[]): string {
  return toBase64Url(new TextEncoder().encode(JSON.stringify(commands.slice(-MAX_COMMANDS))));
}

/** A console line, or a line in database `db` (a whole number). */
function isCommand(x: unknown): x is SessionCommand {
  if (typeof x === 'string') return true;
  if (typeof x !== 'object' || x === null) return false;
  const { db, line } = x as { db?: unknown; line?: unknown };
  return typeof line === 'string' && Number.isSafeInteger(db) && (db as number) >= 0;
}

/** The command list back, or null when `text` is not one (a bad link is ignored). */
export function decodeCommands(text: string): SessionCommand[] | null {
  try {
    const v: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(fromBase64Url(text.trim())));
    if (!Array.isArray(v) || !v.every(isCommand)) return null;
    return v.slice(0, MAX_COMMANDS);
  } catch {
    return null;
  }
}

/** The commands in a location hash (`#cmds=...` or `#/playground?cmds=...`), or null. */
export function commandsFromHash(hash: string): SessionCommand[] | null {
  const h = hash.replace(/^#/, '');
  const query = h.startsWith('/') ? h.slice(h.indexOf('?') + 1 || h.length) : h;
  const value = new URLSearchParams(query).get('cmds');
  return value === null ? null : decodeCommands(value);
}

/** A link to this page that replays `commands`. */
export function shareLink(href: string, commands: readonly SessionCommand[]): string {
  const url = new URL(href);
  url.search = '';
  url.hash = `cmds=${encodeCommands(commands)}`;
  return url.toString();
}
