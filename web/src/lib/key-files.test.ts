import { describe, expect, it } from 'vitest';
import { ApiError } from './api';
import type { ImportReport } from './api-types';
import type { ExportRequest, ExportedFile } from './backend/backend';
import { exportBody } from './backend/backend';
import { KeyFiles, describeExport, describeReport } from './key-files.svelte';

const REPORT: ImportReport = {
  db: 2,
  mode: 'skip',
  format: 'json',
  restored: 2,
  skipped: 1,
  errors: 1,
  keys: [
    { key: 'a', type: 'string', status: 'restored', error: null },
    { key: { base64: '/w==' }, type: 'hash', status: 'error', error: 'ERR DUMP payload version or checksum are wrong' },
  ],
};

describe('key files', () => {
  it('sends the filter, or the keys named, as the export body', () => {
    expect(exportBody({ db: 0, format: 'json', match: '*', type: '' })).toEqual({ db: 0, format: 'json' });
    expect(exportBody({ db: 3, format: 'binary', match: 'user:*', type: 'hash' })).toEqual({ db: 3, format: 'binary', match: 'user:*', type: 'hash' });
    expect(exportBody({ db: 1, format: 'json', keys: ['a', { base64: '/w==' }], match: 'x*' })).toEqual({
      db: 1,
      format: 'json',
      keys: ['a', { base64: '/w==' }],
    });
  });

  it('says what an export and an import did', () => {
    expect(describeExport({ filename: 'f.json', keys: 1, missing: 0 })).toBe('Exported 1 key to f.json.');
    expect(describeExport({ filename: 'f.vtrkeys', keys: 3, missing: 2 })).toBe('Exported 3 keys to f.vtrkeys (2 keys named did not exist).');
    expect(describeReport(REPORT)).toBe('Imported into db2: 2 restored, 1 skipped, 1 error.');
  });

  it('downloads what it exported, and keeps the report of an import or the error', async () => {
    const saved: ExportedFile[] = [];
    const asked: ExportRequest[] = [];
    const file: ExportedFile = { filename: 'vitrine-db0-1.json', contentType: 'application/json', keys: 2, missing: 0, data: new Uint8Array([123]) };
    let importError: Error | null = null;
    const files = new KeyFiles(
      {
        exportKeys: async (r) => {
          asked.push(r);
          return file;
        },
        importKeys: async (bytes, mode, db) => {
          if (importError) throw importError;
          return { ...REPORT, mode, db: db ?? 0, format: bytes[0] === 123 ? 'json' : 'binary' };
        },
      },
      (f) => saved.push(f),
    );
    await files.export({ db: 0, format: 'json', match: '*', type: '' });
    expect(saved).toEqual([file]);
    expect(asked).toHaveLength(1);
    expect(files.exported).toBe('Exported 2 keys to vitrine-db0-1.json.');
    expect(await files.import(new Uint8Array([86]), 'replace', 5)).toBe(true);
    expect(files.report).toMatchObject({ db: 5, mode: 'replace', format: 'binary' });
    expect(files.exported).toBeNull();
    importError = new ApiError(409, 'conflict', '1 of the file\'s keys exist already (a); nothing was imported');
    expect(await files.import(new Uint8Array([123]), 'fail', 0)).toBe(false);
    expect(files.report).toBeNull();
    expect(files.error).toContain('nothing was imported');
    expect(files.busy).toBe(false);
  });
});
