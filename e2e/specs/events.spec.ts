import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('the Events page turns notifications on and shows a command’s events', async ({ page, redis }) => {
      await target.open(page, 'Events');
      // Off by default: the page says so and asks before turning them on.
      await expect(page.getByText('Keyspace notifications are off')).toBeVisible();
      await page.getByRole('button', { name: 'Turn on notifications' }).click();
      const dialog = page.getByRole('alertdialog', { name: 'Turn on keyspace notifications' });
      await expect(dialog).toContainText('notify-keyspace-events to KEA');
      await dialog.getByRole('button', { name: 'Turn on', exact: true }).click();
      await expect(page.getByText('Keyspace notifications are off')).toBeHidden();
      await expect(page.getByText('notify-keyspace-events is AKE')).toBeVisible();

      // A command typed in the console publishes its events.
      await target.open(page, 'Console');
      const command = page.getByLabel('Command', { exact: true });
      const output = page.getByRole('log', { name: 'Console output' });
      await command.fill('SET greeting hello EX 100');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await expect(output.locator('pre').last()).toHaveText('OK');
      await command.fill('RPUSH queue job');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await expect(output.locator('pre').last()).toHaveText('(integer) 1');

      await target.open(page, 'Events');
      const items = page.getByRole('list', { name: 'Keyspace events' }).getByRole('listitem');
      await expect(items.filter({ hasText: /set\s+greeting/ })).toBeVisible();
      await expect(items.filter({ hasText: /expire\s+greeting/ })).toBeVisible();
      await expect(items.filter({ hasText: /rpush\s+queue/ })).toBeVisible();

      // Filters: by event and by key pattern.
      await page.getByRole('textbox', { name: 'Event', exact: true }).fill('rpush');
      await expect(items).toHaveCount(1);
      await page.getByRole('textbox', { name: 'Event', exact: true }).fill('');
      await page.getByRole('textbox', { name: 'Key pattern', exact: true }).fill('greet*');
      await expect(items).toHaveCount(2);
      await page.getByRole('textbox', { name: 'Database', exact: true }).fill('3');
      await expect(page.getByRole('list', { name: 'Keyspace events' })).toContainText('No event matches the filters.');

      if (target.name === 'server') {
        // Events from another client arrive live.
        await page.getByRole('textbox', { name: 'Database', exact: true }).fill('');
        await page.getByRole('textbox', { name: 'Key pattern', exact: true }).fill('');
        await redis.command('DEL', 'queue');
        await expect(items.filter({ hasText: /del\s+queue/ })).toBeVisible();
      }
    });
  });
}
