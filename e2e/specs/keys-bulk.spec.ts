// The Keys page's bulk actions, element editing and value views, on both backends at 390 px
// (a phone): a bulk delete with its preview count, confirmation and progress; a bulk TTL; a
// hash field and a sorted-set score changed from the key's panel; a JSON value shown
// pretty-printed and as hex with offsets.

import type { Page } from '@playwright/test';
import { test, expect } from '../support/test';
import { TARGETS, type Target } from '../support/target';
import type { RespClient } from '../support/resp';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** Opens the Keys page (from the sidebar), then narrows the window to a phone's. */
async function openOnPhone(target: Target, page: Page) {
  await target.open(page, 'Keys');
  await page.setViewportSize(PHONE);
}

/** Reads one reply from outside the page (the playground's console needs the sidebar). */
async function read(target: Target, page: Page, redis: RespClient, argv: string[]): Promise<string> {
  await page.setViewportSize(DESKTOP);
  return target.read(page, redis, argv, 'Keys');
}

/** Page errors, collected from the start of a test (each test asserts there were none). */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

async function noSidewaysScroll(page: Page) {
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), { message: 'no sideways scroll at 390 px' })
    .toBeLessThanOrEqual(0);
}

/** `n` keys named fill:N: SETs on the server, the playground's FILL in its console. */
async function fill(target: Target, page: Page, redis: RespClient, n: number) {
  if (target.name === 'server') {
    const commands = Array.from({ length: n }, (_, i) => ['SET', `fill:${String(i).padStart(6, '0')}`, 'xxxxxxxx']);
    await target.write(page, redis, commands);
  } else {
    await target.write(page, redis, [['FILL', String(n), '8']]);
  }
}

async function search(page: Page, pattern: string) {
  await page.getByLabel('Pattern').fill(pattern);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
}

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('a bulk delete shows a preview count, asks, and runs with a progress bar', async ({ page, redis }) => {
      const errors = watchErrors(page);
      await fill(target, page, redis, 3000);
      await target.write(page, redis, [['SET', 'keep', 'me']]);
      await openOnPhone(target, page);
      await search(page, 'fill:*');
      await page.getByRole('button', { name: 'Bulk actions' }).click();
      const card = page.getByRole('region', { name: 'Bulk action' });
      await card.getByLabel('Action').selectOption('delete');
      await card.getByRole('button', { name: 'Preview' }).click();
      await expect(card.getByRole('status', { name: 'Bulk preview' })).toHaveText('3,000 keys match (exact: every key was looked at).');
      await noSidewaysScroll(page);

      await card.getByRole('button', { name: 'Delete keys…' }).click();
      const dialog = page.getByRole('alertdialog', { name: 'Delete keys?' });
      await expect(dialog).toContainText('Delete 3,000 keys matching fill:* in db0?');
      await dialog.getByRole('button', { name: 'Delete keys' }).click();
      await expect(dialog).toBeHidden();

      const progress = card.getByRole('progressbar', { name: 'Bulk progress' });
      await expect(progress).toBeVisible();
      await expect(card.getByRole('status', { name: 'Bulk job' })).toHaveText('Done: 3,000 of 3,000 keys deleted.', { timeout: 15_000 });
      await expect(progress).toHaveAttribute('value', '1');
      // The list was searched again: nothing matches now.
      await expect(page.getByText('No keys match')).toBeVisible();
      await noSidewaysScroll(page);
      expect(await read(target, page, redis, ['DBSIZE'])).toBe('(integer) 1');
      expect(await read(target, page, redis, ['GET', 'keep'])).toBe('"me"');
      expect(errors).toEqual([]);
    });

    test('a bulk TTL sets an expiry on every matching key', async ({ page, redis }) => {
      const errors = watchErrors(page);
      await target.write(page, redis, [
        ['SET', 's:1', 'a'],
        ['SET', 's:2', 'b'],
        ['SET', 's:3', 'c'],
        ['SET', 'other', 'd'],
      ]);
      await openOnPhone(target, page);
      await search(page, 's:*');
      await page.getByRole('button', { name: 'Bulk actions' }).click();
      const card = page.getByRole('region', { name: 'Bulk action' });
      await card.getByLabel('Action').selectOption('expire');
      await card.getByLabel('TTL in seconds').fill('300');
      await card.getByRole('button', { name: 'Preview' }).click();
      await expect(card.getByRole('status', { name: 'Bulk preview' })).toHaveText('3 keys match (exact: every key was looked at).');
      await card.getByRole('button', { name: 'Set TTL…' }).click();
      const dialog = page.getByRole('alertdialog', { name: 'Set TTL?' });
      await expect(dialog).toContainText('Set a TTL of 300 seconds on 3 keys matching s:* in db0?');
      await dialog.getByRole('button', { name: 'Set TTL' }).click();
      await expect(card.getByRole('status', { name: 'Bulk job' })).toHaveText('Done: 3 of 3 keys given a TTL.');
      await noSidewaysScroll(page);
      const ttl = Number((await read(target, page, redis, ['TTL', 's:2'])).replace('(integer) ', ''));
      expect(ttl).toBeGreaterThan(290);
      expect(await read(target, page, redis, ['TTL', 'other'])).toBe('(integer) -1');
      expect(errors).toEqual([]);
    });

    test('a hash field and a sorted-set score are changed from the key panel', async ({ page, redis }) => {
      const errors = watchErrors(page);
      await target.write(page, redis, [
        ['HSET', 'user:h', 'name', 'ann'],
        ['ZADD', 'board', '1', 'ann'],
      ]);
      await openOnPhone(target, page);
      const table = page.getByRole('table', { name: 'Keys' });

      await search(page, 'user:h');
      await table.getByRole('button', { name: 'user:h', exact: true }).click();
      const hash = page.getByRole('region', { name: 'user:h' });
      await hash.getByLabel('Field', { exact: true }).fill('age');
      await hash.getByLabel('Value', { exact: true }).fill('42');
      await hash.getByRole('button', { name: 'Set field' }).click();
      await expect(hash.getByRole('status')).toHaveText('HSET user:h age 42 → (integer) 1');
      await expect(hash.getByRole('table', { name: 'Fields' }).getByRole('row', { name: 'age 42' })).toBeVisible();
      // HDEL of a field named in the input.
      await hash.getByLabel('Field', { exact: true }).fill('name');
      await hash.getByRole('button', { name: 'Delete field' }).click();
      await expect(hash.getByRole('table', { name: 'Fields' }).getByRole('row', { name: /^name/ })).toHaveCount(0);
      await noSidewaysScroll(page);
      await hash.getByRole('button', { name: 'Close' }).click();

      await search(page, 'board');
      await table.getByRole('button', { name: 'board', exact: true }).click();
      const zset = page.getByRole('region', { name: 'board' });
      // Tapping a member fills the editor with it and its score.
      await zset.getByRole('table', { name: 'Members and scores' }).getByRole('button', { name: 'ann' }).click();
      await expect(zset.getByLabel('Member', { exact: true })).toHaveValue('ann');
      await expect(zset.getByLabel('Score', { exact: true })).toHaveValue('1');
      // A Redis error comes back in Redis's words.
      await zset.getByLabel('Score', { exact: true }).fill('nope');
      await zset.getByRole('button', { name: 'Set score' }).click();
      await expect(zset.getByRole('alert')).toHaveText('ERR value is not a valid float');
      await zset.getByLabel('Score', { exact: true }).fill('7.5');
      await zset.getByRole('button', { name: 'Set score' }).click();
      await expect(zset.getByRole('status')).toHaveText('ZADD board 7.5 ann → (integer) 0');
      await expect(zset.getByRole('table', { name: 'Members and scores' }).getByRole('cell', { name: '7.5' })).toBeVisible();
      await noSidewaysScroll(page);
      await zset.getByRole('button', { name: 'Close' }).click();
      expect(await read(target, page, redis, ['ZSCORE', 'board', 'ann'])).toBe('"7.5"');
      expect(await read(target, page, redis, ['HGET', 'user:h', 'age'])).toBe('"42"');
      expect(errors).toEqual([]);
    });

    test('a value is shown as text, pretty JSON or hex, with its length', async ({ page, redis }) => {
      const errors = watchErrors(page);
      await target.write(page, redis, [['SET', 'doc', '{"a":1,"b":[2]}']]);
      await openOnPhone(target, page);
      await search(page, 'doc');
      await page.getByRole('table', { name: 'Keys' }).getByRole('button', { name: 'doc', exact: true }).click();
      const panel = page.getByRole('region', { name: 'doc' });
      const value = panel.getByLabel('Stored value');
      await expect(value).toHaveText('{"a":1,"b":[2]}');
      await expect(panel.getByLabel('Length')).toHaveText('15 bytes');
      await panel.getByLabel('JSON').check();
      await expect(value).toHaveText('{\n  "a": 1,\n  "b": [\n    2\n  ]\n}');
      await panel.getByLabel('Hex').check();
      await expect(value).toHaveText('00000000  7b 22 61 22 3a 31 2c 22 62 22 3a 5b 32 5d 7d     {"a":1,"b":[2]}');
      await noSidewaysScroll(page);
      expect(errors).toEqual([]);
    });
  });
}
