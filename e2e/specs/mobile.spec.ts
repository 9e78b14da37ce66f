// Phones: every page at 390x844 (a phone in portrait), measured once it has data in it (long
// key names, evictions under a 1 MiB limit, finished benchmark runs). The page itself never
// scrolls sideways, long names stay on one line, and on Keys an opened key shows up where the
// person is looking. Each page is kept as a full-page screenshot, light and dark, in
// test-results/ (attached to the test).

import type { Locator, Page, TestInfo } from '@playwright/test';
import { test, expect } from '../support/test';
import type { RespClient } from '../support/resp';
import { statValue } from '../support/page';

const PHONE = { width: 390, height: 844 };

test.use({ viewport: PHONE, serverArgs: ['--maxmemory', '1mb', '--maxmemory-policy', 'allkeys-lru'] });

/** A long, realistic key name: no spaces, so nothing but the layout decides where it breaks. */
const longKey = (i: number) => `customer:acme-international-holdings:eu-west-1:user-${String(i).padStart(8, '0')}:preferences`;
const fillKey = (i: number) => `cart:acme-international-holdings:eu-west-1:session-${String(i).padStart(8, '0')}:items`;

/**
 * About 3 MiB of carts into the 1 MiB cache (so hundreds are evicted), then a few long-named
 * keys, written last so LRU keeps them.
 */
async function seed(redis: RespClient): Promise<void> {
  const value = 'v'.repeat(1024);
  for (let batch = 0; batch < 6; batch++) {
    await redis.pipeline(Array.from({ length: 500 }, (_, i) => ['SET', fillKey(batch * 500 + i), value]));
  }
  await redis.pipeline(
    Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? ['SET', longKey(i), `value ${i}`, 'EX', '3600'] : ['SET', longKey(i), `value ${i}`])),
  );
  expect(await redis.command('GET', longKey(0))).toBe('value 0');
}

/** Opens a page from the menu in the top bar, as a person on a phone does. */
async function openFromMenu(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}

interface Width {
  page: number;
  viewport: number;
  /** The outermost elements that reach past the right edge (for the failure message). */
  culprits: string[];
}

function measure(page: Page): Promise<Width> {
  return page.evaluate(() => {
    const vw = window.innerWidth;
    const past = (el: Element) => el.getBoundingClientRect().right > vw + 0.5;
    const style = (el: Element) => getComputedStyle(el);
    /** Whether a box that scrolls or clips, within the screen, holds `el` in (then it is not the page's problem). */
    const heldIn = (el: Element) => {
      // An absolutely positioned box is clipped only from its containing block up.
      let outOfFlow = style(el).position === 'absolute';
      if (style(el).position === 'fixed') return false;
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const s = style(p);
        if (outOfFlow && s.position === 'static') continue;
        outOfFlow = s.position === 'absolute';
        if (s.position === 'fixed') return false;
        if (['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX) && !past(p)) return true;
      }
      return false;
    };
    const culprits: string[] = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (el.getBoundingClientRect().width === 0 || !past(el) || heldIn(el)) continue;
      // Only the outermost: its parent is within the screen.
      if (el.parentElement && el.parentElement !== document.body && past(el.parentElement) && !heldIn(el.parentElement)) continue;
      const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      culprits.push(`${el.tagName.toLowerCase()}${cls} (right edge ${Math.round(el.getBoundingClientRect().right)} px)`);
    }
    return { page: document.documentElement.scrollWidth, viewport: vw, culprits: culprits.slice(0, 8) };
  });
}

/**
 * Measures the page's width, keeps a screenshot in light and in dark (the whole page, or with
 * `screen` what is on the screen: a sheet is fixed to it), then asserts the page does not
 * scroll sideways. The width is noted on the test (a "width" annotation).
 */
async function expectFitsPhone(page: Page, testInfo: TestInfo, name: string, { screen = false } = {}): Promise<void> {
  // The width is measured in both themes: fonts and charts are redrawn when it changes.
  const widths: Width[] = [];
  // From the top, so the sticky top bar is not pictured in the middle of the page.
  if (!screen) await page.evaluate(() => window.scrollTo(0, 0));
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    widths.push(await measure(page));
    const file = testInfo.outputPath(`${name}-390-${scheme}.png`);
    await page.screenshot({ path: file, fullPage: !screen, animations: 'disabled' });
    await testInfo.attach(`${name}-390-${scheme}`, { path: file, contentType: 'image/png' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  const widest = widths.reduce((a, b) => (b.page > a.page ? b : a));
  testInfo.annotations.push({ type: 'width', description: `${name}: page ${widest.page} px wide in a ${widest.viewport} px viewport` });
  expect(
    widest.page,
    `${name} scrolls sideways (${widest.page} px in ${widest.viewport} px); sticking out: ${widest.culprits.join(', ') || 'nothing found'}`,
  ).toBeLessThanOrEqual(widest.viewport);
}

/**
 * The name `full`, shown in `scope` (a cell, a button), keeps to one line, cut with an
 * ellipsis if it must be, and has the whole of it in its tooltip and its text.
 */
async function expectOneLine(scope: Locator, full: string): Promise<void> {
  // Lines of text: the boxes of its text, grouped by where they stand vertically. Polled: a
  // live table (Evictions) may swap the row for a new one between finding it and measuring,
  // and a row not yet laid out has no boxes (0 lines).
  const lineCount = () =>
    scope.evaluate((el) => {
      const tops: number[] = [];
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) if (r.width > 0) tops.push(r.top + r.height / 2);
      }
      tops.sort((a, b) => a - b);
      return tops.filter((t, i) => i === 0 || t - tops[i - 1] > 4).length;
    });
  await expect.poll(lineCount, { message: `"${full}" is on one line` }).toBe(1);
  await expect(scope.getByTitle(full, { exact: true })).toHaveText(full);
}

/** Which edges of the element's box lie off the phone's screen (none: it is all on screen). */
async function offScreen(el: Locator): Promise<string[]> {
  const box = await el.boundingBox();
  if (!box) return ['not laid out'];
  const { x, y, width, height } = box;
  const px = (n: number) => `${Math.round(n)} px`;
  return [
    x < 0 ? `left edge at ${px(x)}` : '',
    y < 0 ? `top edge at ${px(y)}` : '',
    x + width > PHONE.width ? `right edge at ${px(x + width)} (screen ${PHONE.width} px wide)` : '',
    y + height > PHONE.height ? `top at ${px(y)}, bottom edge at ${px(y + height)} (screen ${PHONE.height} px high)` : '',
  ].filter(Boolean);
}

/** The element lies inside the phone's screen (0..390 across, 0..844 down), and is visible. */
async function expectOnScreen(el: Locator): Promise<void> {
  await expect(el).toBeVisible();
  await expect.poll(() => offScreen(el), { message: 'the box lies within the 390x844 screen' }).toEqual([]);
}

test('Overview fits a phone', async ({ page, redis }, testInfo) => {
  await seed(redis);
  await page.goto('/');
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  await expect(page.getByRole('img', { name: /^Memory used against maxmemory/ })).toBeVisible();
  // Evictions counted, and a few seconds of samples so the charts have lines.
  await expect(statValue(page, 'Headline numbers', 'Evictions/sec').locator('xpath=following-sibling::dd[1]')).toHaveText(
    /^[1-9][\d.,]*k? in all/,
  );
  await page.waitForTimeout(2500);
  await expectFitsPhone(page, testInfo, 'overview');

  // The menu opens in the top bar and stays within the screen.
  await page.getByRole('button', { name: 'Menu' }).click();
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Config', exact: true })).toBeVisible();
  await expectFitsPhone(page, testInfo, 'menu');
});

test('Evictions fits a phone, with key names on one line', async ({ page, redis }, testInfo) => {
  await page.goto('/');
  await openFromMenu(page, 'Evictions');
  await seed(redis);
  const table = page.getByRole('table', { name: 'Recent evictions' });
  const evicted = table.getByRole('row').filter({ has: page.getByText('evicted', { exact: true }) });
  await expect(evicted.first()).toBeVisible({ timeout: 10_000 });

  await expectFitsPhone(page, testInfo, 'evictions');

  const first = evicted.first().getByRole('cell').first();
  await expect(first).toHaveText(/^cart:acme-international-holdings:eu-west-1:session-\d{8}:items$/);
  // The list is live: pin the cell by the key it names, not by its place in the list.
  const full = (await first.textContent()) ?? '';
  const name = table.getByTitle(full, { exact: true }).first().locator('xpath=ancestor-or-self::td[1]');
  await expectOneLine(name, full);
});

test('Keys fits a phone, and a key tapped far down the list opens on screen', async ({ page, redis }, testInfo) => {
  await seed(redis);
  await page.goto('/');
  await openFromMenu(page, 'Keys');
  const table = page.getByRole('table', { name: 'Keys' });
  const buttons = table.getByRole('button');
  await expect.poll(() => buttons.count()).toBeGreaterThanOrEqual(100);

  // Tap the last key of the first page, thousands of pixels down: the key opens on screen.
  const far = buttons.last();
  const farName = (await far.textContent()) ?? '';
  await far.scrollIntoViewIfNeeded();
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(2 * 844);
  await far.click();
  const farPanel = page.getByRole('region', { name: farName, exact: true });
  await expect(farPanel.getByLabel('Stored value')).toHaveText(/^v+$/);
  await expectOnScreen(farPanel);
  // Focus moves into it, so a screen reader and a keyboard follow.
  await expect(farPanel.getByRole('button', { name: 'Close' })).toBeFocused();
  await expectFitsPhone(page, testInfo, 'keys-open', { screen: true });

  // Escape closes it and gives focus back to the key that opened it, where it was.
  await page.keyboard.press('Escape');
  await expect(farPanel).toBeHidden();
  await expect(far).toBeFocused();
  await expect(far).toBeInViewport();

  // Long names keep to one line.
  await page.getByLabel('Pattern').fill('customer:*');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const key = table.getByRole('button', { name: longKey(6), exact: true });
  await expect(key).toBeVisible();
  await expect(buttons).toHaveCount(12);
  await expectFitsPhone(page, testInfo, 'keys');
  await expectOneLine(key, longKey(6));

  // The Close button closes it too; a key with a TTL shows its countdown.
  await table.getByRole('button', { name: longKey(3), exact: true }).click();
  const panel = page.getByRole('region', { name: longKey(3) });
  await expectOnScreen(panel);
  await expect(panel.getByText(/^(59m \d\ds|1h 00m)$/)).toBeVisible();
  await panel.getByRole('button', { name: 'Close' }).click();
  await expect(panel).toBeHidden();

  // Deleting from the sheet asks first (a dialog over the sheet), then closes it.
  await table.getByRole('button', { name: longKey(9), exact: true }).click();
  const doomed = page.getByRole('region', { name: longKey(9) });
  await doomed.getByRole('button', { name: 'Delete key' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete this key?' });
  await expectOnScreen(confirm);
  await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(doomed).toBeHidden();
  await expect(table.getByRole('button', { name: longKey(9), exact: true })).toHaveCount(0);
  expect(await redis.command('EXISTS', longKey(9))).toBe(0);
});

test('Benchmarks fits a phone, with finished runs', async ({ page }, testInfo) => {
  await page.goto('/');
  await openFromMenu(page, 'Benchmarks');
  // Two short, light runs (two shared cores), so the comparison chart shows too; the second
  // long enough to draw a line.
  for (const run of [1, 2]) {
    await page.getByLabel('Clients', { exact: true }).fill('2');
    await page.getByLabel('Pipeline', { exact: true }).fill('4');
    await page.getByLabel('SET:GET ratio').fill('1:1');
    await page.getByLabel('Value size (bytes)').fill('32');
    await page.getByLabel('Key space').fill('1000');
    await page.getByLabel('Duration (seconds)').fill(String(run));
    await page.getByRole('button', { name: 'Start benchmark' }).click();
    await expect(page.getByRole('heading', { name: `Run #${run}` })).toBeVisible();
    await expect(page.getByLabel('Results', { exact: true })).toBeVisible({ timeout: 20_000 });
    await expect(page.getByRole('button', { name: 'Start benchmark' })).toBeEnabled();
  }
  const history = page.getByRole('table', { name: 'Benchmark history' });
  await expect(history.getByRole('row').filter({ hasText: 'completed' })).toHaveCount(2);
  await expect(page.getByRole('list', { name: 'Ops/sec by run' })).toBeVisible();
  await expectFitsPhone(page, testInfo, 'benchmarks');
});

test('Console fits a phone', async ({ page, redis }, testInfo) => {
  await seed(redis);
  await page.goto('/');
  await openFromMenu(page, 'Console');
  const command = page.getByLabel('Command', { exact: true });
  const output = page.getByRole('log', { name: 'Console output' });
  const lines = [`GET ${longKey(1)}`, 'SCAN 0 MATCH customer:* COUNT 10000', 'INFO keyspace'];
  for (const [i, line] of lines.entries()) {
    await command.fill(line);
    await command.press('Enter');
    await expect(output.locator('pre')).toHaveCount(i + 1); // its reply is in
  }
  await expect(output.locator('pre').first()).toHaveText('"value 1"');
  await expect(output.locator('pre').nth(1)).toContainText(`"${longKey(11)}"`);
  await expect(output.locator('pre').last()).toContainText('db0:keys=');
  await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeInViewport();
  await expectFitsPhone(page, testInfo, 'console');
});

test('Playground fits a phone, its shell and its eviction table too', async ({ page }, testInfo) => {
  await page.goto('/');
  await openFromMenu(page, 'Playground');
  const command = page.getByLabel('Command', { exact: true });
  await expect(command).toBeEnabled(); // the wasm engine has loaded
  for (const line of ['CONFIG SET maxmemory 64kb', 'CONFIG SET maxmemory-policy allkeys-lru', `SET ${longKey(1)} "a value" EX 600`]) {
    await command.fill(line);
    await command.press('Enter');
  }
  await page.getByRole('button', { name: 'Fill', exact: true }).click();
  await expect(page.getByRole('log', { name: 'Console output' }).locator('pre').last()).toContainText('wrote 2000 keys');
  await expectFitsPhone(page, testInfo, 'playground');

  await openFromMenu(page, 'Evictions');
  const evicted = page.getByRole('table', { name: 'Recent evictions' }).getByRole('row').filter({ has: page.getByText('evicted', { exact: true }) });
  await expect(evicted.first()).toBeVisible();
  await expectFitsPhone(page, testInfo, 'playground-evictions');
});

test('Config fits a phone', async ({ page }, testInfo) => {
  await page.goto('/');
  await openFromMenu(page, 'Config');
  await expect(page.getByRole('table', { name: 'Memory and eviction settings' })).toBeVisible();
  await expect(page.getByLabel('maxmemory-policy')).toHaveValue('allkeys-lru');
  await expectFitsPhone(page, testInfo, 'config');
});

test('Slow log and Latency fit a phone, with long commands logged', async ({ page, redis }, testInfo) => {
  await redis.command('CONFIG', 'SET', 'slowlog-log-slower-than', '0');
  await seed(redis);
  await page.goto('/');
  await openFromMenu(page, 'Slow log');
  const row = page.getByRole('table', { name: 'Slow log entries' }).getByRole('row').filter({ hasText: longKey(11) });
  await expect(row.first()).toBeVisible();
  await expectFitsPhone(page, testInfo, 'slowlog');

  await openFromMenu(page, 'Latency');
  await page.getByRole('button', { name: 'set', exact: true }).click();
  await expect(page.getByRole('list', { name: 'Calls by latency of set' })).toBeVisible();
  await expect(page.getByRole('img', { name: /^Latency percentiles of set over time/ })).toBeVisible();
  await expectFitsPhone(page, testInfo, 'latency');
});

test('Hot keys and Compatibility fit a phone, with long key names and long commands', async ({ page, redis }, testInfo) => {
  await seed(redis);
  await redis.pipeline([['MGET', ...Array.from({ length: 300 }, () => longKey(4))]]);
  await redis.pipeline([
    ['CLIENT', 'SETINFO', 'LIB-NAME', 'a-client-library-with-a-long-name'],
    ['CLIENT', 'SETINFO', 'LIB-VER', '12.34.56-beta.7'],
    ['FT.SEARCH', longKey(1), '@title:{a very long query with many words}'],
    ['SET', longKey(2), 'v', 'NX', 'SOMEVERYLONGOPTIONNAMEWITHOUTSPACES'],
  ]);
  await page.goto('/');
  await openFromMenu(page, 'Hot keys');
  const hot = page.getByRole('table', { name: 'Hot keys' }).getByRole('row').nth(1);
  await expect(hot).toContainText(longKey(4), { timeout: 10_000 });
  await expectOneLine(hot.getByRole('cell').nth(1), longKey(4));
  await expectFitsPhone(page, testInfo, 'hotkeys');

  await openFromMenu(page, 'Compatibility');
  await expect(page.getByRole('table', { name: 'Refused commands' }).getByRole('row').filter({ hasText: 'FT.SEARCH' })).toBeVisible();
  await expectFitsPhone(page, testInfo, 'compat');
});
