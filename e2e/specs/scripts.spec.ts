import { test, expect } from '../support/test';
import { openPage } from '../support/page';

// The Scripts page: cached Lua scripts with what they did, a badge on those that touch keys
// they did not declare (they break in a cluster), and a console that loads and runs one.

test('the Scripts page flags a script touching undeclared keys and runs one from its console', async ({ page, redis }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // An application's script: declares `cart:1` but also writes `audit:log`.
  const body = "redis.call('SET', KEYS[1], ARGV[1])\nredis.call('INCR', 'audit:log')\nreturn 'done'";
  expect(await redis.command('EVAL', body, '1', 'cart:1', 'full')).toBe('done');
  expect(await redis.command('EVAL', body, '1', 'cart:1', 'full')).toBe('done');

  await page.goto('/');
  await openPage(page, 'Scripts');
  const table = page.getByRole('table', { name: 'Cached scripts' });
  const row = table.getByRole('row').filter({ hasText: "redis.call('SET', KEYS[1], ARGV[1])" });
  await expect(row.getByText('touches undeclared keys: breaks in a cluster')).toBeVisible();
  await expect(row.getByRole('cell').nth(1)).toHaveText('2');
  await expect(row.getByText('such as audit:log')).toBeVisible();

  // Its detail: the source, the commands it ran, the undeclared key.
  await row.getByRole('button', { name: /^Open script / }).click();
  await expect(page.getByLabel('Script source')).toContainText("redis.call('INCR', 'audit:log')");
  await expect(page.getByRole('list', { name: 'Commands it ran' })).toContainText('INCR');
  await expect(page.getByRole('list', { name: 'Undeclared keys', exact: true })).toHaveText('audit:log');
  await expect(page.getByRole('list', { name: 'Declared keys', exact: true })).toHaveText('cart:1');

  // The console: a body with quotes and a newline arrives as typed.
  await page.getByRole('textbox', { name: 'Script body' }).fill('local v = redis.call("GET", KEYS[1])\nreturn {v, ARGV[1]}');
  await page.getByRole('textbox', { name: 'KEYS', exact: true }).fill('cart:1');
  await page.getByRole('textbox', { name: 'ARGV', exact: true }).fill('it\'s');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByLabel('Reply')).toHaveText('1) "full"\n2) "it\'s"');
  await page.getByRole('button', { name: 'Load', exact: true }).click();
  const sha = page.getByLabel('Loaded SHA1');
  await expect(sha).toHaveText(/^[0-9a-f]{40}$/);
  expect(await redis.command('SCRIPT', 'EXISTS', await sha.innerText())).toEqual([1]);
  // The run shows up in the list, declaring its one key.
  const mine = table.getByRole('row').filter({ hasText: 'local v = redis.call("GET", KEYS[1])' });
  await expect(mine.getByRole('cell').nth(1)).toHaveText('1');
  await expect(mine.getByText('touches undeclared keys: breaks in a cluster')).toHaveCount(0);

  // A script error is shown as one.
  await page.getByRole('textbox', { name: 'Script body' }).fill("return redis.call('NOSUCH')");
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByLabel('Reply')).toContainText('(error) ERR Unknown Redis command called from script');
  expect(errors).toEqual([]);
});

test('in the playground the Scripts page says scripting runs on the server', async ({ page }) => {
  await page.goto('/playground');
  await openPage(page, 'Scripts');
  await expect(page.getByRole('status').filter({ hasText: 'Scripting runs on the server' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Script body' })).toHaveCount(0);
});
