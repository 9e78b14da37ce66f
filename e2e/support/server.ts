// Starts the real `vitrine` binary on free ports (RESP and admin HTTP, both `0`, read back
// from --port-file / --http-port-file) with the built dashboard and a temporary --dir, and
// stops it again.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WEB_DIST = path.join(ROOT, 'web', 'dist');

/**
 * The binary to test: $VITRINE_BIN (scripts/test sets it to the debug build it just made),
 * else the newer of target/release/vitrine and target/debug/vitrine, so a stale build of the
 * other profile is never picked by accident.
 */
export function vitrineBin(): string {
  const fromEnv = process.env.VITRINE_BIN;
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) throw new Error(`VITRINE_BIN=${fromEnv} does not exist`);
    return fromEnv;
  }
  const target = process.env.CARGO_TARGET_DIR ? path.resolve(ROOT, process.env.CARGO_TARGET_DIR) : path.join(ROOT, 'target');
  const found = ['release', 'debug']
    .map((profile) => path.join(target, profile, 'vitrine'))
    .filter((p) => fs.existsSync(p))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  if (found.length === 0) {
    throw new Error(`no vitrine binary in ${target}: run 'cargo build -p vitrine-server' (or set VITRINE_BIN)`);
  }
  return found[0];
}

export interface Server {
  /** http://127.0.0.1:<port> of the admin API and dashboard. */
  url: string;
  httpPort: number;
  respPort: number;
  /** The temporary --dir. */
  dir: string;
  /** Everything the server printed so far. */
  log(): string;
}

export interface StartOptions {
  /** Extra flags, e.g. ['--maxmemory', '1mb', '--maxmemory-policy', 'allkeys-lru']. */
  args?: string[];
  /** How long to wait for the ports and /readyz. */
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readPort(file: string): number | null {
  try {
    const text = fs.readFileSync(file, 'utf8');
    if (!text.endsWith('\n')) return null;
    const port = Number(text.trim());
    return Number.isInteger(port) && port > 0 ? port : null;
  } catch {
    return null;
  }
}

export class RunningServer implements Server {
  url = '';
  httpPort = 0;
  respPort = 0;
  readonly dir: string;
  #child: ChildProcess;
  #output: string[] = [];
  #exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  #exited: Promise<void>;

  private constructor(dir: string, child: ChildProcess) {
    this.dir = dir;
    this.#child = child;
    const keep = (chunk: Buffer) => {
      this.#output.push(chunk.toString('utf8'));
      if (this.#output.length > 2000) this.#output.splice(0, 1000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        resolve();
      });
      child.once('error', (e) => {
        this.#output.push(`spawn failed: ${e.message}\n`);
        this.#exit = { code: -1, signal: null };
        resolve();
      });
    });
  }

  static async start(options: StartOptions = {}): Promise<RunningServer> {
    if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) {
      throw new Error(`${WEB_DIST}/index.html is missing: build the dashboard first (cd web && npm ci && npm run build)`);
    }
    const bin = vitrineBin();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-e2e-'));
    const portFile = path.join(dir, 'resp.port');
    const httpPortFile = path.join(dir, 'http.port');
    const args = [
      '--port', '0', '--port-file', portFile,
      '--http-port', '0', '--http-port-file', httpPortFile,
      '--web-dir', WEB_DIST,
      '--dir', dir,
      ...(options.args ?? []),
    ];
    // A clean environment for the server's own options: a VITRINE_* variable from the
    // developer's shell must not change what the test starts.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITRINE_')));
    const child = spawn(bin, args, { cwd: dir, env: { ...env, RUST_LOG: env.RUST_LOG ?? 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new RunningServer(dir, child);
    try {
      await server.#waitReady(options.timeoutMs ?? 15_000);
    } catch (e) {
      await server.stop();
      throw new Error(`${(e as Error).message}\n$ ${bin} ${args.join(' ')}\n${server.log()}`);
    }
    return server;
  }

  log(): string {
    return this.#output.join('');
  }

  async #waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const portFile = path.join(this.dir, 'resp.port');
    const httpPortFile = path.join(this.dir, 'http.port');
    while (Date.now() < deadline) {
      if (this.#exit) throw new Error(`vitrine exited during start (code ${this.#exit.code}, signal ${this.#exit.signal})`);
      const resp = readPort(portFile);
      const http = readPort(httpPortFile);
      if (resp && http) {
        this.respPort = resp;
        this.httpPort = http;
        this.url = `http://127.0.0.1:${http}`;
        try {
          const res = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(1000) });
          if (res.ok) return;
        } catch {
          // not answering yet
        }
      }
      await sleep(50);
    }
    throw new Error(`vitrine was not ready within ${timeoutMs} ms`);
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; removes the temp dir. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.#exit) {
      this.#child.kill('SIGTERM');
      const timedOut = await Promise.race([this.#exited.then(() => false), sleep(graceMs).then(() => true)]);
      if (timedOut && !this.#exit) {
        this.#child.kill('SIGKILL');
        await this.#exited;
      }
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
