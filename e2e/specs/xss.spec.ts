// Key names and values are written by whoever uses the cache, so the dashboard must show them
// as text and never run them as HTML. Each payload, if it ran, would set window.__pwned.

import type { Page } from '@playwright/test';
import { test, expect } from '../support/test';
import { openPage } from '../support/page';

const PAYLOADS = [
  '<img src=x onerror="window.__pwned=1">',
  '<script>window.__pwned=2</script>',
  '<svg onload="window.__pwned=3"></svg>',
  '"><iframe srcdoc="<script>parent.__pwned=4</script>">',
  '{@html "<img src=x onerror=window.__pwned=5>"}',
];

async function expectNothingRan(page: Page): Promise<void> {
  // Give an injected onerror/onload the chance to fire before checking.
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  // Nor was any of it parsed into elements (a <script> set through innerHTML would not run,
  // but its presence would still mean the text went in as HTML).
  await expect(page.locator('img[src="x"], svg[onload], iframe[srcdoc]')).toHaveCount(0);
  const scripts = await page.evaluate(() =>
    Array.from(document.querySelectorAll('script')).filter((s) => s.textContent?.includes('__pwned')).length,
  );
  expect(scripts).toBe(0);
}

test('key names and values with HTML and script payloads are shown as text on the Keys page', async ({
  page,
  redis,
}) => {
  for (const [i, payload] of PAYLOADS.entries()) {
    await redis.ok('SET', `xss:${i}:${payload}`, payload);
  }

  await page.goto('/');
  await openPage(page, 'Keys');
  const table = page.getByRole('table', { name: 'Keys' });
  await page.getByLabel('Pattern').fill('xss:*');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  for (const [i, payload] of PAYLOADS.entries()) {
    await expect(table.getByRole('button', { name: `xss:${i}:${payload}`, exact: true })).toBeVisible();
  }
  await expectNothingRan(page);

  // Open each: the name heads the panel and the value is shown literally.
  for (const [i, payload] of PAYLOADS.entries()) {
    const name = `xss:${i}:${payload}`;
    await table.getByRole('button', { name, exact: true }).click();
    await expect(page.getByRole('region', { name }).getByLabel('Stored value')).toHaveText(payload);
  }
  await expectNothingRan(page);
});

test.describe('evicted keys', () => {
  test.use({ serverArgs: ['--maxmemory', '1mb', '--maxmemory-policy', 'allkeys-lru'] });

  test('evicted key names with HTML and script payloads are shown as text on the Evictions page', async ({
    page,
    redis,
  }) => {
    await page.goto('/');
    await openPage(page, 'Evictions');
    const table = page.getByRole('table', { name: 'Recent evictions' });

    // The payload keys, then a limit nothing fits under: the next write evicts every key
    // (and is itself refused), so every payload is in the evictions list.
    for (const [i, payload] of PAYLOADS.entries()) {
      await redis.ok('SET', `xss:${i}:${payload}`, payload);
    }
    await redis.ok('CONFIG', 'SET', 'maxmemory', '1');
    await redis.command('SET', 'trigger', 'x');
    await redis.ok('CONFIG', 'SET', 'maxmemory', '1mb');
    for (const [i, payload] of PAYLOADS.entries()) {
      expect(await redis.command('EXISTS', `xss:${i}:${payload}`)).toBe(0);
    }

    for (const [i, payload] of PAYLOADS.entries()) {
      await expect(table.getByRole('cell', { name: `xss:${i}:${payload}`, exact: true })).toBeVisible({
        timeout: 10_000,
      });
    }
    await expectNothingRan(page);
  });
});
