// The ACL views the Users page shows (GET /api/acl/users and /api/acl/log, or the playground's
// `acl_users_json`/`acl_log_json`: both are the engine's inspect::acl views), the permission
// map of GET /api/auth/me, and how the page words them.

export type { AclLogView, AclSelectorView, AclUserView } from './api-types';
import type { AclUserView } from './api-types';

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

const REASONS: Record<string, string> = {
  command: 'command not allowed',
  key: 'key not allowed',
  channel: 'channel not allowed',
  auth: 'failed sign-in',
};

/** Where the denied command ran: typed by a client, queued in MULTI, or called from a script. */
const CONTEXTS: Record<string, string> = { toplevel: 'top level', multi: 'in MULTI', lua: 'in a script' };

/** Why an entry is in the log, in words (an unknown reason as is). */
export function reasonLabel(reason: string): string {
  return REASONS[reason] ?? reason;
}

/** Where the denied command ran, in words (an unknown context as is). */
export function contextLabel(context: string): string {
  return CONTEXTS[context] ?? context;
}

/** The `name=` of a CLIENT LIST line (e.g. `admin-http` for the dashboard), or its `addr=`. */
export function clientName(clientInfo: string): string {
  const field = (k: string) => new RegExp(`(?:^| )${k}=(\\S*)`).exec(clientInfo)?.[1] ?? '';
  return field('name') || field('addr') || clientInfo;
}
