import { describe, expect, it } from 'vitest';
import { dbChoices, dbLabel, dbPrompt, parseDb } from './databases';

const keyspace = (db: number, keys: number, expires = 0) => ({
  db,
  keys,
  expires,
  avg_ttl_ms: 0,
  keys_by_type: { string: keys, list: 0, hash: 0, set: 0, zset: 0, stream: 0 },
});

describe('databases', () => {
  it('lists every database with its counts, 0 for the empty ones', () => {
    const c = dbChoices({ databases: 4, keyspace: [keyspace(0, 2), keyspace(3, 1, 1)] }, 0);
    expect(c).toEqual([
      { db: 0, keys: 2, expires: 0 },
      { db: 1, keys: 0, expires: 0 },
      { db: 2, keys: 0, expires: 0 },
      { db: 3, keys: 1, expires: 1 },
    ]);
    expect(c.map(dbLabel)).toEqual(['db0 (2 keys)', 'db1 (0 keys)', 'db2 (0 keys)', 'db3 (1 key)']);
  });

  it('keeps the current database listed before the snapshot and beyond the count', () => {
    expect(dbChoices(null, 5)).toEqual([{ db: 5, keys: 0, expires: 0 }]);
    expect(dbChoices({ databases: 2, keyspace: [] }, 9).map((c) => c.db)).toEqual([0, 1, 9]);
    expect(dbChoices({ databases: 2, keyspace: [] }, 1).map((c) => c.db)).toEqual([0, 1]);
  });

  it("writes the prompt as redis-cli's", () => {
    expect(dbPrompt('127.0.0.1:6379>', 0)).toBe('127.0.0.1:6379>');
    expect(dbPrompt('127.0.0.1:6379>', 3)).toBe('127.0.0.1:6379[3]>');
    expect(dbPrompt('playground>', 15)).toBe('playground[15]>');
    expect(dbPrompt('vitrine', 1)).toBe('vitrine[1]');
  });

  it('reads a database from the address', () => {
    expect(parseDb('3')).toBe(3);
    expect(parseDb(null)).toBe(0);
    expect(parseDb('')).toBe(0);
    expect(parseDb('-1')).toBe(0);
    expect(parseDb('x')).toBe(0);
  });
});
