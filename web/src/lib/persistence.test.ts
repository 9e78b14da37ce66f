import { describe, expect, it } from 'vitest';
import { loadedText, recoveryText, rewriteOutcome, tornCopy } from './persistence';

// As the server's /api/stats emits `persistence.recovery` (server/src/aof.rs, Recovery).
const clean = {
  file_bytes: 580,
  blocks: 10,
  commands: 10,
  failed_commands: 0,
  truncated_at: null,
  dropped_bytes: 0,
  format: 'vitrine',
  source: '/data/appendonly.aof',
  truncated_file: null,
  torn_copy: null,
  torn_copy_bytes: 0,
  kept_copy: null,
  rdb_keys: 0,
};

describe('recoveryText', () => {
  it('is null after a clean load', () => {
    expect(recoveryText(clean)).toBeNull();
    expect(recoveryText(undefined)).toBeNull();
  });

  it('names what a torn tail cost', () => {
    expect(recoveryText({ ...clean, commands: 9, truncated_at: 522, dropped_bytes: 23 })).toBe(
      'Recovered: kept 9 commands, dropped 23 bytes at offset 522',
    );
    expect(recoveryText({ ...clean, commands: 1, truncated_at: 0, dropped_bytes: 1 })).toBe(
      'Recovered: kept 1 command, dropped 1 byte at offset 0',
    );
  });
});

describe('loadedText', () => {
  it('says whether there was a file', () => {
    expect(loadedText({ ...clean, file_bytes: 0, commands: 0 })).toBe('started with no file');
    expect(loadedText(clean)).toMatch(/^loaded 10 commands from [^(]+$/);
  });

  it("says when the file was Redis's", () => {
    expect(loadedText({ ...clean, format: 'redis-multi-part' })).toMatch(/\(Redis's multi-part appendonlydir\)$/);
    expect(loadedText({ ...clean, format: 'resp' })).toMatch(/\(a plain RESP file\)$/);
  });
});

describe('tornCopy', () => {
  it('is null when nothing was cut', () => {
    expect(tornCopy(clean)).toBeNull();
    expect(tornCopy(undefined)).toBeNull();
  });

  it("gives the copy's path and size", () => {
    const torn = {
      ...clean,
      truncated_at: 522,
      dropped_bytes: 23,
      torn_copy: '/data/appendonly.aof.torn-1764000000',
      torn_copy_bytes: 23,
    };
    expect(tornCopy(torn)).toEqual({ path: '/data/appendonly.aof.torn-1764000000', size: '23 B' });
  });
});

describe('rewriteOutcome', () => {
  it('reads the status', () => {
    expect(rewriteOutcome(null)).toBeNull();
    expect(rewriteOutcome('ok')).toEqual({ ok: true, error: '' });
    expect(rewriteOutcome('err: disk full')).toEqual({ ok: false, error: 'disk full' });
  });
});
