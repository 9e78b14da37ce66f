import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('a stream shows its consumer groups with lag, pending entries and consumers', async ({ page, redis }) => {
      await target.write(page, redis, [
        ['XADD', 'orders', '1-0', 'item', 'tea'],
        ['XADD', 'orders', '2-0', 'item', 'cake'],
        ['XADD', 'orders', '3-0', 'item', 'jam'],
        ['XGROUP', 'CREATE', 'orders', 'shipping', '0'],
        ['XREADGROUP', 'GROUP', 'shipping', 'alice', 'COUNT', '2', 'STREAMS', 'orders', '>'],
        ['XACK', 'orders', 'shipping', '1-0'],
        ['XGROUP', 'CREATECONSUMER', 'orders', 'shipping', 'bob'],
        ['XGROUP', 'CREATE', 'orders', 'audit', '$'],
      ]);
      await target.open(page, 'Keys');
      await page.getByRole('table', { name: 'Keys' }).getByRole('button', { name: 'orders', exact: true }).click();
      const panel = page.getByRole('region', { name: 'orders' });

      // One row per group: last delivered ID, entries read, lag, pending, consumers.
      const groups = panel.getByRole('table', { name: 'Consumer groups' });
      await expect(groups.getByRole('row', { name: 'audit 3-0 unknown 0 0 0' })).toBeVisible();
      await expect(groups.getByRole('row', { name: 'shipping 2-0 2 1 1 2' })).toBeVisible();

      // The group's consumers: alice holds the entry she has not acknowledged; bob never got one.
      const consumers = panel.getByRole('table', { name: 'Consumers of shipping' });
      await expect(consumers.getByRole('row', { name: /^alice 1 \d+ ?m?s \d+ ?m?s ago$/ })).toBeVisible();
      await expect(consumers.getByRole('row', { name: /^bob 0 \d+ ?m?s never$/ })).toBeVisible();
      await expect(panel.getByRole('table', { name: 'Consumers of audit' })).toHaveCount(0);
    });
  });
}
