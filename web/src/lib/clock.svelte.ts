// A reactive "now" that ticks only while something on the page reads it (TTL countdowns,
// "12s ago"): reading `clock.now` in a template subscribes; the interval stops when no one
// is reading any more.

import { createSubscriber } from 'svelte/reactivity';

export class Clock {
  #subscribe: () => void;

  constructor(intervalMs = 250) {
    this.#subscribe = createSubscriber((update) => {
      const id = setInterval(update, intervalMs);
      return () => clearInterval(id);
    });
  }

  get now(): number {
    this.#subscribe();
    return Date.now();
  }
}

export const clock = new Clock();
