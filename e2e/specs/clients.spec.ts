import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';
import type { Page } from '@playwright/test';

/** The page fits a 390 px phone: nothing makes it scroll sideways. */
async function fitsAPhone(page: Page): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), { message: 'no sideways scroll at 390 px' })
    .toBeLessThanOrEqual(0);
}

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('the Clients page lists connections and kills one after a confirmation', async ({ page, redis }) => {
      await target.write(page, redis, [
        ['CLIENT', 'SETNAME', 'e2e-worker'],
        ['CLIENT', 'SETINFO', 'LIB-NAME', 'e2e-lib'],
        ['SELECT', '2'],
      ]);
      await target.open(page, 'Clients');
      const table = page.getByRole('table', { name: 'Clients' });
      const row = table.getByRole('row').filter({ hasText: 'e2e-worker' });
      await expect(row).toBeVisible({ timeout: 10_000 });
      await expect(row).toContainText('e2e-lib');
      // The last command run: the tab's session may have run others since, the RESP client not.
      if (target.name === 'server') await expect(row).toContainText('select');
      await expect(row.getByRole('cell').nth(3)).toHaveText('2');

      // Kill asks first; Cancel keeps the client.
      await row.getByRole('button', { name: /^Kill client/ }).click();
      const dialog = page.getByRole('alertdialog', { name: 'Kill client' });
      await expect(dialog).toContainText('e2e-worker');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog).toBeHidden();
      await expect(row).toBeVisible();

      await row.getByRole('button', { name: /^Kill client/ }).click();
      await dialog.getByRole('button', { name: 'Kill client' }).click();
      await expect(page.getByRole('status').filter({ hasText: /^Closed client \d+/ })).toBeVisible();
      await expect(row).toHaveCount(0);
      if (target.name === 'server') {
        // The RESP connection was closed by the server.
        await expect(redis.command('PING')).rejects.toThrow();
      } else {
        // The tab's own session: a new one takes its place, without the name.
        await expect(table.getByRole('row')).toHaveCount(2);
      }
      await fitsAPhone(page);
    });
  });
}
