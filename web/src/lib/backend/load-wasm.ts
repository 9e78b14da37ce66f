// Loads the wasm engine lazily: the generated glue (web/src/lib/wasm/pkg, built by
// scripts/lib.sh build_wasm_if_present) becomes its own chunk, fetched only when the
// Playground opens, and the .wasm is an asset whose URL Vite resolves (`?url`), so it works
// under the server's absolute base and the static build's relative one alike.
//
// import.meta.glob rather than a plain import: without a wasm build the dashboard still
// type-checks and builds, and the page says how to build the engine.

import type { WasmModule } from './wasm';

type Glue = WasmModule & { default(init: { module_or_path: string }): Promise<unknown> };

const glue = import.meta.glob<Glue>('../wasm/pkg/vitrine_wasm.js');
const wasmUrl = import.meta.glob<string>('../wasm/pkg/vitrine_wasm_bg.wasm', { query: '?url', import: 'default' });

export class WasmMissingError extends Error {
  constructor() {
    super('The WebAssembly engine is not built yet. scripts/start builds it in the background once the server is up (a few minutes the first time); reload this page when it says the playground is ready. To build it yourself: scripts/build-playground.');
  }
}

let loading: Promise<WasmModule> | null = null;

/** The initialised module (loaded once per tab). */
export function loadWasm(): Promise<WasmModule> {
  loading ??= (async () => {
    const loadGlue = Object.values(glue)[0];
    const loadUrl = Object.values(wasmUrl)[0];
    if (!loadGlue || !loadUrl) throw new WasmMissingError();
    const [mod, url] = await Promise.all([loadGlue(), loadUrl()]);
    await mod.default({ module_or_path: url });
    return mod;
  })().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}
