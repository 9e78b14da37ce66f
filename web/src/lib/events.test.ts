import { describe, expect, it } from 'vitest';
import type { KeyspaceEventView, KeyspaceEventsView } from './api-types';
import { EVENTS_BUFFER, EventsFeed, eventMatches, keyText, notificationsOn } from './events.svelte';

const ev = (seq: number, event: string, key: KeyspaceEventView['key'], db = 0): KeyspaceEventView => ({
  seq,
  at_ms: 1_700_000_000_000 + seq,
  db,
  event,
  class: 'g',
  key,
});

describe('events', () => {
  it('matches by event, key pattern and database', () => {
    const e = ev(1, 'set', 'user:1', 2);
    expect(eventMatches(e, { events: '', key: '', db: '' })).toBe(true);
    expect(eventMatches(e, { events: 'del, SET', key: '', db: '' })).toBe(true);
    expect(eventMatches(e, { events: 'del', key: '', db: '' })).toBe(false);
    expect(eventMatches(e, { events: '', key: 'user:*', db: '2' })).toBe(true);
    expect(eventMatches(e, { events: '', key: 'order:*', db: '' })).toBe(false);
    expect(eventMatches(e, { events: '', key: '', db: '0' })).toBe(false);
  });

  it('shows binary keys escaped', () => {
    expect(keyText('plain')).toBe('plain');
    expect(keyText({ base64: btoa('a\xff\x00') })).toBe('a\\xff\\x00');
  });

  it('knows when nothing is published', () => {
    expect(notificationsOn('')).toBe(false);
    expect(notificationsOn('A')).toBe(false);
    expect(notificationsOn('K')).toBe(false);
    expect(notificationsOn('AKE')).toBe(true);
    expect(notificationsOn('xE')).toBe(true);
  });

  it('polls after the last event, holds events while paused and keeps a bounded buffer', async () => {
    const asked: number[] = [];
    let next: KeyspaceEventsView = { events: [ev(1, 'set', 'a'), ev(2, 'del', 'a')], last_seq: 2, flags: 'AKE' };
    const feed = new EventsFeed(async (since) => {
      asked.push(since);
      return next;
    });
    await feed.tick();
    expect(feed.flags).toBe('AKE');
    expect(feed.events.map((e) => e.event)).toEqual(['set', 'del']);
    feed.pause();
    next = { events: [ev(3, 'lpush', 'l')], last_seq: 3, flags: 'AKE' };
    await feed.tick();
    expect(feed.events).toHaveLength(2);
    expect(feed.missed).toBe(1);
    feed.resume();
    expect(feed.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(asked).toEqual([0, 2]);
    next = {
      events: Array.from({ length: EVENTS_BUFFER + 10 }, (_, i) => ev(4 + i, 'set', `k${i}`)),
      last_seq: EVENTS_BUFFER + 13,
      flags: 'AKE',
    };
    await feed.tick();
    expect(feed.events).toHaveLength(EVENTS_BUFFER);
    expect(feed.events.at(-1)?.seq).toBe(EVENTS_BUFFER + 13);
    feed.close();
  });
});
