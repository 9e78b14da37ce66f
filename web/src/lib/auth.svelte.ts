// The admin token: kept in sessionStorage ("keeps it for the tab"), asked for once when the
// server answers 401, shared by every request waiting on it (one prompt, not one per call).

const STORAGE_KEY = 'vitrine.adminToken';

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
}

export class Auth {
  token = $state<string | null>(storage()?.getItem(STORAGE_KEY) ?? null);
  /** Set while the token prompt should be shown. */
  request = $state<TokenRequest | null>(null);
  #waiting: Promise<string | null> | null = null;
  #resolve: ((token: string | null) => void) | null = null;

  /**
   * Asks the person for a token (TokenPrompt shows `request`). Concurrent callers share one
   * prompt. Resolves with the token, or null if they cancel.
   */
  requestToken(message: string): Promise<string | null> {
    if (this.#waiting) return this.#waiting;
    this.request = { message };
    this.#waiting = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    return this.#waiting;
  }

  submit(token: string): void {
    const t = token.trim();
    this.token = t || null;
    const s = storage();
    if (t) s?.setItem(STORAGE_KEY, t);
    else s?.removeItem(STORAGE_KEY);
    this.#finish(this.token);
  }

  cancel(): void {
    this.#finish(null);
  }

  /** Forgets the stored token (e.g. "sign out"). */
  forget(): void {
    this.token = null;
    storage()?.removeItem(STORAGE_KEY);
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
