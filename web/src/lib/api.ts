// The admin API client: a fetch wrapper that sends the admin token (or the RESP password) when
// one is stored, asks for one (TokenPrompt) when the server answers 401 and retries, and turns
// the API's `{"error": {"code", "message"}}` answers into ApiError.

import { auth, type Auth, type Secret } from './auth.svelte';

export class ApiError extends Error {
  /** HTTP status; 0 when the server could not be reached. */
  readonly status: number;
  /** The API's machine-readable code (`not_found`, `conflict`, ...) or `network`. */
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, with its content type (a key file's bytes), instead of `body`. */
  raw?: { data: Uint8Array; type: string };
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** How many times one call may ask for a token before giving up (wrong token each time). */
const MAX_TOKEN_TRIES = 5;

/** Reads `{"error": {...}}` from a failed response, or makes one from its status. */
export async function errorFrom(res: Response): Promise<ApiError> {
  let code = 'http_' + res.status;
  let message = res.statusText || `HTTP ${res.status}`;
  try {
    const body = await res.json();
    if (body?.error?.message) {
      code = String(body.error.code ?? code);
      message = String(body.error.message);
    }
  } catch {
    // not JSON: keep the status text
  }
  return new ApiError(res.status, code, message);
}

/**
 * One request with the token flow. Resolves with the Response whatever its status except 401
 * (which prompts, then retries with the new token); rejects with ApiError(0, 'network') when
 * the server cannot be reached, and with the abort error when `signal` aborts.
 */
export async function request(path: string, options: RequestOptions = {}, who: Auth = auth): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    const sent = who.token;
    if (sent) headers.Authorization = `Bearer ${sent}`;
    let body: BodyInit | undefined;
    if (options.raw !== undefined) {
      headers['Content-Type'] = options.raw.type;
      body = options.raw.data as Uint8Array<ArrayBuffer>;
    } else if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    let res: Response;
    try {
      res = await fetch(path, { method: options.method ?? 'GET', headers, body, signal: options.signal, cache: 'no-store' });
    } catch (e) {
      if (options.signal?.aborted) throw e;
      throw new ApiError(0, 'network', 'The server could not be reached.');
    }
    if (res.status !== 401 || attempt >= MAX_TOKEN_TRIES) return res;
    const secret = await secretWanted(res);
    // Another request got a new token while this one was in flight: just retry with it.
    if (who.token && who.token !== sent) continue;
    // A user's session ends after 12 idle hours (or with the user): say so, not "wrong token".
    const message = who.user !== null ? `Your session as ${who.user} has ended: sign in again.` : signInMessage(secret, who.token !== null);
    const token = await who.requestToken(message, secret);
    if (token === null) {
      const what = secret === 'password' ? 'password' : 'admin token';
      const body = { error: { code: 'unauthorized', message: `No ${what} was given.` } };
      return new Response(JSON.stringify(body), { status: 401, headers: { 'Content-Type': 'application/json' } });
    }
  }
}

/** Which secret a 401 asks for (`error.secret`); an older server only had the admin token. */
async function secretWanted(res: Response): Promise<Secret> {
  try {
    const body = await res.json();
    return body?.error?.secret === 'password' ? 'password' : 'token';
  } catch {
    return 'token';
  }
}

/** What the sign-in says: which secret to enter, or that the one given was refused. */
export function signInMessage(secret: Secret, refused: boolean): string {
  if (secret === 'password') {
    return refused
      ? 'That password was not accepted. Check it and try again.'
      : 'This server has a password and no admin token: enter the password Redis clients send with AUTH (--requirepass).';
  }
  return refused
    ? 'That admin token was not accepted. Check it and try again.'
    : 'This server needs an admin token (the one vitrine was started with, --admin-token).';
}

/** A JSON request: resolves with the parsed body, rejects with ApiError for any non-2xx. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const res = await request(path, options);
  if (!res.ok) throw await errorFrom(res);
  return (await res.json()) as T;
}

/** Like `api` but resolves with the body text (for bodies parsed specially). */
export async function apiText(path: string, options: RequestOptions = {}): Promise<string> {
  const res = await request(path, options);
  if (!res.ok) throw await errorFrom(res);
  return res.text();
}

/** A message for people from any error. */
export function errorMessage(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
