import { describe, expect, it } from 'vitest';
import { loadedText, recoveryText, rewriteOutcome } from './persistence';

const clean = { file_bytes: 580, blocks: 10, commands: 10, failed_commands: 0, truncated_at: null, dropped_bytes: 0 };

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
    expect(loadedText(clean)).toMatch(/^loaded 10 commands from /);
  });
});

describe('rewriteOutcome', () => {
  it('reads the status', () => {
    expect(rewriteOutcome(null)).toBeNull();
    expect(rewriteOutcome('ok')).toEqual({ ok: true, error: '' });
    expect(rewriteOutcome('err: disk full')).toEqual({ ok: false, error: 'disk full' });
  });
});
