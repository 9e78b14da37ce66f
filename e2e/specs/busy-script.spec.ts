import { test, expect } from '../support/test';
import { RespClient, RedisError } from '../support/resp';

// Two event loops: the test's own connection (the first) and the script's (the second) are on
// different loops, so the first is served while the script holds its loop's thread.
test.use({ serverArgs: ['--threads', '2'] });

test('a busy script shows a banner on every page, and its Kill button stops it', async ({ page, server, redis }) => {
  await redis.ok('CONFIG', 'SET', 'busy-reply-threshold', '200');
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(page.getByRole('alert', { name: 'Busy script' })).toHaveCount(0);

  const runner = await RespClient.connect(server.respPort);
  const reply = runner.command('EVAL', 'local i = 0 while true do i = i + 1 end', '0');
  try {
    const banner = page.getByRole('alert', { name: 'Busy script' });
    await expect(banner).toBeVisible({ timeout: 10_000 });
    await expect(banner).toContainText(/A script [0-9a-f]{12} has been running for/);
    await expect(banner).toContainText('Other clients get BUSY');
    // Other clients are refused while it is busy.
    const busy = await redis.command('GET', 'k');
    expect(busy).toBeInstanceOf(RedisError);
    expect(String((busy as RedisError).message)).toContain('BUSY Redis is busy running a script');

    // Another page shows it too.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients', exact: true }).click();
    await expect(banner).toBeVisible();
    await banner.getByRole('button', { name: 'Kill script' }).click();
    const killed = await reply;
    expect(killed).toBeInstanceOf(RedisError);
    expect(String((killed as RedisError).message)).toContain('Script killed by user with SCRIPT KILL');
    await expect(banner).toHaveCount(0, { timeout: 10_000 });
    expect(await redis.command('PING')).toBe('PONG');
  } finally {
    runner.close();
  }
});
