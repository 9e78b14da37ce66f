// Vite config for the Vitrine dashboard. `npm run dev` proxies the admin API to a server on
// 127.0.0.1:8080 (override with VITRINE_ADMIN=http://host:port); `npm run build` writes
// web/dist, which the `vitrine` binary serves (--web-dir) with index.html as the fallback.
import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import type { Plugin } from 'vite';
import { renameSync } from 'node:fs';
import { join } from 'node:path';

const admin = process.env.VITRINE_ADMIN ?? 'http://127.0.0.1:8080';

// The server refuses state-changing requests whose Origin is not itself (cross-site guard),
// so the dev proxy presents requests as coming from the admin origin.
const proxied = {
  target: admin,
  changeOrigin: true,
  configure(proxy: { on(event: 'proxyReq', cb: (req: { setHeader(k: string, v: string): void; getHeader(k: string): unknown }) => void): void }) {
    proxy.on('proxyReq', (req) => {
      if (req.getHeader('origin')) req.setHeader('origin', admin);
    });
  },
};

// `vite build --mode playground` (npm run build:playground): the playground alone as a static
// site in web/dist-playground, with relative asset URLs so any static host (and any
// sub-directory) serves it; playground.html becomes its index.html.
const playgroundIndex: Plugin = {
  name: 'vitrine-playground-index',
  writeBundle(options) {
    const dir = options.dir ?? 'dist-playground';
    renameSync(join(dir, 'playground.html'), join(dir, 'index.html'));
  },
};

export default defineConfig(({ mode }) => {
  const playground = mode === 'playground';
  return {
    plugins: playground ? [svelte(), playgroundIndex] : [svelte()],
    // Absolute asset URLs: the server answers deep links such as /keys with index.html.
    base: playground ? './' : '/',
    build: {
      target: 'es2022',
      outDir: playground ? 'dist-playground' : 'dist',
      emptyOutDir: true,
      // The budget test (src/budget.test.ts) measures gzipped JS; keep sourcemaps out of dist.
      sourcemap: false,
      rollupOptions: playground ? { input: 'playground.html' } : undefined,
    },
    server: {
      port: 5173,
      proxy: {
        '/api': proxied,
        '/metrics': proxied,
        '/healthz': proxied,
      },
    },
    // Unit tests run in Node but import Svelte's client runtime, so runes in *.svelte.ts are
    // reactive as they are in the browser.
    resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
    test: {
      include: ['src/**/*.test.ts'],
      environment: 'node',
    },
  };
});
