import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('the Latency view shows percentiles per command, the picked one over time and its histogram', async ({ page, redis }) => {
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

      // Over time: the page takes the intervals between its polls, so calls made after it
      // opened show up in the chart and in the histogram of the last interval.
      const chart = page.getByRole('img', { name: /^Latency percentiles of get over time/ });
      await expect(chart).toBeVisible();
      await target.write(page, redis, [['GET', 'lat:a'], ['GET', 'lat:a'], ['GET', 'lat:b']], 'Latency');
      await page.getByRole('table', { name: 'Latency percentiles' }).getByRole('button', { name: 'get', exact: true }).click();
      await page.getByRole('radio', { name: 'Last interval' }).check();
      const interval = page.getByRole('list', { name: 'Calls by latency of get in the last interval' });
      await expect(interval.getByRole('listitem').first()).toContainText('≤', { timeout: 10_000 });
      await expect(page.getByText(/^Calls in the last poll interval with any, ending/)).toBeVisible();
      await expect(chart.locator('canvas')).toBeVisible();
      await page.getByRole('radio', { name: 'Since reset' }).check();

      await page.setViewportSize({ width: 390, height: 844 });
      await expect(bars).toBeVisible();
      await expect(chart).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
    });
  });
}
