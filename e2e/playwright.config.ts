// Playwright drives Debian's Chromium (/usr/bin/chromium, installed by scripts/test): browser
// downloads do not work on our machines, so none is installed (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1).
// Each test starts its own vitrine (support/test.ts), so specs are independent.

import { defineConfig } from '@playwright/test';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: './specs',
  outputDir: './test-results',
  // Bounded: one test, its fixtures included; an assertion; the whole run.
  timeout: 60_000,
  expect: { timeout: 10_000 },
  globalTimeout: 10 * 60_000,
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Two cores: the browser, the server and a benchmark run share them.
  workers: 2,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    actionTimeout: 10_000,
    navigationTimeout: 15_000,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
