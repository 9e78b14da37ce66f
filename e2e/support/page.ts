// Helpers that read the page as a person does: a headline number by its label, sizes as
// the dashboard prints them.

import type { Locator, Page } from '@playwright/test';

/** The value of the headline number labelled `label` inside the <dl> named `group`. */
export function statValue(page: Page, group: string, label: string): Locator {
  return page
    .getByLabel(group, { exact: true })
    .locator('div')
    .filter({ has: page.getByRole('term').filter({ hasText: new RegExp(`^${label}$`) }) })
    .getByRole('definition')
    .first();
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** "1.25 MiB" → 1310720; anything else → NaN. */
export function parseBytes(text: string): number {
  const m = /^\s*(-?[\d.]+)\s*([KMGT]?i?B)\s*$/.exec(text);
  if (!m) return NaN;
  const unit = UNITS.indexOf(m[2]);
  return unit < 0 ? NaN : Number(m[1]) * 1024 ** unit;
}

/** "12,345" → 12345. */
export function parseCount(text: string): number {
  return Number(text.replace(/,/g, '').trim());
}

/** Opens a page of the dashboard from the sidebar, as a person would, and waits for its h1. */
export async function openPage(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}
