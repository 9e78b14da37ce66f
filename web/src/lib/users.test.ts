import { describe, expect, it, vi } from 'vitest';
import { ApiError } from './api';
import type { AclUserView } from './acl';
import { UsersState, upsert } from './users.svelte';

function user(name: string, rules: string): AclUserView {
  return { name, enabled: rules.includes('on'), nopass: false, passwords: 1, rules, commands: '', keys: '', channels: '', selectors: [], last_auth_ms: null, clients: 0 };
}

function api() {
  return {
    aclUsers: vi.fn(async () => [user('default', 'on nopass ~* &* +@all'), user('reader', 'on #5e884898… ~* resetchannels -@all +@read')]),
    aclLog: vi.fn(async () => []),
    aclSetUser: vi.fn(async (name: string, rules: string) => user(name, `on ${rules}`)),
    aclPreview: vi.fn(async (name: string, rules: string) => {
      if (rules.includes('bogus')) throw new ApiError(400, 'bad_request', "ERR Error in ACL SETUSER modifier 'bogus': Syntax error");
      return `user ${name} on ${rules}`;
    }),
    aclDelUser: vi.fn(async (name: string) => {
      if (name === 'default') throw new ApiError(400, 'bad_request', "ERR The 'default' user cannot be removed");
    }),
    aclLogReset: vi.fn(async () => {}),
  };
}

describe('UsersState', () => {
  it('previews the rules, then saves them and shows the row the server answered', async () => {
    const a = api();
    const s = new UsersState(a);
    await s.users.refresh();
    s.startEdit('reader');
    s.edit!.rules = ' ~app:*\n +@write ';
    await s.preview();
    expect(a.aclPreview).toHaveBeenCalledWith('reader', '~app:* +@write');
    expect(s.edit?.preview).toBe('user reader on ~app:* +@write');
    expect(a.aclSetUser).not.toHaveBeenCalled();
    await s.save();
    expect(a.aclSetUser).toHaveBeenCalledWith('reader', '~app:* +@write');
    expect(s.edit).toBeNull();
    expect(s.users.data?.map((u) => `${u.name}: ${u.rules}`)).toEqual(['default: on nopass ~* &* +@all', 'reader: on ~app:* +@write']);
  });

  it("shows Redis's error for a refused rule and saves nothing; a new user needs a one-word name", async () => {
    const a = api();
    const s = new UsersState(a);
    s.startEdit('reader');
    s.edit!.rules = 'bogus';
    await s.preview();
    expect(s.edit?.error).toBe("ERR Error in ACL SETUSER modifier 'bogus': Syntax error");
    expect(s.edit?.preview).toBeNull();
    await s.save();
    expect(a.aclSetUser).not.toHaveBeenCalled();
    s.startEdit(null);
    s.edit!.name = 'two words';
    await s.preview();
    expect(s.edit?.error).toBe('A user name is one word, without spaces.');
    expect(a.aclPreview).toHaveBeenCalledTimes(1);
  });

  it('deletes after confirmation and says why the default user stays', async () => {
    const a = api();
    const s = new UsersState(a);
    await s.users.refresh();
    s.deleting = 'reader';
    await s.confirmDelete();
    expect(s.users.data?.map((u) => u.name)).toEqual(['default']);
    s.deleting = 'default';
    await s.confirmDelete();
    expect(s.error).toBe("ERR The 'default' user cannot be removed");
    expect(s.users.data?.map((u) => u.name)).toEqual(['default']);
  });

  it('resets the log', async () => {
    const a = api();
    const s = new UsersState(a);
    await s.resetLog();
    expect(a.aclLogReset).toHaveBeenCalled();
    expect(s.log.data).toEqual([]);
  });

  it('upsert keeps the rows in name order', () => {
    const rows = upsert([user('a', 'on'), user('c', 'on')], user('b', 'off'));
    expect(rows.map((u) => u.name)).toEqual(['a', 'b', 'c']);
  });
});
