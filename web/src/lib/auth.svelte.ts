// The admin API's secret: the admin token, or the RESP password when the server has no token
// (its 401 says which). Kept in sessionStorage ("keeps it for the tab"), asked for once when
// the server answers 401, shared by every request waiting on it (one prompt, not one per call).

const STORAGE_KEY = 'vitrine.adminToken';
const SECRET_KEY = 'vitrine.adminSecret';

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
  /** Set while the token prompt should be shown. */
  request = $state<TokenRequest | null>(null);
  #waiting: Promise<string | null> | null = null;
  #resolve: ((token: string | null) => void) | null = null;

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
    if (this.request) this.secret = this.request.secret;
    const s = storage();
    if (t) {
      s?.setItem(STORAGE_KEY, t);
      s?.setItem(SECRET_KEY, this.secret);
    } else s?.removeItem(STORAGE_KEY);
    this.#finish(this.token);
  }

  cancel(): void {
    this.#finish(null);
  }

  /** Forgets the stored token (e.g. "sign out"). */
  forget(): void {
    this.token = null;
    storage()?.removeItem(STORAGE_KEY);
    storage()?.removeItem(SECRET_KEY);
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
