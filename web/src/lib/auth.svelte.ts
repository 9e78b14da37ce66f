// The admin API's secret: the admin token, the RESP password when the server has no token
// (its 401 says which), or the session token of an ACL user signed in with a name and a
// password (POST /api/auth/login). Kept in sessionStorage ("keeps it for the tab"), asked for
// once when the server answers 401, shared by every request waiting on it (one prompt, not one
// per call). A user's token is sent exactly as the admin token is; the server knows whose it is.

const STORAGE_KEY = 'vitrine.adminToken';
const SECRET_KEY = 'vitrine.adminSecret';
const USER_KEY = 'vitrine.adminUser';

/** Which secret the server wants: `--admin-token`, or the RESP password (`requirepass`). */
export type Secret = 'token' | 'password';

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null; // storage disabled by the browser
  }
}

export interface TokenRequest {
  /** Why we ask: first time, or the token given was wrong. */
  message: string;
  /** What to ask for. */
  secret: Secret;
}

export class Auth {
  token = $state<string | null>(storage()?.getItem(STORAGE_KEY) ?? null);
  /** The kind of secret `token` is (for wording such as "Forget password"). */
  secret = $state<Secret>(storage()?.getItem(SECRET_KEY) === 'password' ? 'password' : 'token');
  /** The ACL user signed in with a name and password, or null (the admin token or password). */
  user = $state<string | null>(storage()?.getItem(USER_KEY) ?? null);
  /** Set while the token prompt should be shown. */
  request = $state<TokenRequest | null>(null);
  #waiting: Promise<string | null> | null = null;
  #resolve: ((token: string | null) => void) | null = null;
  readonly #fetch: typeof fetch;

  constructor(fetcher: typeof fetch = (input, init) => fetch(input, init)) {
    this.#fetch = fetcher;
  }

  /**
   * Asks the person for a token (TokenPrompt shows `request`). Concurrent callers share one
   * prompt. Resolves with the token, or null if they cancel.
   */
  requestToken(message: string, secret: Secret = 'token'): Promise<string | null> {
    if (this.#waiting) return this.#waiting;
    this.request = { message, secret };
    this.#waiting = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    return this.#waiting;
  }

  submit(token: string): void {
    const t = token.trim();
    this.token = t || null;
    this.user = null;
    if (this.request) this.secret = this.request.secret;
    const s = storage();
    s?.removeItem(USER_KEY);
    if (t) {
      s?.setItem(STORAGE_KEY, t);
      s?.setItem(SECRET_KEY, this.secret);
    } else s?.removeItem(STORAGE_KEY);
    this.#finish(this.token);
  }

  /**
   * Signs in as an ACL user (POST /api/auth/login). On success the session token replaces
   * any other and every request waiting on the prompt retries with it; resolves with null, or
   * with the server's message when it refused (a wrong pair, a disabled user), the prompt
   * staying open.
   */
  async signIn(username: string, password: string): Promise<string | null> {
    let res: Response;
    try {
      res = await this.#fetch('/api/auth/login', {
        method: 'POST',
        headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
        body: JSON.stringify({ username, password }),
        cache: 'no-store',
      });
    } catch {
      return 'The server could not be reached.';
    }
    let body: { token?: unknown; user?: unknown; error?: { message?: unknown } } | null = null;
    try {
      body = await res.json();
    } catch {
      // not JSON: answered below from the status
    }
    if (!res.ok || typeof body?.token !== 'string') {
      if (typeof body?.error?.message === 'string') return body.error.message;
      return res.status === 404 ? 'This server has no user sign-in: use its admin token.' : `Sign-in failed (HTTP ${res.status}).`;
    }
    const user = typeof body.user === 'string' ? body.user : username;
    this.token = body.token;
    this.user = user;
    const s = storage();
    s?.setItem(STORAGE_KEY, body.token);
    s?.setItem(USER_KEY, user);
    s?.removeItem(SECRET_KEY);
    this.#finish(this.token);
    return null;
  }

  /**
   * Signs out: a user's session is dropped on the server too (POST /api/auth/logout, best
   * effort), then the token is forgotten here.
   */
  async signOut(): Promise<void> {
    const token = this.token;
    const wasUser = this.user !== null;
    this.forget();
    if (!wasUser || !token) return;
    try {
      await this.#fetch('/api/auth/logout', { method: 'POST', headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
    } catch {
      // unreachable: the session expires on its own
    }
  }

  cancel(): void {
    this.#finish(null);
  }

  /** Forgets the stored token (e.g. "sign out"). */
  forget(): void {
    this.token = null;
    this.user = null;
    storage()?.removeItem(STORAGE_KEY);
    storage()?.removeItem(SECRET_KEY);
    storage()?.removeItem(USER_KEY);
  }

  #finish(token: string | null): void {
    const resolve = this.#resolve;
    this.request = null;
    this.#waiting = null;
    this.#resolve = null;
    resolve?.(token);
  }
}

export const auth = new Auth();
