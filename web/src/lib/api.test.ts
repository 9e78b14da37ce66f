import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, api, request } from './api';
import { Auth } from './auth.svelte';

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

const unauthorized = () => json(401, { error: { code: 'unauthorized', message: 'this server needs an admin token' } });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('api', () => {
  it('returns the JSON body', async () => {
    const fetch = vi.fn(async () => json(200, { ok: 1 }));
    vi.stubGlobal('fetch', fetch);
    expect(await api('/api/stats')).toEqual({ ok: 1 });
    const [, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect((init.headers as Record<string, string>).Authorization).toBeUndefined();
  });

  it('sends JSON bodies with their content type', async () => {
    const fetch = vi.fn(async () => json(200, {}));
    vi.stubGlobal('fetch', fetch);
    await api('/api/config', { method: 'PATCH', body: { hz: 20 } });
    const [path, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(path).toBe('/api/config');
    expect(init.method).toBe('PATCH');
    expect(init.body).toBe('{"hz":20}');
    expect((init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
  });

  it("turns the API's error body into ApiError", async () => {
    vi.stubGlobal('fetch', async () => json(409, { error: { code: 'conflict', message: 'benchmark run 3 is still going' } }));
    const e = await api('/api/bench', { method: 'POST', body: {} }).catch((x) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 409, code: 'conflict', message: 'benchmark run 3 is still going' });
  });

  it('keeps the status when the error body is not JSON', async () => {
    vi.stubGlobal('fetch', async () => new Response('oops', { status: 502, statusText: 'Bad Gateway' }));
    await expect(api('/api/stats')).rejects.toMatchObject({ status: 502, message: 'Bad Gateway' });
  });

  it('reports an unreachable server as status 0', async () => {
    vi.stubGlobal('fetch', async () => Promise.reject(new TypeError('Failed to fetch')));
    await expect(api('/api/stats')).rejects.toMatchObject({ status: 0, code: 'network' });
  });
});

describe('the token flow', () => {
  it('asks for a token on 401, then retries with it', async () => {
    const auth = new Auth();
    const seen: (string | undefined)[] = [];
    vi.stubGlobal('fetch', async (_p: string, init: RequestInit) => {
      const h = (init.headers as Record<string, string>).Authorization;
      seen.push(h);
      return h === 'Bearer s3cret' ? json(200, { ok: true }) : unauthorized();
    });
    const pending = request('/api/stats', {}, auth);
    await vi.waitFor(() => expect(auth.request).not.toBeNull());
    expect(auth.request?.message).toMatch(/needs an admin token/);
    auth.submit('s3cret');
    const res = await pending;
    expect(res.status).toBe(200);
    expect(seen).toEqual([undefined, 'Bearer s3cret']);
    expect(auth.token).toBe('s3cret');
    expect(auth.request).toBeNull();
  });

  it('asks once for many requests waiting at the same time', async () => {
    const auth = new Auth();
    const ask = vi.spyOn(auth, 'requestToken');
    vi.stubGlobal('fetch', async (_p: string, init: RequestInit) =>
      (init.headers as Record<string, string>).Authorization === 'Bearer t' ? json(200, {}) : unauthorized(),
    );
    const all = Promise.all([request('/a', {}, auth), request('/b', {}, auth), request('/c', {}, auth)]);
    await vi.waitFor(() => expect(ask).toHaveBeenCalledTimes(3));
    auth.submit('t');
    const results = await all;
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    // three callers, one prompt: they all got the same promise
    expect(new Set(ask.mock.results.map((r) => r.value)).size).toBe(1);
  });

  it('asks again when the token is wrong', async () => {
    const auth = new Auth();
    vi.stubGlobal('fetch', async (_p: string, init: RequestInit) =>
      (init.headers as Record<string, string>).Authorization === 'Bearer right' ? json(200, {}) : unauthorized(),
    );
    const pending = request('/api/stats', {}, auth);
    await vi.waitFor(() => expect(auth.request).not.toBeNull());
    auth.submit('wrong');
    await vi.waitFor(() => expect(auth.request?.message).toMatch(/not accepted/));
    auth.submit('right');
    expect((await pending).status).toBe(200);
  });

  it('gives up with 401 when the person cancels', async () => {
    const auth = new Auth();
    vi.stubGlobal('fetch', async () => unauthorized());
    const pending = request('/api/stats', {}, auth);
    await vi.waitFor(() => expect(auth.request).not.toBeNull());
    auth.cancel();
    const res = await pending;
    expect(res.status).toBe(401);
    expect(auth.request).toBeNull();
  });

  it("asks for the RESP password when the server's 401 says so", async () => {
    const auth = new Auth();
    const wantsPassword = () =>
      json(401, { error: { code: 'unauthorized', message: 'send the password', secret: 'password' } });
    vi.stubGlobal('fetch', async (_p: string, init: RequestInit) =>
      (init.headers as Record<string, string>).Authorization === 'Bearer pw' ? json(200, {}) : wantsPassword(),
    );
    const pending = request('/api/stats', {}, auth);
    await vi.waitFor(() => expect(auth.request).not.toBeNull());
    expect(auth.request).toMatchObject({ secret: 'password' });
    expect(auth.request?.message).toMatch(/password Redis clients send with AUTH/);
    auth.submit('wrong');
    await vi.waitFor(() => expect(auth.request?.message).toMatch(/That password was not accepted/));
    auth.submit('pw');
    expect((await pending).status).toBe(200);
    expect(auth.secret).toBe('password');
  });

  it('keeps the token in sessionStorage for the tab', async () => {
    const store = new Map<string, string>();
    vi.stubGlobal('sessionStorage', {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => store.set(k, v),
      removeItem: (k: string) => store.delete(k),
    });
    const a = new Auth();
    a.submit('  tok  ');
    expect(store.get('vitrine.adminToken')).toBe('tok');
    expect(new Auth().token).toBe('tok');
    a.forget();
    expect(new Auth().token).toBeNull();
  });
});
