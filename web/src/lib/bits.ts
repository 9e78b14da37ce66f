// A string's bytes laid out for the bits view: rows of bytes, each byte as its eight bits
// (most significant first, the order SETBIT and BITFIELD number them), with byte offsets.

/** One byte of a row: its offset in the string, its value and its bits, bit 0 first. */
export interface BitByte {
  offset: number;
  value: number;
  bits: boolean[];
}

/** One row of the view: the offset of its first byte and its bytes. */
export interface BitRow {
  offset: number;
  bytes: BitByte[];
}

/** The eight bits of `value`, most significant first. */
export function bitsOf(value: number): boolean[] {
  return Array.from({ length: 8 }, (_, i) => (value & (0x80 >> i)) !== 0);
}

/** `bytes` (starting at byte `offset` of the string) in rows of `perRow` bytes. */
export function bitRows(offset: number, bytes: readonly number[], perRow = 8): BitRow[] {
  const rows: BitRow[] = [];
  for (let i = 0; i < bytes.length; i += perRow) {
    rows.push({
      offset: offset + i,
      bytes: bytes.slice(i, i + perRow).map((value, j) => ({ offset: offset + i + j, value, bits: bitsOf(value) })),
    });
  }
  return rows;
}

/** "12 of 64 bits set" for a count of set bits among `length` bytes. */
export function setBitsLabel(set: number, length: number): string {
  const total = length * 8;
  return `${set.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${total === 1 ? 'bit' : 'bits'} set`;
}
