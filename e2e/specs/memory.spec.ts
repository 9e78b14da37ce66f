import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';
import { statValue } from '../support/page';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('the Memory page shows the ledger by prefix with drill-down, types, TTLs and the biggest keys', async ({ page, redis }) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await target.write(page, redis, [
        ['SET', 'user:1:name', 'alice'],
        ['SET', 'user:2:name', 'bob'],
        ['SET', 'user:2:mail', 'bob@example.com'],
        ['RPUSH', 'queue:jobs', 'a', 'b', 'c'],
        ['SET', 'session:abc', 'x'.repeat(3000), 'EX', '30'],
        ['SET', 'plain', 'v'],
        ['SELECT', '1'],
        ['SET', 'other:db1', 'elsewhere'],
        ['SELECT', '0'],
      ]);
      await target.open(page, 'Memory');

      // Every database at first, then one.
      await expect(statValue(page, 'Memory totals', 'Keys')).toHaveText('7', { timeout: 10_000 });
      await page.getByLabel('Database').selectOption('1');
      await expect(statValue(page, 'Memory totals', 'Keys')).toHaveText('1');
      await expect(page.getByRole('list', { name: 'Key prefixes' })).toContainText('other:*');
      await page.getByLabel('Database').selectOption('0');
      await expect(statValue(page, 'Memory totals', 'Keys')).toHaveText('6');
      await expect(statValue(page, 'Memory totals', 'Data')).toHaveText(/\d.* (B|KiB)$/);
      await expect(statValue(page, 'Memory totals', 'Expiring in 60 s')).toHaveText('1');

      const prefixes = page.getByRole('list', { name: 'Key prefixes' });
      await expect(prefixes.getByRole('listitem').first()).toContainText('session:*');
      await expect(prefixes).toContainText('(no prefix)');
      await expect(prefixes.getByRole('listitem').filter({ hasText: 'user:*' })).toContainText('3 keys');

      // Drill down into user:* and back.
      await prefixes.getByRole('button', { name: 'user:*' }).click();
      const under = page.getByRole('list', { name: 'Prefixes under user:*' });
      await expect(under).toContainText('user:2:*');
      await expect(under.getByRole('listitem').filter({ hasText: 'user:2:*' })).toContainText('2 keys');
      await expect(page.getByRole('heading', { name: 'By type (user:*)' })).toBeVisible();
      await page.getByRole('button', { name: 'All prefixes' }).click();
      await expect(prefixes).toBeVisible();

      await expect(page.getByRole('list', { name: 'Bytes by type' })).toContainText('list');
      await expect(page.getByRole('list', { name: 'Keys by remaining TTL' }).getByRole('listitem').filter({ hasText: '<1m' })).toContainText('1');

      const big = page.getByRole('table', { name: 'Biggest keys' });
      const first = big.getByRole('row').nth(1);
      await expect(first).toContainText('session:abc');
      await expect(first).toContainText('KiB');
      await first.getByRole('link', { name: 'session:abc' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Keys' })).toBeVisible();
      // The key opens in its panel, in this backend's own Keys page (the playground's under /playground).
      await expect(page.getByRole('region', { name: 'session:abc' })).toBeVisible();

      await target.open(page, 'Memory');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByLabel('Database').selectOption('all');
      await expect(statValue(page, 'Memory totals', 'Keys')).toHaveText('7');
      await expect(prefixes).toBeVisible();
      await expect(big).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(errors).toEqual([]);
    });
  });
}
