// A read-only ACL user signs in to the dashboard with a name and password: it can read keys,
// the Keys page's write actions are disabled and say why (the server's NOPERM text), and a
// write sent to the API anyway is refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect } from '../support/test';

const TOKEN = 'e2e-acl-admin-token-5d1';
const CONF = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-acl-')), 'vitrine.conf');
fs.writeFileSync(CONF, 'user reader on >pw ~* +@read\n');

test.use({ serverArgs: ['--admin-token', TOKEN, CONF] });

test('sign in as a read-only user and find the write actions disabled', async ({ page, server, redis }) => {
  await redis.ok('SET', 'greeting', 'hello');

  await page.goto('/keys');
  const dialog = page.getByRole('dialog', { name: 'Sign in to this server' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'As a user' }).click();

  // A wrong password is refused, in the server's words, and the prompt stays.
  await dialog.getByLabel('User name').fill('reader');
  await dialog.getByLabel('User password').fill('wrong');
  await dialog.getByRole('button', { name: 'Sign in' }).click();
  await expect(dialog.getByRole('alert')).toContainText('invalid username-password pair');

  await dialog.getByLabel('User password').fill('pw');
  await dialog.getByRole('button', { name: 'Sign in' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Signed in as reader')).toBeVisible();

  // Reading works.
  const table = page.getByRole('table', { name: 'Keys' });
  await table.getByRole('button', { name: 'greeting', exact: true }).click();
  const panel = page.getByRole('region', { name: 'greeting' });
  await expect(panel.getByLabel('Stored value')).toHaveText('hello');

  // Writing is disabled, and says why.
  const noperm = /NOPERM/;
  await expect(page.getByRole('note', { name: 'Read only' })).toContainText(noperm);
  const newKey = page.getByRole('button', { name: 'New key' });
  await expect(newKey).toBeDisabled();
  await expect(newKey).toHaveAccessibleDescription(noperm);
  for (const name of ['Edit value', 'Delete key', 'Set TTL']) {
    const button = panel.getByRole('button', { name });
    await expect(button).toBeDisabled();
    await expect(button).toHaveAccessibleDescription(noperm);
  }
  await page.getByRole('button', { name: 'Export / import' }).click();
  await expect(page.getByRole('button', { name: 'Import…' })).toBeDisabled();

  // A direct write with the user's session is refused by the server, with the NOPERM text.
  const token = await page.evaluate(() => sessionStorage.getItem('vitrine.adminToken'));
  expect(token).toMatch(/^[0-9a-f]{64}$/);
  const res = await fetch(`${server.url}/api/keys/greeting`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ value: 'changed' }),
  });
  expect(res.status).toBe(403);
  const body = await res.json();
  expect(body.error.code).toBe('noperm');
  expect(body.error.message).toMatch(/^NOPERM this user has no permissions to run the '\w+' command$/);
  expect(await redis.ok('GET', 'greeting')).toBe('hello');

  // Signing out forgets the session: the server no longer takes it.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByText('Signed in as reader')).toBeHidden();
  expect((await fetch(`${server.url}/api/stats`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
});
