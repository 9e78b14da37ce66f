// Loads the real wasm build in Node for tests (null when web/src/lib/wasm/pkg is not built).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WasmModule } from './wasm';

const pkg = new URL('../wasm/pkg/', import.meta.url);
const wasmFile = fileURLToPath(new URL('vitrine_wasm_bg.wasm', pkg));
export const wasmBuilt = existsSync(wasmFile);

export async function loadNodeWasm(): Promise<WasmModule> {
  const mod = (await import(/* @vite-ignore */ new URL('vitrine_wasm.js', pkg).href)) as WasmModule & {
    initSync(opts: { module: Uint8Array }): unknown;
  };
  mod.initSync({ module: readFileSync(wasmFile) });
  return mod;
}
