import { test, expect } from '../support/test';
import { openPage } from '../support/page';

test('a benchmark started from the page finishes and shows up in history', async ({ page }) => {
  await page.goto('/');
  await openPage(page, 'Benchmarks');
  const history = page.getByRole('table', { name: 'Benchmark history' });
  await expect(history.getByText('No runs yet.')).toBeVisible();

  // Short and light: the machine has two cores, shared with the browser.
  await page.getByLabel('Clients', { exact: true }).fill('4');
  await page.getByLabel('Pipeline', { exact: true }).fill('4');
  await page.getByLabel('SET:GET ratio').fill('1:1');
  await page.getByLabel('Value size (bytes)').fill('32');
  await page.getByLabel('Key space').fill('1000');
  await page.getByLabel('Duration (seconds)').fill('2');
  await page.getByRole('button', { name: 'Start benchmark' }).click();

  // While it runs: a progress bar and a way to cancel.
  await expect(page.getByRole('progressbar', { name: 'Progress' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Cancel run' })).toBeVisible();

  // Done: results with percentiles, and a completed row in history.
  const results = page.getByLabel('Results', { exact: true });
  await expect(results).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole('progressbar', { name: 'Progress' })).toBeHidden();
  for (const term of ['Ops/sec', 'p50', 'p90', 'p99', 'p99.9', 'Max']) {
    await expect(results.getByRole('term').filter({ hasText: new RegExp(`^${term.replace('.', '\\.')}$`) })).toBeVisible();
  }
  const ops = results.locator('div').filter({ has: page.getByRole('term').filter({ hasText: /^Ops\/sec$/ }) }).getByRole('definition');
  await expect(ops).toHaveText(/^[1-9][\d.]*[kM]?$/);

  const row = history.getByRole('row').filter({ hasText: '#1' });
  await expect(row).toContainText('completed');
  await expect(row).toContainText('4 clients · pipeline 4 · 1:1 · 32 B');
  await expect(row.getByRole('cell').nth(4)).toHaveText(/^[1-9][\d.]*[kM]?$/);
  await expect(page.getByRole('button', { name: 'Start benchmark' })).toBeEnabled();
});
