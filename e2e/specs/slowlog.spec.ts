import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('the Slow log lists slow commands, its threshold is editable in place, and it resets', async ({ page, redis }) => {
      await target.open(page, 'Slow log');
      const threshold = page.getByLabel('slowlog-log-slower-than');
      await expect(threshold).toHaveValue('10000');
      const table = page.getByRole('table', { name: 'Slow log entries' });
      await expect(table.getByText('No slow commands logged.')).toBeVisible();

      // 0 µs: every command is slow.
      await threshold.fill('0');
      await expect(page.getByText('every command is logged')).toBeVisible();
      await page.getByRole('button', { name: 'Save threshold' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
      expect(await target.read(page, redis, ['CONFIG', 'GET', 'slowlog-log-slower-than'], 'Slow log')).toBe(
        '1) "slowlog-log-slower-than"\n2) "0"',
      );

      await target.write(page, redis, [['SET', 'slow:key', 'a value']], 'Slow log');
      // The table refreshes every 2 s: the command, with its arguments, newest first.
      const row = table.getByRole('row').filter({ hasText: 'SET slow:key a value' });
      await expect(row).toBeVisible({ timeout: 10_000 });
      await expect(row.getByRole('cell').nth(2)).toHaveText(/\d µs|ms|s$/);

      // Usable on a phone: the entry is still there, readable as a card.
      await page.setViewportSize({ width: 390, height: 844 });
      await expect(row).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);

      await page.getByRole('button', { name: 'Reset' }).click();
      await expect(table.getByText('No slow commands logged.')).toBeVisible();

      // Back to off: nothing more is logged.
      await threshold.fill('-1');
      await page.getByRole('button', { name: 'Save threshold' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
    });
  });
}
