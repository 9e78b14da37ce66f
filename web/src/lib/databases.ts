// Numbered databases (SELECT): the picker's choices with their key counts, the console's
// prompt as redis-cli shows it, and a database named in the page's address.

import type { StatsSnapshot } from './types';

/** One database the picker offers. */
export interface DbChoice {
  db: number;
  keys: number;
  expires: number;
}

/**
 * Every database of the snapshot (`databases` of them), with the counts of its `keyspace`
 * (which lists only the non-empty ones). Without a snapshot yet, only `current`, uncounted.
 */
export function dbChoices(snapshot: Pick<StatsSnapshot, 'databases' | 'keyspace'> | null, current: number): DbChoice[] {
  if (!snapshot) return [{ db: current, keys: 0, expires: 0 }];
  const byDb = new Map(snapshot.keyspace.map((k) => [k.db, k]));
  const all = Array.from({ length: snapshot.databases }, (_, db) => db);
  // A database beyond the count (a stale address) stays listed, so the select can show it.
  if (current >= snapshot.databases) all.push(current);
  return all.map((db) => ({ db, keys: byDb.get(db)?.keys ?? 0, expires: byDb.get(db)?.expires ?? 0 }));
}

/** "db3 (1,204 keys)". */
export function dbLabel(c: DbChoice): string {
  return `db${c.db} (${c.keys.toLocaleString('en-US')} ${c.keys === 1 ? 'key' : 'keys'})`;
}

/** redis-cli's prompt in database `db`: `127.0.0.1:6379[3]>`; database 0 adds nothing. */
export function dbPrompt(prompt: string, db: number): string {
  if (!db) return prompt;
  return prompt.endsWith('>') ? `${prompt.slice(0, -1)}[${db}]>` : `${prompt}[${db}]`;
}

/** A database number from the address (`?db=3`), or 0 when absent or not a number. */
export function parseDb(text: string | null): number {
  if (text === null || !/^\d{1,5}$/.test(text)) return 0;
  return Number(text);
}
