// Server-Sent Events over fetch: unlike EventSource this sends the Authorization header, lets
// us see the HTTP status (401 → token prompt), and reconnection is ours to schedule.

import { errorFrom, request } from './api';

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** An incremental text/event-stream parser (WHATWG HTML, "event stream interpretation"). */
export class SseParser {
  #buffer = '';
  #data: string[] = [];
  #event = '';
  #id: string | undefined;
  #first = true;

  /** Feeds a chunk of text; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    if (this.#first && chunk.length > 0) {
      this.#first = false;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    this.#buffer += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\n|\r/.exec(this.#buffer);
      if (!m) break;
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (m[0] === '\r' && m.index === this.#buffer.length - 1) break;
      const line = this.#buffer.slice(0, m.index);
      this.#buffer = this.#buffer.slice(m.index + m[0].length);
      const ev = this.#line(line);
      if (ev) out.push(ev);
    }
    return out;
  }

  #line(line: string): SseEvent | null {
    if (line === '') {
      if (this.#data.length === 0) {
        this.#event = '';
        return null;
      }
      const ev: SseEvent = { event: this.#event || 'message', data: this.#data.join('\n') };
      if (this.#id !== undefined) ev.id = this.#id;
      this.#data = [];
      this.#event = '';
      return ev;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id' && !value.includes('\0')) this.#id = value;
    return null;
  }
}

/**
 * Opens `path` as an event stream and calls `onEvent` for each event until the stream ends
 * (resolves), fails (rejects) or `signal` aborts (rejects with the abort error). `onOpen`
 * runs once the server has answered 200, before any event (a stream that only sends what
 * happens from now on: the caller catches up on what came before).
 */
export async function streamEvents(path: string, onEvent: (ev: SseEvent) => void, signal: AbortSignal, onOpen?: () => void): Promise<void> {
  const res = await request(path, { signal, headers: { Accept: 'text/event-stream' } });
  if (!res.ok) throw await errorFrom(res);
  if (!res.body) throw new Error('the stream has no body');
  onOpen?.();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const ev of parser.push(value)) onEvent(ev);
    }
  } finally {
    reader.releaseLock();
  }
}
