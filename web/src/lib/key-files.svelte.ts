// Key files on the Keys page: exporting the keys a filter selects as a file of DUMP payloads
// (downloaded), and importing such a file with a conflict mode and a per-key report. The same
// on both backends, so keys move from the playground to a server and back.

import { errorMessage } from './api';
import type { ConflictMode, ImportReport } from './api-types';
import type { Backend, ExportRequest, ExportedFile } from './backend/backend';

/** What each conflict mode does, as the page says it. */
export const MODE_LABELS: Record<ConflictMode, string> = {
  skip: 'Keep the existing key (skip)',
  replace: 'Replace it',
  fail: 'Import nothing',
};

/** Saves a file through the browser's download (an object URL on a temporary link). */
export function downloadFile(f: ExportedFile): void {
  const url = URL.createObjectURL(new Blob([f.data as Uint8Array<ArrayBuffer>], { type: f.contentType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = f.filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function plural(n: number, one: string, many = one + 's'): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** One line about an export. */
export function describeExport(f: Pick<ExportedFile, 'filename' | 'keys' | 'missing'>): string {
  const missing = f.missing ? ` (${plural(f.missing, 'key')} named did not exist)` : '';
  return `Exported ${plural(f.keys, 'key')} to ${f.filename}${missing}.`;
}

/** One line about an import. */
export function describeReport(r: ImportReport): string {
  const parts = [`${r.restored} restored`, `${r.skipped} skipped`, plural(r.errors, 'error')];
  return `Imported into db${r.db}: ${parts.join(', ')}.`;
}

/** The export and import of one Keys page, with what the last of each did. */
export class KeyFiles {
  busy = $state(false);
  error = $state<string | null>(null);
  exported = $state<string | null>(null);
  report = $state.raw<ImportReport | null>(null);
  readonly #backend: Pick<Backend, 'exportKeys' | 'importKeys'>;
  readonly #save: (f: ExportedFile) => void;

  constructor(backend: Pick<Backend, 'exportKeys' | 'importKeys'>, save: (f: ExportedFile) => void = downloadFile) {
    this.#backend = backend;
    this.#save = save;
  }

  /** Exports and downloads; says how it went in `exported` or `error`. */
  async export(r: ExportRequest): Promise<void> {
    await this.#run(async () => {
      const f = await this.#backend.exportKeys(r);
      this.#save(f);
      this.exported = describeExport(f);
    });
  }

  /** Imports a file's bytes into `db`; the report lands in `report`. */
  async import(file: Uint8Array, mode: ConflictMode, db: number): Promise<boolean> {
    let ok = false;
    await this.#run(async () => {
      this.report = await this.#backend.importKeys(file, mode, db);
      ok = true;
    });
    return ok;
  }

  async #run(work: () => Promise<void>): Promise<void> {
    this.busy = true;
    this.error = null;
    this.exported = null;
    this.report = null;
    try {
      await work();
    } catch (e) {
      this.error = errorMessage(e);
    } finally {
      this.busy = false;
    }
  }
}
