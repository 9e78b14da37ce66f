import { describe, expect, it } from 'vitest';
import { bitRows, bitsOf, setBitsLabel } from './bits';

describe('bits view', () => {
  it('numbers bits from the most significant, as SETBIT does', () => {
    expect(bitsOf(0x80)).toEqual([true, false, false, false, false, false, false, false]);
    expect(bitsOf(1).indexOf(true)).toBe(7);
    expect(bitsOf(0).some(Boolean)).toBe(false);
  });

  it('lays bytes out in rows with their offsets', () => {
    const rows = bitRows(16, [1, 2, 3, 4, 5], 2);
    expect(rows.map((r) => r.offset)).toEqual([16, 18, 20]);
    expect(rows[2].bytes).toEqual([{ offset: 20, value: 5, bits: bitsOf(5) }]);
    expect(bitRows(0, [])).toEqual([]);
  });

  it('says how many bits are set', () => {
    expect(setBitsLabel(3, 2)).toBe('3 of 16 bits set');
    expect(setBitsLabel(1234, 1000)).toBe('1,234 of 8,000 bits set');
  });
});
