import { describe, expect, it } from 'vitest';
import { ROUTES, findRoute, normalizePath } from './route.svelte';

describe('routes', () => {
  it('has one page per heading the specs look for', () => {
    expect(ROUTES.map((r) => r.title)).toEqual(['Overview', 'Evictions', 'Keys', 'Benchmarks', 'Console', 'Playground', 'Config']);
  });

  it('normalizes paths', () => {
    expect(normalizePath('')).toBe('/');
    expect(normalizePath('/index.html')).toBe('/');
    expect(normalizePath('/keys/')).toBe('/keys');
    expect(normalizePath('//keys')).toBe('/keys');
  });

  it('finds pages, and nothing for unknown paths', () => {
    expect(findRoute('/')?.title).toBe('Overview');
    expect(findRoute('/config/')?.title).toBe('Config');
    expect(findRoute('/nope')).toBeNull();
  });
});
