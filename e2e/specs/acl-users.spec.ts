// The admin edits an ACL user on the Users page: the rules, a confirmation showing the ACL
// LIST line the user will have (the server's dry parse), then the save, and the row shows it.
// The ACL LOG on the same page shows a command the read-only user was refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RedisError, RespClient } from '../support/resp';
import { openPage } from '../support/page';
import { test, expect } from '../support/test';

const TOKEN = 'e2e-acl-admin-token-8a2';
const CONF = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-acl-')), 'vitrine.conf');
fs.writeFileSync(CONF, 'user reader on >pw ~* +@read\n');

test.use({ serverArgs: ['--admin-token', TOKEN, CONF] });

test('sign in as admin and edit a user', async ({ page, server }) => {
  // The read-only user tries a write over RESP: refused, and logged.
  const reader = await RespClient.connect(server.respPort);
  try {
    expect(await reader.ok('AUTH', 'reader', 'pw')).toBe('OK');
    const refused = await reader.command('DEL', 'greeting');
    expect(refused).toBeInstanceOf(RedisError);
    expect(String((refused as RedisError).message)).toContain("NOPERM this user has no permissions to run the 'del' command");
  } finally {
    reader.close();
  }

  await page.goto('/');
  const dialog = page.getByRole('dialog', { name: 'Sign in to this server' });
  await dialog.getByLabel('Admin token').fill(TOKEN);
  await dialog.getByRole('button', { name: 'Sign in' }).click();
  await expect(dialog).toBeHidden();
  await openPage(page, 'Users');

  const users = page.getByRole('table', { name: 'ACL users' });
  const row = users.getByRole('row', { name: 'User reader' });
  await expect(row).toContainText('on');
  await expect(row).toContainText('1 password');
  await expect(users.getByRole('row', { name: 'User default' }).getByRole('button', { name: 'Delete default' })).toBeDisabled();

  // The log shows the refused command, by whom.
  const log = page.getByRole('table', { name: 'ACL log' });
  const denied = log.getByRole('row').filter({ hasText: 'command not allowed' });
  await expect(denied).toContainText('del');
  await expect(denied).toContainText('reader');

  // Edit: the rules, then the line the user would have, then save.
  await row.getByRole('button', { name: 'Edit reader' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit user reader' });
  await edit.getByLabel('Rules').fill('bogus');
  await edit.getByRole('button', { name: 'Preview' }).click();
  await expect(edit.getByRole('alert')).toContainText("Error in ACL SETUSER modifier 'bogus'");
  await edit.getByLabel('Rules').fill('+del');
  await edit.getByRole('button', { name: 'Preview' }).click();
  const line = edit.getByLabel('Resulting ACL LIST line');
  await expect(line).toHaveText(/^user reader on #[0-9a-f]{64} ~\* resetchannels -@all \+@read \+del$/);
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toBeHidden();
  await expect(row.getByText(/\+@read \+del$/)).toBeVisible();

  // The server has it: the reader may now delete.
  const again = await RespClient.connect(server.respPort);
  try {
    await again.ok('AUTH', 'reader', 'pw');
    expect(await again.ok('DEL', 'greeting')).toBe(0);
  } finally {
    again.close();
  }

  // Reset empties the log.
  await page.getByRole('region', { name: 'ACL log' }).getByRole('button', { name: 'Reset' }).click();
  await expect(log.getByText('Nothing was denied.')).toBeVisible();
});

test.describe('playground', () => {
  test.use({ serverArgs: [] });

  test('the Users page adds a user in the tab, with the previewed line', async ({ page }) => {
    await page.goto('/playground');
    await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
    await openPage(page, 'Users');
    const users = page.getByRole('table', { name: 'ACL users' });
    await expect(users.getByRole('row', { name: 'User default' })).toContainText('nopass');

    await page.getByRole('button', { name: 'Add user' }).click();
    const add = page.getByRole('dialog', { name: 'Add a user' });
    await add.getByLabel('User name').fill('app');
    await add.getByLabel('Rules').fill('on nopass ~app:* +get');
    await add.getByRole('button', { name: 'Preview' }).click();
    await expect(add.getByLabel('Resulting ACL LIST line')).toHaveText('user app on nopass ~app:* resetchannels -@all +get');
    await add.getByRole('button', { name: 'Save' }).click();
    await expect(add).toBeHidden();
    await expect(users.getByRole('row', { name: 'User app' })).toContainText('~app:* resetchannels -@all +get');

    // Deleted again after confirming.
    await users.getByRole('button', { name: 'Delete app' }).click();
    await page.getByRole('alertdialog', { name: 'Delete user app' }).getByRole('button', { name: 'Delete user' }).click();
    await expect(users.getByRole('row', { name: 'User app' })).toHaveCount(0);
  });
});
