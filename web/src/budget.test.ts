// The size budget: the built app's JavaScript, gzipped, stays under 150 KB (WebAssembly is not
// counted). `npm test` builds first, so this measures the bundle that ships.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '..', 'dist');
export const BUDGET_BYTES = 150 * 1024;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe.skipIf(!existsSync(DIST))('bundle budget (web/dist)', () => {
  it('keeps gzipped JS under 150 KB', () => {
    const js = files(DIST).filter((f) => /\.(m?js)$/.test(f));
    expect(js.length, 'no JavaScript in web/dist: run `npm run build`').toBeGreaterThan(0);
    const sizes = js.map((f) => ({ file: relative(DIST, f), gzip: gzipSync(readFileSync(f)).length }));
    const total = sizes.reduce((n, s) => n + s.gzip, 0);
    const report = sizes.map((s) => `${s.file}: ${(s.gzip / 1024).toFixed(1)} KB`).join(', ');
    expect(total, `gzipped JS is ${(total / 1024).toFixed(1)} KB, over the ${BUDGET_BYTES / 1024} KB budget (${report})`).toBeLessThan(BUDGET_BYTES);
  });

  it('serves a page that loads its assets from absolute paths (deep links fall back to index.html)', () => {
    const html = readFileSync(join(DIST, 'index.html'), 'utf8');
    const srcs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(srcs.length).toBeGreaterThan(0);
    for (const s of srcs) expect(s.startsWith('/'), `${s} must be absolute`).toBe(true);
  });
});
