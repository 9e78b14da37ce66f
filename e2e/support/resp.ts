// A tiny RESP2 client over net.Socket, so a spec can write keys "from outside" the browser,
// the way an application using the cache would.

import net from 'node:net';

export type Reply = string | number | null | Reply[] | RedisError;

export class RedisError extends Error {}

/** Encodes one command as a RESP array of bulk strings. */
export function encode(args: (string | number | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const a of args) {
    const b = Buffer.isBuffer(a) ? a : Buffer.from(String(a));
    parts.push(Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/**
 * Parses one reply at `pos`; returns it and the position after it, or null when `buf` does
 * not hold a whole reply yet.
 */
export function parse(buf: Buffer, pos = 0): { value: Reply; end: number } | null {
  const eol = buf.indexOf('\r\n', pos);
  if (eol < 0) return null;
  const line = buf.toString('utf8', pos + 1, eol);
  const next = eol + 2;
  switch (buf[pos]) {
    case 0x2b: // +
      return { value: line, end: next };
    case 0x2d: // -
      return { value: new RedisError(line), end: next };
    case 0x3a: // :
      return { value: Number(line), end: next };
    case 0x24: {
      // $
      const len = Number(line);
      if (len < 0) return { value: null, end: next };
      if (buf.length < next + len + 2) return null;
      return { value: buf.toString('utf8', next, next + len), end: next + len + 2 };
    }
    case 0x2a: {
      // *
      const n = Number(line);
      if (n < 0) return { value: null, end: next };
      const items: Reply[] = [];
      let at = next;
      for (let i = 0; i < n; i++) {
        const item = parse(buf, at);
        if (!item) return null;
        items.push(item.value);
        at = item.end;
      }
      return { value: items, end: at };
    }
    default:
      throw new Error(`unexpected RESP byte ${buf[pos]} at ${pos}`);
  }
}

export class RespClient {
  readonly #socket: net.Socket;
  #buf: Buffer = Buffer.alloc(0);
  #waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void }[] = [];
  #closed: Error | null = null;

  private constructor(socket: net.Socket) {
    this.#socket = socket;
    socket.on('data', (chunk) => this.#onData(chunk));
    socket.on('error', (e) => this.#fail(e));
    socket.on('close', () => this.#fail(new Error('connection closed')));
  }

  static connect(port: number, host = '127.0.0.1', timeoutMs = 5000): Promise<RespClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`RESP connect to ${host}:${port} timed out`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.setNoDelay(true);
        resolve(new RespClient(socket));
      });
      socket.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  }

  /** Sends one command; resolves with its reply (a Redis error resolves as RedisError). */
  command(...args: (string | number | Buffer)[]): Promise<Reply> {
    return this.pipeline([args]).then((r) => r[0]);
  }

  /** Like command, but rejects on a Redis error. */
  async ok(...args: (string | number | Buffer)[]): Promise<Reply> {
    const r = await this.command(...args);
    if (r instanceof RedisError) throw r;
    return r;
  }

  /** Sends many commands in one write and resolves with every reply, in order. */
  pipeline(commands: (string | number | Buffer)[][]): Promise<Reply[]> {
    if (this.#closed) return Promise.reject(this.#closed);
    const replies = commands.map(
      () => new Promise<Reply>((resolve, reject) => this.#waiting.push({ resolve, reject })),
    );
    this.#socket.write(Buffer.concat(commands.map(encode)));
    return Promise.all(replies);
  }

  close(): void {
    this.#socket.destroy();
  }

  #onData(chunk: Buffer): void {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    let pos = 0;
    for (;;) {
      if (pos >= this.#buf.length) break;
      const r = parse(this.#buf, pos);
      if (!r) break;
      pos = r.end;
      this.#waiting.shift()?.resolve(r.value);
    }
    this.#buf = this.#buf.subarray(pos);
  }

  #fail(e: Error): void {
    this.#closed ??= e;
    for (const w of this.#waiting.splice(0)) w.reject(e);
  }
}
