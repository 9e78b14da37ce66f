// The Users page's state: the ACL users (polled), the ACL LOG (polled every 2 s while the page
// is visible), and one edit at a time: the rules typed, then the ACL LIST line the server says
// the user would have (a dry parse: nothing changes), then the save. Deleting asks first.

import { errorMessage } from './api';
import { ruleWords, type AclLogView, type AclUserView } from './acl';
import { Poll } from './poll.svelte';
import type { Backend } from './backend/backend';

/** How many log entries the page shows. */
export const LOG_COUNT = 50;

/** A user being edited (or created): its name, the rules typed, and where the edit is. */
export interface UserEdit {
  name: string;
  /** A new user: its name is typed too. */
  created: boolean;
  rules: string;
  /** The ACL LIST line the server previewed for `rules`: shown to confirm, then saved. */
  preview: string | null;
  error: string | null;
  busy: boolean;
}

type AclApi = Pick<Backend, 'aclUsers' | 'aclLog' | 'aclSetUser' | 'aclPreview' | 'aclDelUser' | 'aclLogReset'>;

export class UsersState {
  readonly users: Poll<AclUserView[]>;
  readonly log: Poll<AclLogView[]>;
  edit = $state<UserEdit | null>(null);
  /** The user whose deletion waits for a confirmation. */
  deleting = $state<string | null>(null);
  /** The last delete or reset that failed, in words. */
  error = $state<string | null>(null);
  readonly #api: AclApi;

  constructor(api: AclApi) {
    this.#api = api;
    this.users = new Poll(() => api.aclUsers(), 5000);
    this.log = new Poll(() => api.aclLog(LOG_COUNT), 2000);
  }

  /** Starts editing `name`, or a new user when null. */
  startEdit(name: string | null): void {
    this.edit = { name: name ?? '', created: name === null, rules: '', preview: null, error: null, busy: false };
  }

  cancelEdit(): void {
    this.edit = null;
  }

  /** Asks the server for the line the rules would give; a refused rule shows Redis's error. */
  async preview(): Promise<void> {
    const e = this.edit;
    if (!e) return;
    const name = e.name.trim();
    if (!name || /\s/.test(name)) {
      e.error = 'A user name is one word, without spaces.';
      return;
    }
    e.name = name;
    e.busy = true;
    e.error = null;
    try {
      e.preview = await this.#api.aclPreview(name, ruleWords(e.rules).join(' '));
    } catch (err) {
      e.error = errorMessage(err);
    } finally {
      e.busy = false;
    }
  }

  /** Back from the confirmation to the rules. */
  back(): void {
    if (this.edit) this.edit.preview = null;
  }

  /** Saves the previewed rules; the row shows the server's answer. */
  async save(): Promise<void> {
    const e = this.edit;
    if (!e || e.preview === null) return;
    e.busy = true;
    try {
      const user = await this.#api.aclSetUser(e.name, ruleWords(e.rules).join(' '));
      this.users.set(upsert(this.users.data ?? [], user));
      this.edit = null;
    } catch (err) {
      e.error = errorMessage(err);
      e.preview = null;
      e.busy = false;
    }
  }

  async confirmDelete(): Promise<void> {
    const name = this.deleting;
    this.deleting = null;
    if (name === null) return;
    try {
      await this.#api.aclDelUser(name);
      this.error = null;
      this.users.set((this.users.data ?? []).filter((u) => u.name !== name));
    } catch (err) {
      this.error = errorMessage(err);
    }
  }

  async resetLog(): Promise<void> {
    try {
      await this.#api.aclLogReset();
      this.error = null;
      this.log.set([]);
    } catch (err) {
      this.error = errorMessage(err);
    }
  }
}

/** `users` with `user` in place of the row of the same name, or added in name order. */
export function upsert(users: AclUserView[], user: AclUserView): AclUserView[] {
  const rest = users.filter((u) => u.name !== user.name);
  return [...rest, user].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
