import { test, expect } from '../support/test';
import { openPage } from '../support/page';

// The playground runs the engine in the tab (wasm): nothing here touches the server's cache.

test('the playground runs commands in the tab and shows eviction under a tiny limit', async ({ page, redis }) => {
  await page.goto('/');
  await openPage(page, 'Playground');
  await expect(page).toHaveURL(/\/playground$/);

  const command = page.getByLabel('Command', { exact: true });
  const output = page.getByRole('log', { name: 'Console output' });
  await expect(command).toBeEnabled(); // the wasm engine has loaded

  await command.fill('SET greeting "hello world"');
  await command.press('Enter');
  await expect(output.locator('pre').last()).toHaveText('OK');
  await command.fill('GET greeting');
  await command.press('Enter');
  await expect(output.locator('pre').last()).toHaveText('"hello world"');
  await command.press('ArrowUp');
  await expect(command).toHaveValue('GET greeting');
  await command.fill('HELP GET');
  await command.press('Enter');
  await expect(output.locator('pre').last()).toContainText('GET key');

  // The key is in the tab's engine, not the server.
  expect(await redis.command('EXISTS', 'greeting')).toBe(0);

  await page.getByLabel('Memory limit').fill('64kb');
  await page.getByRole('button', { name: 'Set limit' }).click();
  await page.getByLabel('Policy').selectOption('allkeys-lru');
  const meter = page.getByRole('meter', { name: 'Memory used' });
  await expect(meter).toHaveAttribute('aria-valuemax', '65536');

  const feed = page.getByRole('list', { name: 'Evictions and expirations' });
  await expect(feed.getByText('evicted')).toHaveCount(0);
  await page.getByRole('button', { name: 'Fill', exact: true }).click();
  await expect(feed.getByText('evicted').first()).toBeVisible();
  await expect(feed.getByText(/allkeys-lru/).first()).toBeVisible();
  expect(Number(await meter.getAttribute('aria-valuenow'))).toBeLessThanOrEqual(65536);
});

test('a key with a TTL counts down and expires into the feed', async ({ page }) => {
  await page.goto('/playground');
  const command = page.getByLabel('Command', { exact: true });
  await expect(command).toBeEnabled();
  await command.fill('SET flash now PX 1500');
  await command.press('Enter');
  const row = page.getByRole('row').filter({ hasText: 'flash' });
  await expect(row).toContainText(/1s|<1s/);
  const feed = page.getByRole('list', { name: 'Evictions and expirations' });
  await expect(feed.getByText('expired')).toBeVisible();
  await expect(row).toHaveCount(0);
});

test('the session survives a reload, and a shared link replays its commands', async ({ page, context }) => {
  await page.goto('/playground');
  const command = page.getByLabel('Command', { exact: true });
  await expect(command).toBeEnabled();
  await command.fill('INCR visits');
  await command.press('Enter');
  await command.fill('INCR visits');
  await command.press('Enter');
  const output = page.getByRole('log', { name: 'Console output' });
  await expect(output.locator('pre').last()).toHaveText('(integer) 2');

  await page.reload();
  await expect(page.getByLabel('Command', { exact: true })).toBeEnabled();
  await expect(output).toContainText('Restored');
  await command.fill('INCR visits');
  await command.press('Enter');
  await expect(output.locator('pre').last()).toHaveText('(integer) 3');

  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByRole('button', { name: 'Copy link' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Link copied' })).toBeVisible();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toMatch(/\/playground#cmds=[A-Za-z0-9_-]+$/);

  // A new tab with empty storage, opened from the link.
  const other = await context.browser()!.newPage();
  await other.goto(link);
  const out2 = other.getByRole('log', { name: 'Console output' });
  await expect(out2).toContainText('Replayed 3 commands from a shared link');
  await expect(out2.locator('pre').last()).toHaveText('(integer) 3');
  await expect(other).toHaveURL(/\/playground$/);
  await other.close();
});
