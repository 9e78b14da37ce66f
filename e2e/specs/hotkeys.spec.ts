import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';
import { parseCount, statValue } from '../support/page';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('the Hot keys page puts the most read key first, with its rate and share', async ({ page, redis }, testInfo) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await target.open(page, 'Hot keys');
      const table = page.getByRole('table', { name: 'Hot keys' });
      await expect(table.getByText('No key was accessed in the last seconds.')).toBeVisible();

      // One command naming the hot key 400 times (one access each), and a few colder keys.
      await target.write(page, redis, [
        ['SET', 'hot:user:1', 'x'],
        ['MGET', ...Array.from({ length: 400 }, () => 'hot:user:1')],
        ['MGET', ...Array.from({ length: 40 }, (_, i) => `cold:${i}`)],
      ]);
      await target.open(page, 'Hot keys');

      const first = table.getByRole('row').nth(1);
      await expect(first).toContainText('hot:user:1', { timeout: 10_000 });
      const inWindow = parseCount(await first.getByRole('cell').nth(5).innerText());
      // 400 accesses, sampled 1 in 16: an estimate, so only roughly.
      expect(inWindow).toBeGreaterThan(100);
      expect(inWindow).toBeLessThan(1200);
      await expect(first.getByRole('cell').nth(4)).toHaveText(/%$/);
      await expect(statValue(page, 'Hot key numbers', 'Sampling')).toHaveText('1 in 16');
      await expect(statValue(page, 'Hot key numbers', 'Hottest key')).toHaveText(/\d/);

      // On a phone: still readable, nothing wider than the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await expect(first).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const shot = testInfo.outputPath(`hotkeys-390-${target.name}.png`);
      await page.screenshot({ path: shot, fullPage: true, animations: 'disabled' });
      await testInfo.attach(`hotkeys-390-${target.name}`, { path: shot, contentType: 'image/png' });

      await page.getByRole('button', { name: 'Reset' }).click();
      await expect(table.getByText('No key was accessed in the last seconds.')).toBeVisible();
      expect(errors).toEqual([]);
    });
  });
}
