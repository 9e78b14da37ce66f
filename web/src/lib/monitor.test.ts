import { describe, expect, it } from 'vitest';
import { appendBounded, globToRegExp, matches, MonitorFeed, unquote, type MonitorFilter } from './monitor.svelte';
import type { MonitorEventView, MonitorView } from './api-types';

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
    }, { intervalMs: 60_000 });
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

/** Lets pending promises and zero-delay timers run. */
const settle = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/** A stream the test drives: each connection is one entry of `conns`. */
function fakeStream() {
  const conns: { send: (v: MonitorView) => void; open: () => void; end: () => void; fail: (e: Error) => void; signal: AbortSignal }[] = [];
  const stream = (onView: (v: MonitorView) => void, signal: AbortSignal, onOpen: () => void) =>
    new Promise<void>((resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason));
      conns.push({ send: onView, open: onOpen, end: resolve, fail: reject, signal });
    });
  return { conns, stream };
}

const view = (...events: MonitorEventView[]): MonitorView => ({ events, last_seq: events.length ? events[events.length - 1].seq : 0 });
const names = (f: MonitorFeed) => f.events.map((e) => e.command);

describe('MonitorFeed on a stream', () => {
  it('catches up once when the stream opens, then takes only what the stream brings, in order', async () => {
    const { conns, stream } = fakeStream();
    const asked: number[] = [];
    let answer: (v: MonitorView) => void = () => {};
    const feed = new MonitorFeed(
      {
        poll: (since) => {
          asked.push(since);
          return new Promise<MonitorView>((r) => (answer = r));
        },
        stream,
      },
      { intervalMs: 1 },
    );
    feed.open();
    await settle();
    expect(conns).toHaveLength(1);
    expect(asked).toEqual([]);
    conns[0].open();
    expect(feed.via).toBe('stream');
    expect(asked).toEqual([0]);
    // A batch from the stream before the catch-up answered waits for it; the overlap counts once.
    conns[0].send(view(ev(3, 'set'), ev(4, 'get')));
    expect(names(feed)).toEqual([]);
    answer(view(ev(1, 'old'), ev(2, 'del'), ev(3, 'set')));
    await settle();
    expect(names(feed)).toEqual(['old', 'del', 'set', 'get']);
    conns[0].send(view(ev(5, 'incr')));
    expect(names(feed)).toEqual(['old', 'del', 'set', 'get', 'incr']);
    // No polling while the stream is up.
    await settle(20);
    expect(asked).toEqual([0]);
    feed.close();
    expect(conns[0].signal.aborted).toBe(true);
  });

  it('holds what the stream brings while paused and counts it as missed', async () => {
    const { conns, stream } = fakeStream();
    const feed = new MonitorFeed({ poll: async (since) => ({ events: [], last_seq: since }), stream });
    feed.open();
    await settle();
    conns[0].open();
    await settle();
    conns[0].send(view(ev(1, 'get')));
    feed.pause();
    conns[0].send(view(ev(2, 'set'), ev(3, 'set')));
    expect(names(feed)).toEqual(['get']);
    expect(feed.missed).toBe(2);
    feed.resume();
    expect(names(feed)).toEqual(['get', 'set', 'set']);
    expect(feed.missed).toBe(0);
    feed.close();
  });

  it('reconnects when the stream drops and catches up from the last command it took', async () => {
    const { conns, stream } = fakeStream();
    const asked: number[] = [];
    const feed = new MonitorFeed(
      {
        poll: async (since) => {
          asked.push(since);
          return since === 0 ? view(ev(1, 'old')) : view(ev(2, 'while-away'));
        },
        stream,
      },
      { initialBackoffMs: 5, intervalMs: 1 },
    );
    feed.open();
    await settle();
    conns[0].open();
    await settle();
    conns[0].end();
    await settle();
    expect(feed.via).toBeNull();
    expect(feed.error).toMatch(/ended.*Reconnecting/);
    await settle(20);
    expect(conns).toHaveLength(2);
    conns[1].open();
    await settle();
    expect(feed.error).toBeNull();
    expect(feed.via).toBe('stream');
    expect(asked).toEqual([0, 1]);
    expect(names(feed)).toEqual(['old', 'while-away']);
    feed.close();
  });

  it('polls only after the stream fails to open several times in a row', async () => {
    const { conns, stream } = fakeStream();
    const asked: number[] = [];
    const feed = new MonitorFeed(
      {
        poll: async (since) => {
          asked.push(since);
          return since === 0 ? view(ev(1, 'get')) : { events: [], last_seq: since };
        },
        stream,
      },
      { initialBackoffMs: 1, intervalMs: 5, streamAttempts: 2 },
    );
    feed.open();
    await settle();
    conns[0].fail(new Error('HTTP 502'));
    await settle();
    expect(feed.error).toMatch(/502.*Reconnecting/);
    expect(asked).toEqual([]);
    await settle(10);
    conns[1].fail(new Error('HTTP 502'));
    await settle(30);
    expect(feed.via).toBe('poll');
    expect(feed.error).toBeNull();
    expect(names(feed)).toEqual(['get']);
    expect(asked.length).toBeGreaterThan(2);
    expect(conns).toHaveLength(2);
    feed.close();
  });
});
