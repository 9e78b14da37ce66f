import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('the Monitor page streams commands, pauses and filters them', async ({ page, redis }) => {
      // The server's page follows GET /api/monitor/stream: one catch-up poll when the stream
      // opens, and no polling after it.
      const streams: string[] = [];
      const polls: string[] = [];
      page.on('request', (r) => {
        const url = new URL(r.url());
        if (url.pathname === '/api/monitor/stream') streams.push(r.url());
        else if (url.pathname === '/api/monitor') polls.push(r.url());
      });
      await target.open(page, 'Monitor');
      const stream = page.getByRole('list', { name: 'Monitored commands' });
      await target.write(
        page,
        redis,
        [
          ['SET', 'user:1', 'alice'],
          ['GET', 'user:1'],
          ['SET', 'order:9', 'pending'],
        ],
        'Monitor',
      );
      const items = stream.getByRole('listitem');
      await expect(items.filter({ hasText: '"order:9"' })).toBeVisible({ timeout: 10_000 });
      await expect(items.filter({ hasText: /set\s+"user:1" "alice"/ })).toBeVisible();
      if (target.name === 'server') {
        expect(streams, 'the page opened the monitor stream').toHaveLength(1);
        // From here on, a poll would fail: what shows next came through the stream.
        await page.route((url) => url.pathname === '/api/monitor', (route) => route.abort());
        const pollsBefore = polls.length;
        expect(pollsBefore, 'one catch-up poll when the stream opened').toBeLessThanOrEqual(1);
        await redis.command('SET', 'streamed', '1');
        await expect(items.filter({ hasText: '"streamed"' })).toBeVisible({ timeout: 10_000 });
        await page.waitForTimeout(1500);
        expect(polls.slice(pollsBefore), 'no polling while the stream is up').toEqual([]);
        expect(streams).toHaveLength(1);
      }

      // Filters: by command, by key pattern, by client.
      await page.getByRole('textbox', { name: 'Command', exact: true }).fill('get');
      await expect(items).toHaveCount(1);
      await expect(items.first()).toContainText('"user:1"');
      await page.getByRole('textbox', { name: 'Command', exact: true }).fill('');
      await page.getByRole('textbox', { name: 'Key pattern', exact: true }).fill('order:*');
      await expect(items).toHaveCount(1);
      await expect(items.first()).toContainText('"pending"');
      await page.getByRole('textbox', { name: 'Key pattern', exact: true }).fill('');
      await page.getByRole('textbox', { name: 'Client', exact: true }).fill('no-such-client');
      await expect(stream).toContainText('No command matches the filters.');
      await page.getByRole('textbox', { name: 'Client', exact: true }).fill('');

      // Paused, new commands wait; resumed, they show.
      if (target.name === 'server') {
        await page.getByRole('button', { name: 'Pause' }).click();
        await redis.command('SET', 'late', '1');
        await expect(page.getByRole('button', { name: /^Resume \(1 new\)$/ })).toBeVisible({ timeout: 10_000 });
        await expect(items.filter({ hasText: '"late"' })).toHaveCount(0);
        await page.getByRole('button', { name: /^Resume/ }).click();
        await expect(items.filter({ hasText: '"late"' })).toBeVisible();
      } else {
        await page.getByRole('button', { name: 'Pause' }).click();
        await expect(page.getByRole('button', { name: 'Resume' })).toBeVisible();
        await page.getByRole('button', { name: 'Resume' }).click();
      }
      await page.getByRole('button', { name: 'Clear' }).click();
      await expect(stream).toContainText('Waiting for commands…');

      await page.setViewportSize({ width: 390, height: 844 });
      await expect
        .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), { message: 'no sideways scroll at 390 px' })
        .toBeLessThanOrEqual(0);
    });
  });
}
