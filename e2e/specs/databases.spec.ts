// Numbered databases on both backends: the console's prompt and picker follow SELECT, and the
// Keys page lists, opens and writes the keys of the database picked (kept in the address).

import type { Page } from '@playwright/test';
import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';
import { openPage } from '../support/page';

/** Runs a console line and waits for its reply. */
async function run(page: Page, line: string): Promise<string> {
  const output = page.getByRole('log', { name: 'Console output' }).locator('pre');
  const before = await output.count();
  const command = page.getByLabel('Command', { exact: true });
  await command.fill(line);
  await command.press('Enter');
  await expect(output).toHaveCount(before + 1);
  return output.last().innerText();
}

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('keys live in the database SELECT picks, and the Keys page shows the one picked', async ({ page }) => {
      await target.open(page, 'Console');
      const prompt = page.locator('form.input-row > .prompt');
      await expect(prompt).toHaveText(/[^\]]>$/);

      expect(await run(page, 'SET zero 0')).toBe('OK');
      expect(await run(page, 'SET both in-db0')).toBe('OK');
      expect(await run(page, 'SELECT 3')).toBe('OK');
      // redis-cli's prompt: the database after the port (none for database 0).
      await expect(prompt).toHaveText(/\[3\]>$/);
      expect(await run(page, 'SET three:a 1')).toBe('OK');
      expect(await run(page, 'SET both in-db3')).toBe('OK');
      expect(await run(page, 'DBSIZE')).toBe('(integer) 2');

      // The console's picker is in database 3, with the counts of each.
      const picker = page.getByLabel('Database', { exact: true });
      await expect(picker).toHaveValue('3');
      await expect(picker.locator('option[value="3"]')).toHaveText('db3 (2 keys)');
      await expect(picker.locator('option[value="0"]')).toHaveText('db0 (2 keys)');
      await expect(picker.locator('option[value="1"]')).toHaveText('db1 (0 keys)');
      await expect(picker.locator('option')).toHaveCount(16);

      // Picking a database types SELECT into the console.
      await picker.selectOption('0');
      const log = page.getByRole('log', { name: 'Console output' });
      await expect(log.locator('.cmd').last()).toHaveText('SELECT 0');
      await expect(prompt).not.toHaveText(/\]>$/);
      expect(await run(page, 'GET both')).toBe('"in-db0"');

      // Keys: database 0 first, then database 3's keys only.
      await openPage(page, 'Keys');
      const table = page.getByRole('table', { name: 'Keys' });
      const keys = page.getByLabel('Database', { exact: true });
      await expect(keys).toHaveValue('0');
      await expect(table.getByRole('button', { name: 'zero', exact: true })).toBeVisible();
      await expect(keys.locator('option[value="3"]')).toHaveText('db3 (2 keys)');
      await keys.selectOption('3');
      await expect(table.getByRole('button', { name: 'three:a', exact: true })).toBeVisible();
      await expect(table.getByRole('button', { name: 'both', exact: true })).toBeVisible();
      await expect(table.getByRole('button', { name: 'zero', exact: true })).toHaveCount(0);
      await expect(page.getByText('2 keys in db3')).toBeVisible();
      expect(new URL(page.url()).searchParams.get('db')).toBe('3');

      // The panel reads and writes the key in database 3.
      await table.getByRole('button', { name: 'both', exact: true }).click();
      const panel = page.getByRole('region', { name: 'both' });
      await expect(panel.getByLabel('Stored value')).toHaveText('in-db3');
      await expect(panel.getByText('db3', { exact: true })).toBeVisible();
      await panel.getByLabel('TTL in seconds').fill('600');
      await panel.getByRole('button', { name: 'Set TTL' }).click();
      await expect(panel.getByRole('button', { name: 'Remove TTL' })).toBeVisible();

      // A new key goes into database 3 too, and the count follows.
      await page.getByRole('button', { name: 'New key' }).click();
      await page.getByLabel('Key name').fill('made:here');
      await page.getByLabel('Value', { exact: true }).fill('v3');
      await page.getByRole('button', { name: 'Create key' }).click();
      await expect(page.getByRole('region', { name: 'made:here' }).getByLabel('Stored value')).toHaveText('v3');
      await expect(keys.locator('option[value="3"]')).toHaveText('db3 (3 keys)');
      await expect(keys.locator('option[value="0"]')).toHaveText('db0 (2 keys)');

      // A reload stays in database 3 (the playground replays its session into a new engine).
      await page.reload();
      await expect(page.getByLabel('Database', { exact: true })).toHaveValue('3');
      await expect(table.getByRole('button', { name: 'made:here', exact: true })).toBeVisible();
      await expect(table.getByRole('button', { name: 'zero', exact: true })).toHaveCount(0);

      // From the console: database 0 is untouched, database 3 has what the page wrote.
      await openPage(page, 'Console');
      await page.getByLabel('Database', { exact: true }).selectOption('3');
      await expect(prompt).toHaveText(/\[3\]>$/);
      expect(await run(page, 'GET made:here')).toBe('"v3"');
      expect(Number((await run(page, 'TTL both')).replace('(integer) ', ''))).toBeGreaterThan(500);
      expect(await run(page, 'SELECT 0')).toBe('OK');
      expect(await run(page, 'EXISTS made:here')).toBe('(integer) 0');
      expect(await run(page, 'TTL both')).toBe('(integer) -1');

      // A key that expires in database 3 is listed with its database on the Evictions page.
      expect(await run(page, 'SELECT 3')).toBe('OK');
      expect(await run(page, 'SET gone soon PX 50')).toBe('OK');
      await openPage(page, 'Evictions');
      const gone = page.getByRole('table', { name: 'Recent evictions' }).getByRole('row').filter({ hasText: 'gone' });
      await expect(gone.getByRole('cell').nth(1)).toHaveText('3');
      await expect(page.getByRole('columnheader', { name: 'DB' })).toBeVisible();
    });
  });
}
