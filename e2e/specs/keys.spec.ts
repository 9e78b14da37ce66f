import { test, expect } from '../support/test';
import { openPage } from '../support/page';

test('keys can be found, opened, edited and deleted', async ({ page, redis }) => {
  await redis.ok('SET', 'user:1', 'alice');
  await redis.ok('SET', 'user:2', 'bob', 'EX', '3600');
  await redis.ok('SET', 'session:abc', 'token');
  await redis.ok('SET', 'html:<b>', '<img src=x onerror="window.__xss=1">');

  await page.goto('/');
  await openPage(page, 'Keys');
  const table = page.getByRole('table', { name: 'Keys' });

  // Find: a pattern narrows the list.
  await page.getByLabel('Pattern').fill('user:*');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(table.getByRole('button', { name: 'user:1', exact: true })).toBeVisible();
  await expect(table.getByRole('button', { name: 'user:2', exact: true })).toBeVisible();
  await expect(table.getByRole('button', { name: 'session:abc' })).toHaveCount(0);

  // Open: the value, the type and the TTL.
  await table.getByRole('button', { name: 'user:2', exact: true }).click();
  const panel = page.getByRole('region', { name: 'user:2' });
  await expect(panel.getByLabel('Stored value')).toHaveText('bob');
  await expect(panel.getByText(/^(59m \d\ds|1h 00m)$/)).toBeVisible();

  // Edit: a new value, kept TTL; the cache has it.
  await panel.getByRole('button', { name: 'Edit value' }).click();
  await panel.getByLabel('New value').fill('bobby');
  await panel.getByRole('button', { name: 'Save value' }).click();
  await expect(panel.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await expect(panel.getByLabel('Stored value')).toHaveText('bobby');
  expect(await redis.command('GET', 'user:2')).toBe('bobby');
  expect(await redis.command('TTL', 'user:2')).toBeGreaterThan(3500);

  // TTL: remove it, then set one.
  await panel.getByRole('button', { name: 'Remove TTL' }).click();
  await expect(panel.getByText('no TTL', { exact: true })).toBeVisible();
  expect(await redis.command('TTL', 'user:2')).toBe(-1);
  await panel.getByLabel('TTL in seconds').fill('120');
  await panel.getByRole('button', { name: 'Set TTL' }).click();
  await expect(panel.getByRole('button', { name: 'Remove TTL' })).toBeVisible();
  expect(await redis.command('TTL', 'user:2')).toBeGreaterThan(100);

  // Delete, after confirming.
  await panel.getByRole('button', { name: 'Delete key' }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete this key?' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(table.getByRole('button', { name: 'user:2', exact: true })).toHaveCount(0);
  await expect(table.getByRole('button', { name: 'user:1', exact: true })).toBeVisible();
  expect(await redis.command('EXISTS', 'user:2')).toBe(0);

  // Create a key from the page; it is in the cache with its TTL.
  await page.getByRole('button', { name: 'New key' }).click();
  await page.getByLabel('Key name').fill('user:3');
  await page.getByLabel('Value', { exact: true }).fill('carol');
  await page.getByLabel('TTL in seconds (optional)').fill('300');
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByRole('region', { name: 'user:3' }).getByLabel('Stored value')).toHaveText('carol');
  expect(await redis.command('GET', 'user:3')).toBe('carol');
  expect(await redis.command('TTL', 'user:3')).toBeGreaterThan(250);

  // Names and values are untrusted text: shown as typed, never run as HTML.
  await page.getByLabel('Pattern').fill('html:*');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await table.getByRole('button', { name: 'html:<b>', exact: true }).click();
  await expect(page.getByRole('region', { name: 'html:<b>' }).getByLabel('Stored value')).toHaveText(
    '<img src=x onerror="window.__xss=1">',
  );
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
});
