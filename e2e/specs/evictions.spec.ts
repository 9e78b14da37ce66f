import { test, expect } from '../support/test';
import { statValue } from '../support/page';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('filling past maxmemory shows evictions in the Evictions view', async ({ page, redis }) => {
      await target.write(page, redis, [['CONFIG', 'SET', 'maxmemory', '1mb', 'maxmemory-policy', 'allkeys-lru']]);
      await target.open(page, 'Evictions');

      await expect(page.getByLabel('Policy (maxmemory-policy)')).toHaveValue('allkeys-lru');
      await expect(statValue(page, 'Eviction numbers', 'Policy')).toHaveText('allkeys-lru');
      const table = page.getByRole('table', { name: 'Recent evictions' });
      await expect(table.getByText('Nothing evicted or expired yet.')).toBeVisible();

      // About 3 MiB of values into a 1 MiB cache, from outside the page.
      const value = 'v'.repeat(1024);
      const batches = Array.from({ length: 6 }, (_, batch) => ['MSET', ...Array.from({ length: 500 }, (_, i) => [`fill:${batch * 500 + i}`, value]).flat()]);
      await target.write(page, redis, batches, 'Evictions');
      const dbsize = Number((await target.read(page, redis, ['DBSIZE'], 'Evictions')).replace('(integer) ', ''));
      expect(dbsize).toBeLessThan(3000);

      // The table refreshes every 2 s: evicted fill:* keys appear, with the policy that chose them.
      const evicted = table.getByRole('row').filter({ hasText: 'evicted' });
      await expect(evicted.first()).toBeVisible({ timeout: 10_000 });
      await expect(evicted.first().getByRole('cell').first()).toHaveText(/^fill:\d+$/);
      await expect(evicted.first()).toContainText('allkeys-lru');
      await expect(statValue(page, 'Eviction numbers', 'Evictions/sec').locator('xpath=following-sibling::dd[1]')).toHaveText(
        /^[1-9][\d.,]*k? in all/,
      );

      // Only evictions, with the filter.
      await page.getByRole('radio', { name: 'Evictions' }).check();
      await expect(table.getByRole('row').filter({ hasText: 'expired' })).toHaveCount(0);
      await expect(evicted.first()).toBeVisible();

      // The policy is editable from the same view.
      await page.getByLabel('Policy (maxmemory-policy)').selectOption('allkeys-lfu');
      await page.getByRole('button', { name: 'Save policy' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
      await expect(statValue(page, 'Eviction numbers', 'Policy')).toHaveText('allkeys-lfu');
      expect(await target.read(page, redis, ['CONFIG', 'GET', 'maxmemory-policy'])).toBe('1) "maxmemory-policy"\n2) "allkeys-lfu"');
    });
  });
}
