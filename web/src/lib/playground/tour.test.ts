import { describe, expect, it } from 'vitest';
import { roughWords } from '../console.svelte';
import { TOUR } from './tour';

describe('the tour', () => {
  it('has a few steps, each with commands with balanced quotes', () => {
    expect(TOUR.length).toBeGreaterThanOrEqual(4);
    expect(TOUR.map((s) => s.title).join(' ')).toMatch(/Strings.*TTL.*Eviction.*LRU vs LFU/s);
    for (const step of TOUR) {
      expect(step.commands.length).toBeGreaterThan(0);
      for (const c of step.commands) {
        expect(roughWords(c).length, c).toBeGreaterThan(0);
        expect((c.match(/"/g) ?? []).length % 2, c).toBe(0);
      }
    }
  });
});
