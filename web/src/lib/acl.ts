// The ACL views the Users page shows (GET /api/acl/users and /api/acl/log, or the playground's
// `acl_users_json`/`acl_log_json`: both are the engine's inspect::acl views), the permission
// map of GET /api/auth/me, and how the page words them.

import { displayBytes } from './bytes';
import type { Reply } from './types';

/** One selector of a user: its command, key and channel rules (ACL GETUSER's formats). */
export interface AclSelectorView {
  commands: string;
  keys: string;
  channels: string;
}

/** A user as the Users page lists it. */
export interface AclUserView {
  name: string;
  enabled: boolean;
  nopass: boolean;
  /** How many passwords the user has (their hashes are never sent whole). */
  passwords: number;
  /** The ACL LIST line without `user <name> `, each `#<hash>` cut to `#<8 hex>…`. */
  rules: string;
  commands: string;
  keys: string;
  channels: string;
  /** The selectors after the root one (`(...)` in the rules). */
  selectors: AclSelectorView[];
  /** When the user last signed in (AUTH, HELLO or the dashboard), unix ms. */
  last_auth_ms: number | null;
  /** Connections signed in as this user now. */
  clients: number;
}

/** One ACL LOG entry (a denied command, key, channel or sign-in). */
export interface AclLogView {
  entry_id: number;
  count: number;
  reason: 'command' | 'key' | 'channel' | 'auth' | string;
  context: 'toplevel' | 'multi' | 'lua' | string;
  object: string;
  username: string;
  created_ms: number;
  updated_ms: number;
  client_info: string;
}

/** The dashboard's actions that a user may or may not be allowed (GET /api/auth/me). */
export const ACTIONS = [
  'keys.read',
  'keys.write',
  'keys.delete',
  'keys.export',
  'keys.import',
  'flush',
  'config.read',
  'config.write',
  'clients.read',
  'clients.kill',
  'slowlog.reset',
  'scripts.kill',
  'console',
  'monitor',
  'bench',
  'acl.read',
  'acl.write',
] as const;

export type Action = (typeof ACTIONS)[number];

export interface Permission {
  allowed: boolean;
  /** The NOPERM text the server would answer, when not allowed. */
  reason: string | null;
}

/** GET /api/auth/me: who is signed in and what they may do. */
export interface MeView {
  /** The ACL user, or null for the admin token. */
  user: string | null;
  admin: boolean;
  permissions: Partial<Record<Action, Permission>>;
}

/** The principal with every action allowed: the admin token, or the playground. */
export const ADMIN_ME: MeView = {
  user: null,
  admin: true,
  permissions: Object.fromEntries(ACTIONS.map((a) => [a, { allowed: true, reason: null }])),
};

/** Rules as typed in the editor: words split on whitespace (ACL SETUSER's arguments). */
export function ruleWords(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

/** The ACL LIST line a user has: `user <name> <rules>`. */
export function aclListLine(u: Pick<AclUserView, 'name' | 'rules'>): string {
  return `user ${u.name} ${u.rules}`;
}

/** "no password", "1 password", "3 passwords" (and "nopass": anyone may sign in). */
export function passwordsLabel(u: Pick<AclUserView, 'nopass' | 'passwords'>): string {
  if (u.nopass) return 'nopass (any password)';
  if (u.passwords === 0) return 'no password';
  return `${u.passwords} password${u.passwords === 1 ? '' : 's'}`;
}

/** Why an entry is in the log, in words. */
export function reasonLabel(reason: string): string {
  switch (reason) {
    case 'command':
      return 'command not allowed';
    case 'key':
      return 'key not allowed';
    case 'channel':
      return 'channel not allowed';
    case 'auth':
      return 'failed sign-in';
    default:
      return reason;
  }
}

/** Where the denied command ran: typed by a client, queued in MULTI, or called from a script. */
export function contextLabel(context: string): string {
  switch (context) {
    case 'toplevel':
      return 'top level';
    case 'multi':
      return 'in MULTI';
    case 'lua':
      return 'in a script';
    default:
      return context;
  }
}

/** The `name=` of a CLIENT LIST line (e.g. `admin-http` for the dashboard), or its `addr=`. */
export function clientName(clientInfo: string): string {
  const field = (k: string) => new RegExp(`(?:^| )${k}=(\\S*)`).exec(clientInfo)?.[1] ?? '';
  return field('name') || field('addr') || clientInfo;
}

/** The user the playground's preview builds and deletes again (nobody else would name one so). */
export const PREVIEW_USER = '__vitrine_preview__';

/** The lines of an ACL LIST reply (bulk strings), or [] for anything else. */
function listLines(r: Reply): string[] {
  if (r.type !== 'array') return [];
  return r.value.flatMap((v) => (v.type === 'bulk' ? [displayBytes(v.value)] : v.type === 'status' ? [v.value] : []));
}

/**
 * The ACL LIST line `name` would have after `rules`, worked out with ACL commands alone (the
 * playground has no dry parse): a scratch user gets `name`'s present rules (its ACL LIST line
 * is a valid rule list, hashes included), then the new ones; its line is read and it is
 * deleted again. Throws Redis's ERR text when a rule is refused.
 */
export function previewWithCommands(run: (argv: string[]) => Reply, name: string, rules: string): string {
  const prefix = `user ${name} `;
  const present = listLines(run(['ACL', 'LIST'])).find((l) => l.startsWith(prefix));
  const base = present ? ruleWords(present.slice(prefix.length)) : [];
  run(['ACL', 'DELUSER', PREVIEW_USER]);
  try {
    for (const words of [['reset', ...base], ruleWords(rules)]) {
      const r = run(['ACL', 'SETUSER', PREVIEW_USER, ...words]);
      if (r.type === 'error') throw new Error(r.value);
    }
    const scratch = `user ${PREVIEW_USER} `;
    const line = listLines(run(['ACL', 'LIST'])).find((l) => l.startsWith(scratch));
    if (line === undefined) throw new Error('ERR the preview user vanished');
    return prefix + line.slice(scratch.length);
  } finally {
    run(['ACL', 'DELUSER', PREVIEW_USER]);
  }
}
