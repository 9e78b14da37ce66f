import { describe, expect, it } from 'vitest';
import { appendBounded, globToRegExp, matches, MonitorFeed, unquote, type MonitorFilter } from './monitor.svelte';
import type { MonitorEventView } from './api-types';

const ev = (seq: number, command: string, args: string[] = [], addr = '127.0.0.1:5000', name: string | null = null): MonitorEventView => ({
  seq,
  time_us: seq * 1000,
  db: 0,
  client_id: 3,
  addr,
  client_name: name,
  command,
  args,
});
const none: MonitorFilter = { commands: '', key: '', client: '' };

describe('monitor filters', () => {
  it('unquotes and globs as Redis does', () => {
    expect(unquote('"a\\"b"')).toBe('a"b');
    expect(globToRegExp('user:*').test('user:1')).toBe(true);
    expect(globToRegExp('user:?').test('user:10')).toBe(false);
    expect(globToRegExp('h[ae]llo').test('hello')).toBe(true);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
  });

  it('filters by command, key pattern and client', () => {
    const e = ev(1, 'set', ['"user:1"', '"v"'], '10.0.0.1:4', 'worker');
    expect(matches(e, none)).toBe(true);
    expect(matches(e, { ...none, commands: 'GET, set' })).toBe(true);
    expect(matches(e, { ...none, commands: 'get' })).toBe(false);
    expect(matches(ev(2, 'client|list'), { ...none, commands: 'client' })).toBe(true);
    expect(matches(e, { ...none, key: 'user:*' })).toBe(true);
    expect(matches(e, { ...none, key: 'order:*' })).toBe(false);
    expect(matches(ev(3, 'ping'), { ...none, key: '*' })).toBe(false);
    expect(matches(e, { ...none, client: 'WORK' })).toBe(true);
    expect(matches(e, { ...none, client: '10.0.0.1' })).toBe(true);
    expect(matches(e, { ...none, client: 'other' })).toBe(false);
  });

  it('keeps a bounded buffer, newest last', () => {
    expect(appendBounded([1, 2, 3], [4, 5], 4)).toEqual([2, 3, 4, 5]);
    expect(appendBounded([], [1], 4)).toEqual([1]);
  });
});

describe('MonitorFeed', () => {
  it('shows what the ring holds, what comes next, and holds it while paused', async () => {
    const batches = [
      { events: [ev(1, 'old')], last_seq: 1 },
      { events: [ev(2, 'get')], last_seq: 2 },
      { events: [ev(3, 'set')], last_seq: 3 },
      { events: [], last_seq: 3 },
    ];
    const asked: number[] = [];
    const feed = new MonitorFeed(async (since) => {
      asked.push(since);
      return batches.shift() ?? { events: [], last_seq: since };
    }, 60_000);
    feed.open();
    await new Promise((r) => setTimeout(r, 0));
    expect(feed.events.map((e) => e.command)).toEqual(['old']);
    feed.clear();
    await feed.poll();
    expect(feed.events.map((e) => e.command)).toEqual(['get']);
    feed.pause();
    await feed.poll();
    expect(feed.events.map((e) => e.command)).toEqual(['get']);
    expect(feed.missed).toBe(1);
    feed.resume();
    expect(feed.events.map((e) => e.command)).toEqual(['get', 'set']);
    await feed.poll();
    expect(asked).toEqual([0, 1, 2, 3]);
    feed.close();
  });
});
