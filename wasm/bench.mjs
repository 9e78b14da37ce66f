// Throughput of the playground's wasm build in Node: SET and GET per second, through
// `console` (what the console does: split the line, run it, format the reply as redis-cli
// text, tagged JSON and RESP) and through `call` (already-split arguments, tagged JSON only).
// A report, not a test: nothing is asserted.
//
//     node wasm/bench.mjs                 # after the wasm build (scripts/lib.sh build_wasm_if_present)
//     node wasm/bench.mjs --seconds 5 --value-size 64 --keys 10000 --json
//
// VITRINE_WASM_PKG points at another package directory (default web/src/lib/wasm/pkg).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = process.env.VITRINE_WASM_PKG ?? path.join(root, 'web/src/lib/wasm/pkg');

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '2' },
    'value-size': { type: 'string', default: '64' },
    keys: { type: 'string', default: '10000' },
    json: { type: 'boolean', default: false },
  },
});
const seconds = Number(opts.seconds);
const valueSize = Number(opts['value-size']);
const keySpace = Number(opts.keys);

const { initSync, Playground } = await import(pathToFileURL(path.join(pkg, 'vitrine_wasm.js')).href);
initSync({ module: readFileSync(path.join(pkg, 'vitrine_wasm_bg.wasm')) });

const value = 'x'.repeat(valueSize);
const keys = Array.from({ length: keySpace }, (_, i) => `key:${String(i).padStart(12, '0')}`);

/** Runs `op(i)` in batches for about `seconds`, after a short warm-up; returns ops/sec. */
function measure(op) {
  for (let i = 0; i < 20_000; i++) op(i);
  const batch = 1000;
  let done = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  let now = start;
  while (now < end) {
    for (let i = 0; i < batch; i++) op(done + i);
    done += batch;
    now = performance.now();
  }
  return (done / (now - start)) * 1000;
}

const cases = {
  'console SET': (pg) => (i) => pg.console(`SET ${keys[i % keySpace]} ${value}`, Date.now()),
  'console GET': (pg) => (i) => pg.console(`GET ${keys[i % keySpace]}`, Date.now()),
  'call SET': (pg) => (i) => pg.call(['SET', keys[i % keySpace], value], Date.now()),
  'call GET': (pg) => (i) => pg.call(['GET', keys[i % keySpace]], Date.now()),
};

const results = [];
for (const [name, make] of Object.entries(cases)) {
  const pg = new Playground(Date.now(), 42);
  // GETs read keys that exist, as after a SET run.
  for (const k of keys) pg.call(['SET', k, value], Date.now());
  const opsPerSec = measure(make(pg));
  pg.free();
  results.push({ test: name, ops_per_sec: Math.round(opsPerSec) });
}

const env = { node: process.version, value_size: valueSize, key_space: keySpace, seconds };
if (opts.json) {
  console.log(JSON.stringify({ env, results }, null, 2));
} else {
  console.log(`vitrine-wasm in Node ${process.version}: ${valueSize}-byte values, ${keySpace} keys, ${seconds}s per test`);
  for (const r of results) console.log(`  ${r.test.padEnd(14)} ${r.ops_per_sec.toLocaleString('en-US').padStart(12)} ops/sec`);
}
