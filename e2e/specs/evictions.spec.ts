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

    test('what-if memory: the miss-ratio curve and the advice, at 390 px', async ({ page, redis }) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await target.write(page, redis, [['CONFIG', 'SET', 'maxmemory', '512kb', 'maxmemory-policy', 'allkeys-lru']]);
      await target.open(page, 'Evictions');
      // About 1.2 MiB of keys into 512 KiB, then read back in the order written, twice: LRU
      // has always just evicted the next key, so nearly every miss is an eviction, and the
      // curve says a few times the memory would hold them all.
      const value = 'v'.repeat(512);
      const keys = Array.from({ length: 2000 }, (_, i) => `wi:${i}`);
      const chunks = Array.from({ length: 4 }, (_, c) => keys.slice(c * 500, c * 500 + 500));
      const mset = chunks.map((chunk) => ['MSET', ...chunk.flatMap((k) => [k, value])]);
      const mget = chunks.map((chunk) => ['MGET', ...chunk]);
      await target.write(page, redis, [...mset, ...mget, ...mget], 'Evictions');
      // On a phone (the sidebar folds away, so the writes above came first).
      await page.setViewportSize({ width: 390, height: 844 });

      const advice = page.getByTestId('whatif-advice');
      await expect(advice).toContainText(/^At [\d.]+ [KM]iB you would hit about \d+% of reads/, { timeout: 15_000 });
      await expect(advice).toContainText(/Without a limit: \d+%/);
      const chart = page.getByRole('img', { name: /^Estimated hit ratio by memory limit/ });
      await expect(chart).toBeVisible();
      await expect(chart.locator('canvas')).toHaveCount(1);
      await expect(page.getByTestId('horizon')).toContainText(/[Ee]very eviction and expiration so far \(\d[\d,]*\) is remembered/);
      // The reading of misses by cause says more memory would help, and by how much.
      await expect(page.getByText(/were keys evicted for memory \(\d+%\): a larger maxmemory would raise the hit ratio: at /)).toBeVisible({
        timeout: 15_000,
      });
      await expect
        .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), { message: 'no sideways scroll at 390 px' })
        .toBeLessThanOrEqual(0);
      expect(errors).toEqual([]);
    });
  });
}
