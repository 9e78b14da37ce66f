import { test, expect } from '../support/test';
import { parseBytes, parseCount, statValue } from '../support/page';

test('memory and key count follow writes made by a RESP client', async ({ page, redis }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

  const keys = statValue(page, 'Headline numbers', 'Keys');
  const memory = statValue(page, 'Headline numbers', 'Memory used');
  await expect(keys).toHaveText('0');
  await expect(memory).toHaveText(/\d/);
  const before = parseBytes(await memory.innerText());
  expect(before).not.toBeNaN();

  // 500 keys of 1 KiB each, from outside the browser, as an application would write them.
  const value = 'x'.repeat(1024);
  const replies = await redis.pipeline(Array.from({ length: 500 }, (_, i) => ['SET', `overview:${i}`, value]));
  expect(replies.every((r) => r === 'OK')).toBe(true);

  // The page updates once a second from the stats stream: a few seconds at most.
  await expect(keys).toHaveText('500', { timeout: 5_000 });
  await expect.poll(async () => parseBytes(await memory.innerText()), { timeout: 5_000 }).toBeGreaterThan(before + 400 * 1024);

  // And back down when they are deleted.
  await redis.ok('DEL', ...Array.from({ length: 250 }, (_, i) => `overview:${i}`));
  await expect(keys).toHaveText('250', { timeout: 5_000 });
  expect(parseCount(await keys.innerText())).toBe(250);
});
