// The Events page's feed: the keyspace notifications the cache publishes (Redis's
// notify-keyspace-events), polled through Backend.keyspaceEvents into a bounded buffer, with
// pause and filters by event type, key pattern and database. The feed also reports the
// current flags, so the page can offer to turn notifications on when they are off. Pure
// parts (matching, the flags a class needs) are plain functions, tested on their own.

import type { KeyspaceEventView, KeyspaceEventsView } from './api-types';
import type { Bytes } from './api-types/Bytes';
import { appendBounded, globToRegExp } from './monitor.svelte';

/** Events kept on the page; older ones scroll away. */
export const EVENTS_BUFFER = 500;

/** What the page turns notifications on with: every class, both channel kinds. */
export const ALL_EVENTS_FLAGS = 'KEA';

export interface EventsFilter {
  /** Event names, comma- or space-separated (`set, del`); empty = all. */
  events: string;
  /** A glob (`user:*`) the key must match; empty = all. */
  key: string;
  /** A database number; empty = all. */
  db: string;
}

/** A key as the view carries it: its text, or its bytes shown escaped. */
export function keyText(key: Bytes): string {
  if (typeof key === 'string') return key;
  const raw = atob(key.base64);
  return Array.from(raw, (c) => {
    const code = c.charCodeAt(0);
    return code >= 0x20 && code < 0x7f ? c : `\\x${code.toString(16).padStart(2, '0')}`;
  }).join('');
}

/** Whether an event passes the filter. */
export function eventMatches(e: KeyspaceEventView, f: EventsFilter): boolean {
  const names = f.events
    .split(/[\s,]+/)
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  if (names.length && !names.includes(e.event)) return false;
  if (f.key.trim() && !globToRegExp(f.key.trim()).test(keyText(e.key))) return false;
  if (f.db.trim() !== '' && Number(f.db.trim()) !== e.db) return false;
  return true;
}

/** Whether `notify-keyspace-events` publishes anything at all (a class and a channel kind). */
export function notificationsOn(flags: string): boolean {
  const channel = /[KE]/.test(flags);
  const someClass = /[Ag$lshzxetdmn]/.test(flags);
  return channel && someClass;
}

/** Polls the backend's keyspace events while open; holds the last EVENTS_BUFFER of them. */
export class EventsFeed {
  events = $state.raw<KeyspaceEventView[]>([]);
  /** notify-keyspace-events as the backend last reported it (null before the first answer). */
  flags = $state<string | null>(null);
  paused = $state(false);
  error = $state<string | null>(null);
  /** Events that arrived while paused (shown when resumed). */
  missed = $state(0);

  readonly #poll: (since: number) => Promise<KeyspaceEventsView>;
  readonly #intervalMs: number;
  #since = 0;
  #held: KeyspaceEventView[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #open = false;

  constructor(poll: (since: number) => Promise<KeyspaceEventsView>, intervalMs = 500) {
    this.#poll = poll;
    this.#intervalMs = intervalMs;
  }

  open(): void {
    if (this.#open) return;
    this.#open = true;
    void this.tick();
  }

  close(): void {
    this.#open = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** One poll now (and the next one scheduled while open). */
  async tick(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    try {
      const view = await this.#poll(this.#since);
      this.flags = view.flags;
      this.#since = view.last_seq;
      this.error = null;
      if (view.events.length) {
        if (this.paused) {
          this.#held = appendBounded(this.#held, view.events, EVENTS_BUFFER);
          this.missed = this.#held.length;
        } else {
          this.events = appendBounded(this.events, view.events, EVENTS_BUFFER);
        }
      }
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
    if (this.#open) this.#timer = setTimeout(() => void this.tick(), this.#intervalMs);
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.events = appendBounded(this.events, this.#held, EVENTS_BUFFER);
    this.#held = [];
    this.missed = 0;
  }

  clear(): void {
    this.events = [];
    this.#held = [];
    this.missed = 0;
  }
}
