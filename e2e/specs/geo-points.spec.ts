import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('a geo index shows as points, with member and coordinates on hover', async ({ page, redis }) => {
      await target.write(page, redis, [
        ['GEOADD', 'sicily', '13.361389', '38.115556', 'Palermo', '15.087269', '37.502669', 'Catania'],
        ['ZADD', 'scores', '1.5', 'alice'],
      ]);
      await target.open(page, 'Keys');
      await page.getByRole('table', { name: 'Keys' }).getByRole('button', { name: 'sicily', exact: true }).click();
      const panel = page.getByRole('region', { name: 'sicily' });

      // The member list first; the toggle switches to the scatter and back.
      const toggle = panel.getByRole('group', { name: 'Show as' });
      await expect(toggle.getByRole('button', { name: 'Members' })).toHaveAttribute('aria-pressed', 'true');
      await toggle.getByRole('button', { name: 'Points' }).click();
      const plot = panel.getByRole('img', { name: 'Points by longitude and latitude' });
      await expect(plot).toBeVisible();
      const palermo = plot.getByRole('button', { name: 'Palermo: 13.361389, 38.115556' });
      await expect(plot.getByRole('button', { name: 'Catania: 15.087267, 37.502668' })).toBeVisible();
      await palermo.hover();
      await expect(panel.getByRole('status')).toHaveText('Palermo: 13.361389, 38.115556');
      await toggle.getByRole('button', { name: 'Members' }).click();
      await expect(plot).toHaveCount(0);

      // A sorted set whose scores are no geohashes has no toggle.
      await page.getByRole('table', { name: 'Keys' }).getByRole('button', { name: 'scores', exact: true }).click();
      const plain = page.getByRole('region', { name: 'scores' });
      await expect(plain.getByText('alice')).toBeVisible();
      await expect(plain.getByRole('group', { name: 'Show as' })).toHaveCount(0);
    });
  });
}
