// What an import tells its caller: lines read, imported and skipped, and why each skipped line was.
export interface ImportReport {
  read: number;
  imported: number;
  skipped: number;
  errors: { line: number; message: string }[];
}

export interface ImportRun {
  /** Called after each written chunk or batch with the running totals. */
  onProgress?(report: ImportReport): void;
  /** Errors kept in the report (all are counted); the rest are only counted. */
  maxErrors?: number;
}

export const newReport = (): ImportReport => ({ read: 0, imported: 0, skipped: 0, errors: [] });
