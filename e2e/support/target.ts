// The two backends the dashboard's pages run on, as one thing a spec can drive:
//
// - `server`: the dashboard at /, over the admin API of the test's vitrine; writes "from
//   outside" come from a RESP client, as an application's would.
// - `playground`: the same pages under /playground, over the engine compiled to WebAssembly in
//   the tab; writes from outside the page come through the playground's Console page (the tab
//   is the only client its engine has), and the spec comes back to the page it was on.
//
//     for (const target of TARGETS) test.describe(target.name, () => { ... target.open(...) });

import type { Page } from '@playwright/test';
import { expect } from '@playwright/test';
import { openPage } from './page';
import { RedisError, type Reply, type RespClient } from './resp';

export interface Target {
  name: 'server' | 'playground';
  /** Opens the shell (unless the tab is in it), then the page `name` from the sidebar. */
  open(page: Page, name: string): Promise<void>;
  /**
   * Runs commands from outside the page under test; `back` is the page to return to (the
   * playground goes to its console for this).
   */
  write(page: Page, redis: RespClient, commands: string[][], back?: string): Promise<void>;
  /** One command's reply as redis-cli prints it ("\"bobby\"", "(integer) 1", "(nil)"). */
  read(page: Page, redis: RespClient, argv: string[], back?: string): Promise<string>;
}

/** An argument as typed into redis-cli: plain words as they are, the rest double-quoted. */
export function quote(arg: string): string {
  return /^[\w:.\-*]+$/.test(arg) ? arg : `"${arg.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** A RESP2 reply as redis-cli prints it on a terminal (strings, integers, nil, flat arrays). */
export function cliText(r: Reply): string {
  if (r instanceof RedisError) return `(error) ${r.message}`;
  if (r === null) return '(nil)';
  if (typeof r === 'number') return `(integer) ${r}`;
  if (typeof r === 'string') return JSON.stringify(r);
  if (r.length === 0) return '(empty array)';
  return r.map((x, i) => `${i + 1}) ${cliText(x)}`).join('\n');
}

const server: Target = {
  name: 'server',
  async open(page, name) {
    await page.goto('/');
    if (name !== 'Overview') await openPage(page, name);
    else await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  },
  async write(_page, redis, commands) {
    const replies = await redis.pipeline(commands);
    const failed = replies.find((r) => r instanceof RedisError);
    if (failed) throw failed;
  },
  async read(_page, redis, argv) {
    return cliText(await redis.command(...argv));
  },
};

/** Types `lines` into the playground's console, each after the previous reply is in. */
async function typeLines(page: Page, lines: string[]): Promise<string> {
  await enterPlayground(page);
  await openPage(page, 'Console');
  const command = page.getByLabel('Command', { exact: true });
  const output = page.getByRole('log', { name: 'Console output' }).locator('pre');
  let text = '';
  for (const line of lines) {
    const before = await output.count();
    await command.fill(line);
    await command.press('Enter');
    await expect(output).toHaveCount(before + 1, { timeout: 15_000 });
    text = await output.last().innerText();
  }
  return text;
}

/** Opens the playground unless the tab is in it already (its engine lives in the tab). */
async function enterPlayground(page: Page): Promise<void> {
  if (new URL(page.url(), 'http://x').pathname.startsWith('/playground')) return;
  // A fresh tab has an empty session: nothing is restored.
  await page.goto('/playground');
  await page.getByRole('heading', { level: 1, name: 'Playground' }).waitFor();
}

const playground: Target = {
  name: 'playground',
  async open(page, name) {
    await enterPlayground(page);
    await openPage(page, name);
  },
  async write(page, _redis, commands, back) {
    const text = await typeLines(page, commands.map((argv) => argv.map(quote).join(' ')));
    if (text.startsWith('(error)')) throw new Error(text);
    if (back) await openPage(page, back);
  },
  async read(page, _redis, argv, back) {
    const text = await typeLines(page, [argv.map(quote).join(' ')]);
    if (back) await openPage(page, back);
    return text;
  },
};

export const TARGETS: Target[] = [server, playground];
