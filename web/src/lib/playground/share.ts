// Share links: the typed commands, as base64url of a JSON list, in the URL's hash
// (`#cmds=...`), so no server ever sees them and the same link works under the dashboard
// (/playground) and the static build (index.html). `#/playground?cmds=...` is read too.

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
export function encodeCommands(commands: readonly string[]): string {
  return toBase64Url(new TextEncoder().encode(JSON.stringify(commands.slice(-MAX_COMMANDS))));
}

/** The command list back, or null when `text` is not one (a bad link is ignored). */
export function decodeCommands(text: string): string[] | null {
  try {
    const v: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(fromBase64Url(text.trim())));
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return null;
    return v.slice(0, MAX_COMMANDS);
  } catch {
    return null;
  }
}

/** The commands in a location hash (`#cmds=...` or `#/playground?cmds=...`), or null. */
export function commandsFromHash(hash: string): string[] | null {
  const h = hash.replace(/^#/, '');
  const query = h.startsWith('/') ? h.slice(h.indexOf('?') + 1 || h.length) : h;
  const value = new URLSearchParams(query).get('cmds');
  return value === null ? null : decodeCommands(value);
}

/** A link to this page that replays `commands`. */
export function shareLink(href: string, commands: readonly string[]): string {
  const url = new URL(href);
  url.search = '';
  url.hash = `cmds=${encodeCommands(commands)}`;
  return url.toString();
}
