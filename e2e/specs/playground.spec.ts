import { test, expect } from '../support/test';
import { openPage, parseBytes, statValue } from '../support/page';

// The playground is the dashboard's shell on the engine compiled to WebAssembly, in the tab:
// nothing here touches the server's cache. (Overview, Keys and Evictions run against it in
// their own specs, for both backends.)

test('the playground runs commands in the tab and shows eviction under a tiny limit', async ({ page, redis }) => {
  await page.goto('/');
  await openPage(page, 'Playground');
  await expect(page).toHaveURL(/\/playground$/);
  const nav = page.getByRole('navigation', { name: 'Main' });
  // The server's Benchmarks are not the tab's; the way back is there.
  await expect(nav.getByRole('link', { name: 'Benchmarks' })).toHaveCount(0);
  await expect(nav.getByRole('link', { name: 'Server dashboard' })).toBeVisible();

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

  // A tiny limit from the Evictions page, then Fill.
  await openPage(page, 'Evictions');
  await page.getByLabel('Memory limit (maxmemory)').fill('64kb');
  await page.getByLabel('Policy (maxmemory-policy)').selectOption('allkeys-lru');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await openPage(page, 'Playground');
  await page.getByRole('button', { name: 'Fill', exact: true }).click();
  await expect(output.locator('pre').last()).toContainText('wrote 2000 keys');

  await openPage(page, 'Evictions');
  const evicted = page.getByRole('table', { name: 'Recent evictions' }).getByRole('row').filter({ hasText: 'evicted' });
  await expect(evicted.first()).toBeVisible();
  await expect(evicted.first()).toContainText('allkeys-lru');
  await expect(evicted.first().getByRole('cell').first()).toHaveText(/^fill:\d+$/);

  await openPage(page, 'Overview');
  const memory = statValue(page, 'Headline numbers', 'Memory used');
  await expect(memory).toHaveText(/\d/);
  expect(parseBytes(await memory.innerText())).toBeLessThanOrEqual(65536);
  expect(await redis.command('DBSIZE')).toBe(0);

  // And back to the server's dashboard.
  await nav.getByRole('link', { name: 'Server dashboard' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
});

test('a key with a TTL counts down and expires into the eviction table', async ({ page }) => {
  await page.goto('/playground');
  const command = page.getByLabel('Command', { exact: true });
  await expect(command).toBeEnabled();
  await command.fill('SET flash now PX 3000');
  await command.press('Enter');
  await openPage(page, 'Keys');
  const row = page.getByRole('table', { name: 'Keys' }).getByRole('row').filter({ hasText: 'flash' });
  await expect(row).toContainText(/\ds/);
  await openPage(page, 'Evictions');
  const expired = page.getByRole('table', { name: 'Recent evictions' }).getByRole('row').filter({ hasText: 'expired' });
  await expect(expired.first()).toContainText('flash', { timeout: 10_000 });
  await openPage(page, 'Keys');
  await expect(page.getByRole('table', { name: 'Keys' }).getByText('No keys match')).toBeVisible();
});

test('the tour types its commands into the console', async ({ page }) => {
  await page.goto('/playground');
  await expect(page.getByLabel('Command', { exact: true })).toBeEnabled();
  await page.getByRole('button', { name: 'Run', exact: true }).first().click();
  const output = page.getByRole('log', { name: 'Console output' });
  await expect(output.locator('pre').last()).toHaveText('(integer) 11', { timeout: 10_000 });
  await expect(output).toContainText('"hello world!"');
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

test('a key edited in another database replays there, with no SELECT in the transcript or the link', async ({ page, context }) => {
  await page.goto('/playground');
  await expect(page.getByLabel('Command', { exact: true })).toBeEnabled();
  const command = page.getByLabel('Command', { exact: true });
  await command.fill('SET here 0');
  await command.press('Enter');
  const output = page.getByRole('log', { name: 'Console output' });
  await expect(output.locator('pre').last()).toHaveText('OK');

  // A key in database 1, written and given a TTL from the Keys page; the console stays in 0.
  await openPage(page, 'Keys');
  await page.getByLabel('Database', { exact: true }).selectOption('1');
  await page.getByRole('button', { name: 'New key' }).click();
  await page.getByLabel('Key name').fill('in:one');
  await page.getByLabel('Value', { exact: true }).fill('v1');
  await page.getByRole('button', { name: 'Create key' }).click();
  const panel = page.getByRole('region', { name: 'in:one' });
  await expect(panel.getByLabel('Stored value')).toHaveText('v1');
  await panel.getByLabel('TTL in seconds').fill('600');
  await panel.getByRole('button', { name: 'Set TTL' }).click();
  await expect(panel.getByRole('button', { name: 'Remove TTL' })).toBeVisible();

  // Reloaded, the session replays into a new engine: the transcript is the console's line.
  await page.reload();
  await openPage(page, 'Playground');
  await expect(output).toContainText('Restored');
  await expect(output.locator('.cmd')).toHaveText(['SET here 0']);
  await expect(output).not.toContainText('SELECT');
  await expect(page.locator('form.input-row > .prompt')).toHaveText('playground>');

  // The share link carries the page's lines with their database, and no SELECT.
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByRole('button', { name: 'Copy link' }).click();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  const hash = new URL(link).hash.replace(/^#cmds=/, '');
  const commands: unknown = JSON.parse(Buffer.from(hash, 'base64url').toString('utf8'));
  expect(commands).toEqual(['SET here 0', { db: 1, line: 'SET in:one v1 NX' }, { db: 1, line: 'EXPIRE in:one 600' }]);

  // Opened from the link, database 1 has the key with its TTL.
  const other = await context.browser()!.newPage();
  await other.goto(link);
  const out2 = other.getByRole('log', { name: 'Console output' });
  await expect(out2).toContainText('Replayed 3 commands from a shared link');
  await expect(out2).not.toContainText('SELECT');
  const cmd2 = other.getByLabel('Command', { exact: true });
  for (const line of ['SELECT 1', 'TTL in:one']) {
    await cmd2.fill(line);
    await cmd2.press('Enter');
  }
  await expect(out2.locator('pre').last()).toHaveText(/^\(integer\) (59\d|600)$/);
  await other.close();
});
