// Start and stop the two servers the Node clients' tests run against, Vitrine and redis-server,
// each in a temporary directory on a free 127.0.0.1 port (the same harness as
// clients/python/servers.py). Vitrine is $VITRINE_BIN (default target/debug/vitrine).
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, openSync, closeSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const KINDS = ['vitrine', 'redis'];
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function vitrineBin() {
  return process.env.VITRINE_BIN || join(ROOT, 'target', 'debug', 'vitrine');
}

/** A port nothing listens on right now (redis-server cannot pick one itself). */
function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

/** True when a PING on 127.0.0.1:port gets +PONG within a second. */
function pings(port) {
  return new Promise((res) => {
    const sock = connect({ host: '127.0.0.1', port });
    const done = (ok) => {
      sock.destroy();
      res(ok);
    };
    sock.setTimeout(1000, () => done(false));
    sock.once('error', () => done(false));
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.once('data', (buf) => done(buf.toString().startsWith('+PONG')));
  });
}

export class Server {
  constructor(kind) {
    if (!KINDS.includes(kind)) throw new Error(`unknown server kind ${kind}`);
    this.kind = kind;
    this.dir = mkdtempSync(join(tmpdir(), `clients-${kind}-`));
    this.port = 0;
    this.proc = null;
    this.log = join(this.dir, 'server.log');
  }

  argv(port) {
    if (this.kind === 'vitrine') {
      const bin = vitrineBin();
      try {
        accessSync(bin, constants.X_OK);
      } catch {
        throw new Error(`no Vitrine binary at ${bin}: run \`cargo build -p vitrine-server\` or set VITRINE_BIN`);
      }
      return [bin, '--port', String(port), '--port-file', join(this.dir, 'port'), '--bind', '127.0.0.1',
        '--http-port', '0', '--dir', this.dir, '--appendonly', 'no', '--web-dir', join(this.dir, 'no-web')];
    }
    return ['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--dir', this.dir,
      '--save', '', '--appendonly', 'no', '--daemonize', 'no'];
  }

  async start() {
    // Vitrine takes --port 0 and says which port in --port-file; redis-server gets a port that
    // was free a moment ago, and two more tries if someone took it meanwhile.
    const attempts = this.kind === 'vitrine' ? 1 : 3;
    for (let attempt = 1; ; attempt++) {
      const port = this.kind === 'vitrine' ? 0 : await freePort();
      const out = openSync(this.log, 'a');
      const [bin, ...args] = this.argv(port);
      this.proc = spawn(bin, args, { cwd: this.dir, stdio: ['ignore', out, out] });
      closeSync(out);
      try {
        await this.waitReady(port);
        return this;
      } catch (err) {
        await this.stopProcess();
        if (attempt >= attempts) throw err;
      }
    }
  }

  async waitReady(port) {
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
        throw new Error(`${this.kind} exited (${this.proc.exitCode ?? this.proc.signalCode}); its log:\n${this.tailLog()}`);
      }
      if (port === 0) {
        let text = '';
        try {
          text = readFileSync(join(this.dir, 'port'), 'utf8').trim();
        } catch {
          // not written yet
        }
        if (text) port = Number(text);
      }
      if (port !== 0 && (await pings(port))) {
        this.port = port;
        return;
      }
      await sleep(50);
    }
    throw new Error(`${this.kind} did not answer PING within ${START_TIMEOUT_MS} ms; its log:\n${this.tailLog()}`);
  }

  tailLog() {
    try {
      return readFileSync(this.log, 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      return '(no log)';
    }
  }

  async stopProcess() {
    const proc = this.proc;
    this.proc = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((res) => proc.once('exit', res));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  async stop() {
    await this.stopProcess();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
