// The `test` every spec imports: Playwright's, with a `server` fixture that starts a fresh
// vitrine for each test (so every spec is independent) and points `baseURL` at it.
//
//     test.use({ serverArgs: ['--maxmemory', '1mb'] });   // flags for this file's servers
//     test('...', async ({ page, server }) => { await page.goto('/'); server.respPort; });

import fs from 'node:fs';
import { test as base, expect } from '@playwright/test';
import { RespClient } from './resp';
import { RunningServer, type Server } from './server';

interface Fixtures {
  /** Extra vitrine flags for this file or describe block. */
  serverArgs: string[];
  server: Server;
  /** A RESP connection to the test's server, closed after the test. */
  redis: RespClient;
}

export const test = base.extend<Fixtures>({
  serverArgs: [[], { option: true }],

  server: async ({ serverArgs }, use, testInfo) => {
    const server = await RunningServer.start({ args: serverArgs });
    try {
      await use(server);
    } finally {
      await server.stop();
      if (testInfo.status !== testInfo.expectedStatus) {
        // Kept beside the screenshot in test-results/ (and listed by the reporter).
        const file = testInfo.outputPath('vitrine.log');
        fs.writeFileSync(file, server.log());
        await testInfo.attach('vitrine.log', { path: file, contentType: 'text/plain' });
      }
    }
  },

  // The page (through its context) depends on baseURL, so the server starts before the
  // browser page opens and stops only after the page has closed.
  baseURL: async ({ server }, use) => {
    await use(server.url);
  },

  redis: async ({ server }, use) => {
    const client = await RespClient.connect(server.respPort);
    try {
      await use(client);
    } finally {
      client.close();
    }
  },
});

export { expect };
