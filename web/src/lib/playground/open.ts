// Opens the playground once per tab: loads the wasm engine, makes its backend and app, and
// restores the session (from a share link in the address, else from this tab's storage) into
// the console's transcript. Later calls (back from the dashboard) get the same app.

import { AppState } from '../backend/app.svelte';
import { loadWasm } from '../backend/load-wasm';
import { WasmBackend, type WasmModule } from '../backend/wasm';
import { commandsFromHash } from './share';

let opening: Promise<AppState> | null = null;

/** The playground's app, with the session restored and the engine's timers running. */
export function openPlayground(load: () => Promise<WasmModule> = loadWasm): Promise<AppState> {
  opening ??= load()
    .then((mod) => {
      const backend = new WasmBackend(mod);
      const app = new AppState(backend);
      const shared = commandsFromHash(location.hash);
      // The link has done its job: a reload restores the session instead.
      if (shared) history.replaceState(history.state, '', location.pathname + location.search);
      const restored = backend.playground.restore(shared);
      for (const t of restored.transcript) app.console.show(t.line, t.reply);
      app.console.notice = restored.notice;
      backend.start();
      return app;
    })
    .catch((e: unknown) => {
      opening = null;
      throw e;
    });
  return opening;
}
