// Vite config for the Vitrine dashboard. `npm run dev` proxies the admin API to a server on
// 127.0.0.1:8080 (override with VITRINE_ADMIN=http://host:port); `npm run build` writes
// web/dist, which the `vitrine` binary serves (--web-dir) with index.html as the fallback.
import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

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

export default defineConfig({
  plugins: [svelte()],
  // Absolute asset URLs: the server answers deep links such as /keys with index.html.
  base: '/',
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    // The budget test (src/budget.test.ts) measures gzipped JS; keep sourcemaps out of dist.
    sourcemap: false,
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
});
