import { test, expect } from '../support/test';
import { statValue } from '../support/page';

const TOKEN = 'e2e-admin-token-3f9c';

test.describe('with --admin-token', () => {
  test.use({ serverArgs: ['--admin-token', TOKEN] });

  test('a server with --admin-token asks for it once, then the dashboard works', async ({ page, server, redis }) => {
    // The API itself refuses a request without the token.
    expect((await fetch(`${server.url}/api/stats`)).status).toBe(401);
    await redis.ok('SET', 'signed:in', 'yes');

    await page.goto('/');
    const dialog = page.getByRole('dialog', { name: 'Sign in to this server' });
    await expect(dialog).toBeVisible();

    // A wrong token is not accepted: the prompt comes back and says so.
    await dialog.getByLabel('Admin token').fill('not-the-token');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await expect(dialog.getByText('That admin token was not accepted')).toBeVisible();

    await dialog.getByLabel('Admin token').fill(TOKEN);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
    await expect(statValue(page, 'Headline numbers', 'Keys')).toHaveText('1');

    // Kept for the tab: a reload does not ask again.
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
    await expect(statValue(page, 'Headline numbers', 'Keys')).toHaveText('1');
    await expect(dialog).toBeHidden();

    // Signing out forgets it; the next request asks again.
    await page.getByRole('button', { name: 'Forget admin token' }).click();
    await page.reload();
    await expect(dialog).toBeVisible();
  });
});

const PASSWORD = 'e2e-resp-pass-71b';

test.describe('with --requirepass and no admin token', () => {
  test.use({ serverArgs: ['--requirepass', PASSWORD] });

  test('the dashboard asks for the RESP password, and it signs in', async ({ page, server, redis }) => {
    // The admin API is no way around the password: it wants it, and says so.
    const refused = await fetch(`${server.url}/api/stats`);
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.secret).toBe('password');
    await redis.ok('AUTH', PASSWORD);
    await redis.ok('SET', 'signed:in', 'with-the-password');

    await page.goto('/');
    const dialog = page.getByRole('dialog', { name: 'Sign in to this server' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText('enter the password Redis clients send with AUTH')).toBeVisible();

    await dialog.getByLabel('Password', { exact: true }).fill('not-the-password');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await expect(dialog.getByText('That password was not accepted')).toBeVisible();

    await dialog.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
    await expect(statValue(page, 'Headline numbers', 'Keys')).toHaveText('1');
    await expect(page.getByRole('button', { name: 'Forget password' })).toBeVisible();
  });
});
