import { describe, expect, it } from 'vitest';
import { findRoute, normalizePath, routesFor, within } from './route.svelte';

const server = { bench: { list: async () => [], get: async () => ({}), start: async () => ({}), cancel: async () => ({}) } } as unknown as Parameters<typeof routesFor>[0];
const playground = { playground: { lines: [], restore: () => ({ notice: null, transcript: [] }), reset: () => {} } } as unknown as Parameters<typeof routesFor>[0];

describe('routes', () => {
  it('has one page per heading the specs look for, by what the backend can do', () => {
    expect(routesFor(server).map((r) => r.title)).toEqual([
      'Overview',
      'Evictions',
      'Memory',
      'Keys',
      'Clients',
      'Monitor',
      'Events',
      'Slow log',
      'Latency',
      'Hot keys',
      'Compatibility',
      'Scripts',
      'Benchmarks',
      'Console',
      'Config',
      'Users',
    ]);
    // No benchmarks in the tab; the playground's own page comes first.
    expect(routesFor(playground).map((r) => `${r.path} ${r.title}`)).toEqual([
      '/ Playground',
      '/overview Overview',
      '/evictions Evictions',
      '/memory Memory',
      '/keys Keys',
      '/clients Clients',
      '/monitor Monitor',
      '/events Events',
      '/slowlog Slow log',
      '/latency Latency',
      '/hotkeys Hot keys',
      '/compat Compatibility',
      '/scripts Scripts',
      '/console Console',
      '/config Config',
      '/users Users',
    ]);
  });

  it('normalizes paths', () => {
    expect(normalizePath('')).toBe('/');
    expect(normalizePath('/index.html')).toBe('/');
    expect(normalizePath('/keys/')).toBe('/keys');
    expect(normalizePath('//keys')).toBe('/keys');
  });

  it('finds pages, and nothing for unknown paths', () => {
    const routes = routesFor(server);
    expect(findRoute(routes, '/')?.title).toBe('Overview');
    expect(findRoute(routes, '/config/')?.title).toBe('Config');
    expect(findRoute(routes, '/nope')).toBeNull();
  });

  it('places a shell under its base path', () => {
    expect(within('', '/keys')).toBe('/keys');
    expect(within('/playground', '/playground')).toBe('/');
    expect(within('/playground', '/playground/keys')).toBe('/keys');
    expect(within('/playground', '/playgrounds')).toBeNull();
    expect(within('/playground', '/keys')).toBeNull();
  });
});
