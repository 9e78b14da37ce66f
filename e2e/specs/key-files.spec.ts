// The Keys page's export and import, on both backends: the keys a pattern selects are exported
// to a file (JSON, then binary) that the browser downloads, deleted, and imported back from
// that file with a confirmation and a per-key report; values and TTLs come back. Ticking keys
// in the results exports those alone.

import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

async function search(page: Page, pattern: string) {
  await page.getByLabel('Pattern').fill(pattern);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
}

for (const target of TARGETS) {
  test.describe(target.name, () => {
    for (const format of ['JSON', 'Binary'] as const) {
      test(`selected keys go to a ${format} file and come back from it`, async ({ page, redis }) => {
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await target.write(page, redis, [
          ['SET', 'move:s', 'hello'],
          ['HSET', 'move:h', 'name', 'ann'],
          ['SET', 'move:t', 'soon', 'EX', '300'],
          ['SET', 'stay', 'here'],
        ]);
        await target.open(page, 'Keys');
        await search(page, 'move:*');
        await page.getByRole('button', { name: 'Export / import' }).click();
        const card = page.getByRole('region', { name: 'Export and import' });
        await card.getByRole('radio', { name: format }).check();
        const downloading = page.waitForEvent('download');
        await card.getByRole('button', { name: 'Export…' }).click();
        const download = await downloading;
        const name = download.suggestedFilename();
        expect(name).toMatch(format === 'JSON' ? /^vitrine-db0-\d+\.json$/ : /^vitrine-db0-\d+\.vtrkeys$/);
        const file = await readFile((await download.path())!);
        if (format === 'JSON') expect(JSON.parse(file.toString('utf8')).keys).toHaveLength(3);
        else expect(file.subarray(0, 8).toString('latin1')).toBe('VTRKEYS1');
        await expect(card.getByRole('status', { name: 'Export result' })).toHaveText(`Exported 3 keys to ${name}.`);

        await target.write(page, redis, [['DEL', 'move:s', 'move:h', 'move:t']], 'Keys');
        await search(page, 'move:*');
        await expect(page.getByText('No keys match')).toBeVisible();
        // The playground came back from its console to a fresh page; the server's stayed open.
        if (!(await card.isVisible())) await page.getByRole('button', { name: 'Export / import' }).click();
        await card.getByLabel('Key file').setInputFiles({ name, mimeType: 'application/octet-stream', buffer: file });
        await card.getByLabel('If a key exists').selectOption('fail');
        await card.getByRole('button', { name: 'Import…' }).click();
        const dialog = page.getByRole('alertdialog', { name: 'Import keys?' });
        await expect(dialog).toContainText(`Import ${name}`);
        await dialog.getByRole('button', { name: 'Import keys' }).click();
        await expect(card.getByRole('status', { name: 'Import result' })).toHaveText('Imported into db0: 3 restored, 0 skipped, 0 errors.');
        await expect(card.getByRole('table', { name: 'Imported keys' }).getByRole('row')).toHaveCount(4);
        // The list was searched again: the keys are back.
        await expect(page.getByRole('button', { name: /move:h/ }).first()).toBeVisible();

        expect(await target.read(page, redis, ['GET', 'move:s'], 'Keys')).toBe('"hello"');
        expect(await target.read(page, redis, ['HGET', 'move:h', 'name'], 'Keys')).toBe('"ann"');
        const ttl = Number((await target.read(page, redis, ['TTL', 'move:t'], 'Keys')).replace('(integer) ', ''));
        expect(ttl).toBeGreaterThan(250);
        expect(errors).toEqual([]);
      });
    }

    test('only the ticked keys are exported when some are ticked', async ({ page, redis }) => {
      await target.write(page, redis, [
        ['SET', 'pick:a', '1'],
        ['SET', 'pick:b', '2'],
        ['SET', 'pick:c', '3'],
      ]);
      await target.open(page, 'Keys');
      await search(page, 'pick:*');
      await page.getByRole('button', { name: 'Export / import' }).click();
      const card = page.getByRole('region', { name: 'Export and import' });
      await page.getByRole('checkbox', { name: 'Export pick:a' }).check();
      await page.getByRole('checkbox', { name: 'Export pick:c' }).check();
      await expect(card.getByLabel('What is exported')).toContainText('Exports the 2 keys ticked');
      const downloading = page.waitForEvent('download');
      await card.getByRole('button', { name: 'Export…' }).click();
      const file = JSON.parse((await readFile((await (await downloading).path())!)).toString('utf8'));
      expect(file.keys.map((k: { key: string }) => k.key).sort()).toEqual(['pick:a', 'pick:c']);
      await card.getByRole('button', { name: 'Clear the ticks' }).click();
      await expect(card.getByLabel('What is exported')).toContainText('Exports every key matching');
      await expect(page.getByRole('checkbox', { name: 'Export pick:a' })).not.toBeChecked();
    });
  });
}
