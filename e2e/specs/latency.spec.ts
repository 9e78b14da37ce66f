import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('the Latency view shows percentiles per command and the histogram of the one picked', async ({ page, redis }) => {
      await target.write(page, redis, [
        ['SET', 'lat:a', '1'],
        ['GET', 'lat:a'],
        ['GET', 'lat:a'],
      ]);
      await target.open(page, 'Latency');
      const table = page.getByRole('table', { name: 'Latency percentiles' });
      const get = table.getByRole('row').filter({ has: page.getByRole('button', { name: 'get', exact: true }) });
      await expect(get).toBeVisible({ timeout: 10_000 });
      await expect(get.getByRole('cell').nth(2)).toHaveText(/µs|ms|s$/);

      await get.getByRole('button', { name: 'get', exact: true }).click();
      await expect(page.getByRole('heading', { name: 'Histogram: get' })).toBeVisible();
      const bars = page.getByRole('list', { name: 'Calls by latency of get' });
      await expect(bars.getByRole('listitem').first()).toContainText('≤');

      await expect(page.getByText('The latency monitor is off (latency-monitor-threshold 0).')).toBeVisible();

      await page.setViewportSize({ width: 390, height: 844 });
      await expect(bars).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    });
  });
}
