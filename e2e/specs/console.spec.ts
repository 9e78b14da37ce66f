import { test, expect } from '../support/test';
import { TARGETS } from '../support/target';

for (const target of TARGETS) {
  test.describe(target.name, () => {
    test('the console runs commands and formats replies as redis-cli does', async ({ page, redis }) => {
      await target.open(page, 'Console');

      const command = page.getByLabel('Command', { exact: true });
      const output = page.getByRole('log', { name: 'Console output' });
      const run = async (line: string) => {
        await command.fill(line);
        await page.getByRole('button', { name: 'Run', exact: true }).click();
      };

      await run('SET greeting hello');
      await expect(output.locator('pre').last()).toHaveText('OK');

      await run('GET greeting');
      await expect(output.locator('pre').last()).toHaveText('"hello"');

      await run('INCR visits');
      await expect(output.locator('pre').last()).toHaveText('(integer) 1');

      await run('GET nope');
      await expect(output.locator('pre').last()).toHaveText('(nil)');

      await run('INCR greeting');
      await expect(output.locator('pre').last()).toHaveText('(error) ERR value is not an integer or out of range');

      await run('MGET greeting nope');
      await expect(output.locator('pre').last()).toHaveText('1) "hello"\n2) (nil)');

      // A transaction typed line by line works: the console keeps one session.
      await run('MULTI');
      await expect(output.locator('pre').last()).toHaveText('OK');
      await run('INCR visits');
      await expect(output.locator('pre').last()).toHaveText('QUEUED');
      await run('EXEC');
      await expect(output.locator('pre').last()).toHaveText('1) (integer) 2');

      // Enter works too, and the arrow key brings back the last command.
      await command.fill('PING');
      await command.press('Enter');
      await expect(output.locator('pre').last()).toHaveText('PONG');
      await command.press('ArrowUp');
      await expect(command).toHaveValue('PING');

      // Tab completes a command name from the command table, and the hint line shows its syntax.
      await command.fill('INCRB');
      await command.press('Tab');
      await expect(command).toHaveValue(/^INCRBY/);
      await command.fill('set k');
      await expect(page.locator('#console-input-hint')).toHaveText(/^SET key value \[NX \| XX \| IFEQ ifeq-value/);

      // Ctrl+L clears the log.
      await command.press('Control+l');
      await expect(output.locator('pre')).toHaveCount(0);

      // What the console wrote is really in the cache.
      expect(await target.read(page, redis, ['GET', 'greeting'])).toBe('"hello"');
      expect(await target.read(page, redis, ['GET', 'visits'])).toBe('"2"');
    });
  });
}
