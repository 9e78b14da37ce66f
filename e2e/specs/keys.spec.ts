import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('keys can be found, opened, edited and deleted', async ({ page, redis }) => {
      await target.write(page, redis, [
        ['SET', 'user:1', 'alice'],
        ['SET', 'user:2', 'bob', 'EX', '3600'],
        ['SET', 'session:abc', 'token'],
        ['SET', 'html:<b>', '<img src=x onerror="window.__xss=1">'],
      ]);
      await target.open(page, 'Keys');
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
      await expect(panel.getByText(/^59m \d\ds$/)).toBeVisible();
      expect(await target.read(page, redis, ['GET', 'user:2'], 'Keys')).toBe('"bobby"');
      expect(Number((await target.read(page, redis, ['TTL', 'user:2'], 'Keys')).replace('(integer) ', ''))).toBeGreaterThan(3500);

      // TTL: remove it, then set one (the playground came back to a fresh list: open it again).
      await table.getByRole('button', { name: 'user:2', exact: true }).click();
      await panel.getByRole('button', { name: 'Remove TTL' }).click();
      await expect(panel.getByText('no TTL', { exact: true })).toBeVisible();
      await panel.getByLabel('TTL in seconds').fill('120');
      await panel.getByRole('button', { name: 'Set TTL' }).click();
      await expect(panel.getByRole('button', { name: 'Remove TTL' })).toBeVisible();
      await expect(panel.getByText(/^(1m \d\ds|2m 00s)$/)).toBeVisible();

      // Delete, after confirming.
      await panel.getByRole('button', { name: 'Delete key' }).click();
      const dialog = page.getByRole('alertdialog', { name: 'Delete this key?' });
      await expect(dialog).toBeVisible();
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await expect(dialog).toBeHidden();
      await expect(table.getByRole('button', { name: 'user:2', exact: true })).toHaveCount(0);
      await expect(table.getByRole('button', { name: 'user:1', exact: true })).toBeVisible();

      // Create a key from the page; it is in the cache with its TTL.
      await page.getByRole('button', { name: 'New key' }).click();
      await page.getByLabel('Key name').fill('user:3');
      await page.getByLabel('Value', { exact: true }).fill('carol');
      await page.getByLabel('TTL in seconds (optional)').fill('300');
      await page.getByRole('button', { name: 'Create key' }).click();
      await expect(page.getByRole('region', { name: 'user:3' }).getByLabel('Stored value')).toHaveText('carol');

      // Names and values are untrusted text: shown as typed, never run as HTML.
      await page.getByLabel('Pattern').fill('html:*');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await table.getByRole('button', { name: 'html:<b>', exact: true }).click();
      await expect(page.getByRole('region', { name: 'html:<b>' }).getByLabel('Stored value')).toHaveText(
        '<img src=x onerror="window.__xss=1">',
      );
      expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

      // What the page did is in the cache.
      expect(await target.read(page, redis, ['EXISTS', 'user:2'])).toBe('(integer) 0');
      expect(await target.read(page, redis, ['GET', 'user:3'])).toBe('"carol"');
      expect(Number((await target.read(page, redis, ['TTL', 'user:3'])).replace('(integer) ', ''))).toBeGreaterThan(250);
      expect(await target.read(page, redis, ['GET', 'user:1'])).toBe('"alice"');
    });

    test('a hash whose fields expire shows each field\'s TTL', async ({ page, redis }) => {
      await target.write(page, redis, [
        ['HSET', 'profile', 'name', 'ann', 'code', '1234'],
        ['HEXPIRE', 'profile', '3600', 'FIELDS', '1', 'code'],
      ]);
      await target.open(page, 'Keys');
      const table = page.getByRole('table', { name: 'Keys' });
      await table.getByRole('button', { name: 'profile', exact: true }).click();
      const fields = page.getByRole('region', { name: 'profile' }).getByRole('table', { name: 'Fields' });
      await expect(fields.getByRole('columnheader', { name: 'TTL' })).toBeVisible();
      await expect(fields.getByRole('row', { name: /^code 1234 (59m \d\ds|1h 00m)$/ })).toBeVisible();
      await expect(fields.getByRole('row', { name: 'name ann no TTL' })).toBeVisible();
    });
  });
}
