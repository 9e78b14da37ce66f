import { describe, expect, it, vi } from 'vitest';
import {
  ACTIONS,
  ADMIN_ME,
  aclListLine,
  clientName,
  contextLabel,
  passwordsLabel,
  reasonLabel,
  ruleWords,
  type MeView,
} from './acl';
import { Auth } from './auth.svelte';
import { Permissions, adminPermissions } from './permissions.svelte';

const READER: MeView = {
  user: 'reader',
  admin: false,
  permissions: {
    'keys.read': { allowed: true, reason: null },
    'keys.write': { allowed: false, reason: "NOPERM this user has no permissions to run the 'set' command" },
  },
};

describe('permissions', () => {
  it('allows everything until loaded, then follows the map and gives the NOPERM text', async () => {
    const fetch = vi.fn(async () => READER);
    const p = new Permissions(fetch);
    expect(p.allowed('keys.write')).toBe(true);
    expect(p.reason('keys.write')).toBeNull();
    await p.load();
    expect(p.user).toBe('reader');
    expect(p.allowed('keys.read')).toBe(true);
    expect(p.allowed('keys.write')).toBe(false);
    expect(p.reason('keys.write')).toBe("NOPERM this user has no permissions to run the 'set' command");
    // An action the server did not answer for is not guessed at.
    expect(p.allowed('flush')).toBe(true);
    p.clear();
    expect(p.allowed('keys.write')).toBe(true);
  });

  it('keeps the last answer when a reload fails, and drops a slower earlier answer', async () => {
    let release: (m: MeView) => void = () => {};
    const answers = [new Promise<MeView>((r) => (release = r)), Promise.resolve(ADMIN_ME)];
    const p = new Permissions(() => answers.shift()!);
    const slow = p.load();
    await p.load();
    release(READER);
    await slow;
    expect(p.me).toBe(ADMIN_ME);
    const failing = new Permissions(async () => {
      throw new Error('down');
    });
    failing.me = READER;
    await failing.load();
    expect(failing.error).toBe('down');
    expect(failing.allowed('keys.write')).toBe(false);
  });

  it('the playground is the admin: every action of the contract allowed', () => {
    const p = adminPermissions();
    expect(ACTIONS).toHaveLength(17);
    for (const a of ACTIONS) expect(p.allowed(a)).toBe(true);
  });
});

describe('ACL words', () => {
  it('splits rules as ACL SETUSER arguments and prints the ACL LIST line', () => {
    expect(ruleWords('  on >pw\n ~* +@read ')).toEqual(['on', '>pw', '~*', '+@read']);
    expect(ruleWords('')).toEqual([]);
    expect(aclListLine({ name: 'reader', rules: 'on #5e884898… ~* resetchannels -@all +@read' })).toBe(
      'user reader on #5e884898… ~* resetchannels -@all +@read',
    );
  });

  it('words passwords, reasons, contexts and clients', () => {
    expect(passwordsLabel({ nopass: false, passwords: 0 })).toBe('no password');
    expect(passwordsLabel({ nopass: false, passwords: 1 })).toBe('1 password');
    expect(passwordsLabel({ nopass: false, passwords: 2 })).toBe('2 passwords');
    expect(passwordsLabel({ nopass: true, passwords: 0 })).toBe('nopass (any password)');
    expect(reasonLabel('key')).toBe('key not allowed');
    expect(reasonLabel('auth')).toBe('failed sign-in');
    expect(contextLabel('multi')).toBe('in MULTI');
    expect(contextLabel('lua')).toBe('in a script');
    expect(clientName('id=7 addr=127.0.0.1:5000 laddr=x fd=8 name=admin-http age=0')).toBe('admin-http');
    expect(clientName('id=7 addr=127.0.0.1:5000 laddr=x fd=8 name= age=0')).toBe('127.0.0.1:5000');
  });
});

describe('signing in as a user', () => {
  it('posts the pair, keeps the session token and the user, and retries the waiting requests', async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({ token: 'ab'.repeat(32), user: 'reader' }), { status: 200 }));
    const auth = new Auth(fetch);
    const waiting = auth.requestToken('needs a token');
    expect(await auth.signIn('reader', 'pw')).toBeNull();
    expect(await waiting).toBe('ab'.repeat(32));
    expect(auth.user).toBe('reader');
    expect(auth.request).toBeNull();
    const [path, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(path).toBe('/api/auth/login');
    expect(JSON.parse(String(init.body))).toEqual({ username: 'reader', password: 'pw' });
  });

  it("shows the server's refusal and keeps the prompt open", async () => {
    const message = 'invalid username-password pair or user is disabled';
    const auth = new Auth(async () => new Response(JSON.stringify({ error: { code: 'unauthorized', message } }), { status: 401 }));
    void auth.requestToken('needs a token');
    expect(await auth.signIn('reader', 'nope')).toBe(message);
    expect(auth.token).toBeNull();
    expect(auth.request).not.toBeNull();
  });

  it('signs out: drops the session on the server and forgets it here', async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({ token: 'tok', user: 'reader' }), { status: 200 }));
    const auth = new Auth(fetch);
    await auth.signIn('reader', 'pw');
    fetch.mockImplementation(async () => new Response(null, { status: 204 }));
    await auth.signOut();
    expect(auth.token).toBeNull();
    expect(auth.user).toBeNull();
    const [path, init] = fetch.mock.calls[1] as unknown as [string, RequestInit];
    expect(path).toBe('/api/auth/logout');
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
  });
});

describe('an ended user session', () => {
  it('asks to sign in again, naming the user', async () => {
    const { request } = await import('./api');
    const fetch = vi.fn(async () => new Response(JSON.stringify({ token: 'tok', user: 'reader' }), { status: 200 }));
    const auth = new Auth(fetch);
    await auth.signIn('reader', 'pw');
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ error: { code: 'unauthorized', message: 'no' } }), { status: 401 }));
    const pending = request('/api/stats', {}, auth);
    await vi.waitFor(() => expect(auth.request?.message).toBe('Your session as reader has ended: sign in again.'));
    auth.cancel();
    expect((await pending).status).toBe(401);
    vi.unstubAllGlobals();
  });
});
