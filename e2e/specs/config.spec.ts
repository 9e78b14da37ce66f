import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('Config lists every parameter by group, filters them, and changes a live one', async ({ page, redis }) => {
      await target.open(page, 'Config');
      await expect(page.getByRole('table', { name: 'Encodings settings' })).toBeVisible();
      await expect(page.getByRole('table', { name: 'Replication settings' })).toBeVisible();
      // Parameters with no effect in Vitrine say so; start-up ones cannot be edited.
      const replication = page.getByRole('table', { name: 'Replication settings' });
      await expect(replication.getByText('no effect yet').first()).toBeVisible();

      // Filtering by an alias keeps only the matching parameters.
      await page.getByLabel('Filter').fill('ziplist');
      await expect(page.getByRole('table', { name: 'Replication settings' })).toHaveCount(0);
      const encodings = page.getByRole('table', { name: 'Encodings settings' });
      const entries = encodings.getByLabel('hash-max-listpack-entries', { exact: true });
      await expect(entries).toHaveValue('128');
      await entries.fill('3');
      await page.getByRole('button', { name: 'Save hash-max-listpack-entries' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
      // Under its alias too, as CONFIG GET answers it.
      const answer = await target.read(page, redis, ['CONFIG', 'GET', 'hash-max-ziplist-entries'], 'Config');
      expect(answer).toContain('"3"');

      // A refused value shows Redis's reason.
      await page.getByLabel('Filter').fill('hz');
      await page.getByLabel('hz', { exact: true }).fill('often');
      await page.getByRole('button', { name: 'Save hz', exact: true }).click();
      await expect(page.getByRole('status').filter({ hasText: "argument couldn't be parsed into an integer" })).toBeVisible();
    });
  });
}
