// What the signed-in principal may do on the dashboard (GET /api/auth/me: the server asks
// the engine's ACL DRYRUN for each action), so pages disable a write action before the
// person tries it and show the NOPERM text the server would answer as the reason. Until it
// has loaded, and when the backend has no such endpoint, everything is allowed: the server
// still refuses what the user may not do, this only saves a pointless click.

import { errorMessage } from './api';
import { ADMIN_ME, type Action, type MeView } from './acl';

export class Permissions {
  me = $state.raw<MeView | null>(null);
  error = $state<string | null>(null);
  readonly #fetch: () => Promise<MeView>;
  #generation = 0;

  constructor(fetch: () => Promise<MeView>) {
    this.#fetch = fetch;
  }

  /** (Re)loads the map, e.g. after signing in or out; a slower earlier answer is dropped. */
  async load(): Promise<void> {
    const generation = ++this.#generation;
    try {
      const me = await this.#fetch();
      if (generation !== this.#generation) return;
      this.me = me;
      this.error = null;
    } catch (e) {
      if (generation !== this.#generation) return;
      this.error = errorMessage(e);
    }
  }

  /** Forgets the map (signed out): everything is allowed until the next load. */
  clear(): void {
    this.#generation++;
    this.me = null;
  }

  /** Whether `action` is allowed (true while unknown). */
  allowed(action: Action): boolean {
    return this.me?.permissions[action]?.allowed ?? true;
  }

  /** The NOPERM text for a refused action, or null when it is allowed (or unknown). */
  reason(action: Action): string | null {
    const p = this.me?.permissions[action];
    if (!p || p.allowed) return null;
    return p.reason ?? `NOPERM this user has no permissions for ${action}`;
  }

  /** The ACL user signed in, or null (the admin token, the playground, or not yet known). */
  get user(): string | null {
    return this.me?.user ?? null;
  }
}

/** A Permissions that allows everything (the playground's person is always the admin). */
export function adminPermissions(): Permissions {
  const p = new Permissions(async () => ADMIN_ME);
  p.me = ADMIN_ME;
  return p;
}
