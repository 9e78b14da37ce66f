import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('a string shows its bits on request, with byte offsets and the count of set bits', async ({ page, redis }) => {
      await target.write(page, redis, [
        ['SETBIT', 'flags', '7', '1'],
        ['SETBIT', 'flags', '8', '1'],
        ['SETBIT', 'flags', '70', '1'],
        ['SETBIT', 'long', '2000', '1'],
      ]);
      await target.open(page, 'Keys');
      await page.getByRole('table', { name: 'Keys' }).getByRole('button', { name: 'flags', exact: true }).click();
      const panel = page.getByRole('region', { name: 'flags' });

      await panel.getByRole('radio', { name: 'Bits' }).check();
      await expect(panel.getByLabel('Set bits')).toContainText('3 of 72 bits set');
      const bits = panel.getByRole('table', { name: 'Bits' });
      // Byte 0 is 00000001, byte 1 is 10000000: bit 0 is the most significant, as SETBIT counts.
      await expect(bits.getByRole('row', { name: /^0 00000001 10000000( 00000000){6}$/ })).toBeVisible();
      await expect(bits.getByRole('row', { name: /^8 00000010$/ })).toBeVisible();
      await expect(bits.locator('.on')).toHaveCount(3);

      // A long string comes a window at a time.
      await page.getByRole('table', { name: 'Keys' }).getByRole('button', { name: 'long', exact: true }).click();
      const long = page.getByRole('region', { name: 'long' });
      await long.getByRole('radio', { name: 'Bits' }).check();
      await expect(long.getByLabel('Set bits')).toContainText('1 of 2,008 bits set');
      await expect(long.getByRole('table', { name: 'Bits' }).locator('.on')).toHaveCount(0);
      await long.getByRole('button', { name: 'Next bytes' }).click();
      await expect(long.getByRole('table', { name: 'Bits' }).getByRole('row', { name: /^248 00000000 00000000 10000000$/ })).toBeVisible();
      await expect(long.getByRole('button', { name: 'Next bytes' })).toBeDisabled();
    });
  });
}
