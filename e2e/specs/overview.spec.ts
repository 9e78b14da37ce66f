import { test, expect } from '../support/test';
import { parseBytes, parseCount, statValue } from '../support/page';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('memory and key count follow writes made from outside the page', async ({ page, redis }) => {
      await target.open(page, 'Overview');
      await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();

      const keys = statValue(page, 'Headline numbers', 'Keys');
      const memory = statValue(page, 'Headline numbers', 'Memory used');
      await expect(keys).toHaveText('0');
      await expect(memory).toHaveText(/\d/);
      const before = parseBytes(await memory.innerText());
      expect(before).not.toBeNaN();

      // 500 keys of 1 KiB each, from outside the page, as an application would write them.
      const value = 'x'.repeat(1024);
      await target.write(page, redis, [['MSET', ...Array.from({ length: 500 }, (_, i) => [`overview:${i}`, value]).flat()]], 'Overview');

      // The page updates once a second from the stats stream: a few seconds at most.
      await expect(keys).toHaveText('500', { timeout: 5_000 });
      await expect.poll(async () => parseBytes(await memory.innerText()), { timeout: 5_000 }).toBeGreaterThan(before + 400 * 1024);

      // And back down when they are deleted.
      await target.write(page, redis, [['DEL', ...Array.from({ length: 250 }, (_, i) => `overview:${i}`)]], 'Overview');
      await expect(keys).toHaveText('250', { timeout: 5_000 });
      expect(parseCount(await keys.innerText())).toBe(250);
    });
  });
}
