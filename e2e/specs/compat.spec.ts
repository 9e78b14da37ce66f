import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('the Compatibility page names what the applications need, by client library, and resets', async ({ page, redis }, testInfo) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await target.open(page, 'Compatibility');
      const table = page.getByRole('table', { name: 'Refused commands' });
      await expect(table.getByText('Nothing refused')).toBeVisible();

      // A client that says it is redis-py sends a module command twice and an option SET lacks.
      for (const argv of [
        ['CLIENT', 'SETINFO', 'LIB-NAME', 'redis-py'],
        ['CLIENT', 'SETINFO', 'LIB-VER', '5.0.1'],
        ['FT.SEARCH', 'idx', 'hello'],
        ['FT.SEARCH', 'idx', 'world'],
        ['SET', 'k', 'v', 'NX', 'KEEPIT'],
      ]) {
        await target.read(page, redis, argv);
      }
      await target.open(page, 'Compatibility');

      // Most sent first: the module command, twice, by redis-py 5.0.1.
      const first = table.getByRole('row').nth(1);
      await expect(first).toContainText('FT.SEARCH', { timeout: 10_000 });
      await expect(first).toContainText('redis-py 5.0.1');
      await expect(first.getByRole('cell').nth(3)).toHaveText('2');
      await expect(first).toContainText('idx world');
      await expect(page.getByText(/Your applications need FT\.SEARCH \(unknown command\), sent 2 times by redis-py 5\.0\.1/)).toBeVisible();
      const option = table.getByRole('row').filter({ hasText: 'SET … KEEPIT' });
      await expect(option).toContainText('syntax error / unsupported option');
      await expect(option.getByRole('cell').nth(3)).toHaveText('1');

      // On a phone: still readable, nothing wider than the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await expect(first).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const shot = testInfo.outputPath(`compat-390-${target.name}.png`);
      await page.screenshot({ path: shot, fullPage: true, animations: 'disabled' });
      await testInfo.attach(`compat-390-${target.name}`, { path: shot, contentType: 'image/png' });

      await page.getByRole('button', { name: 'Reset' }).click();
      await expect(table.getByText('Nothing refused')).toBeVisible();
      expect(errors).toEqual([]);
    });
  });
}
