import { test, expect } from '../support/test';

// The playground's throughput in Chromium: SET and GET through the wasm engine (the same
// `Playground` class the page uses), reported as an annotation, not asserted.

test('playground throughput (ops/sec for SET/GET, reported)', async ({ page }) => {
  await page.goto('/playground');
  await expect(page.getByLabel('Command', { exact: true })).toBeEnabled();
  const result = await page.evaluate(async () => {
    const urls = performance.getEntriesByType('resource').map((e) => e.name);
    const glue = urls.find((u) => /\/vitrine_wasm-[\w-]+\.js$/.test(u));
    const wasm = urls.find((u) => /\.wasm$/.test(u));
    if (!glue || !wasm) throw new Error(`wasm assets not found in ${urls.join(', ')}`);
    type Pg = { call(argv: string[], now: number): string; console(line: string, now: number): string; free(): void };
    const mod = (await import(glue)) as { default(o: { module_or_path: string }): Promise<unknown>; Playground: new (now: number, seed: number) => Pg };
    await mod.default({ module_or_path: wasm });
    const pg = new mod.Playground(Date.now(), 1);
    const measure = (fn: (i: number) => void, ms = 600) => {
      let n = 0;
      const t0 = performance.now();
      let t = t0;
      while (t - t0 < ms) {
        for (let j = 0; j < 500; j++) fn(n++);
        t = performance.now();
      }
      return Math.round(n / ((t - t0) / 1000));
    };
    const now = Date.now();
    const set = measure((i) => pg.call(['SET', `key:${i % 10000}`, 'value-0123456789'], now));
    const get = measure((i) => pg.call(['GET', `key:${i % 10000}`], now));
    const line = measure((i) => pg.console(`SET key:${i % 10000} "value 0123456789"`, now));
    pg.free();
    return { set, get, line };
  });
  const text = `SET ${result.set.toLocaleString('en-US')} ops/s, GET ${result.get.toLocaleString('en-US')} ops/s, SET via console (parse + redis-cli text) ${result.line.toLocaleString('en-US')} ops/s`;
  test.info().annotations.push({ type: 'throughput', description: text });
  console.log(`playground throughput in Chromium: ${text}`);
  expect(result.set).toBeGreaterThan(0);
});
