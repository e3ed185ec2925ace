import { prepared, type Db } from '../store/database';

/**
 * What Switchboard remembers of each imported file (table imported_files, migrations/0016): its identity when it
 * was last imported, where that import stopped, the parser's state there, and the session it went to.
 */

export interface FileRow {
  path: string;
  source: string;
  session_id: string | null;
  ino: number;
  size: number;
  mtime_ms: number;
  offset: number;
  /** Null: not read yet (a rescan reads it only for files that grew). */
  state: string | null;
  linked: number;
  skipped: string | null;
}

/** What a rescan compares of a file: [inode, size, mtime ms, offset imported]. */
export type Identity = [number, number, number, number];

export class ImportedFiles {
  constructor(private readonly db: () => Db) {}

  /**
   * What is known of each file of a store (or of these files of it); `withState`: with the parser states too (a
   * rescan needs few).
   */
  rowsOf(source: string, withState = true, paths?: readonly string[]): Map<string, FileRow> {
    const columns = `path, source, session_id, ino, size, mtime_ms, offset, ${withState ? 'state' : 'NULL AS state'}, linked, skipped`;
    const rows = (
      paths
        ? prepared(this.db(), `SELECT ${columns} FROM imported_files WHERE source = ? AND path IN (SELECT value FROM json_each(?))`).all(source, JSON.stringify(paths))
        : prepared(this.db(), `SELECT ${columns} FROM imported_files WHERE source = ?`).all(source)
    ) as FileRow[];
    return new Map(rows.map((r) => [r.path, r]));
  }

  /**
   * The identity each file of a store (or these files of it) had at its last import, and where that stopped: all
   * a rescan compares (one query of four columns: a rescan of 20,000 unchanged files reads no more).
   */
  identitiesOf(source: string, paths?: readonly string[]): Map<string, Identity> {
    const columns = 'path, ino, size, mtime_ms, offset';
    const rows = (
      paths
        ? prepared(this.db(), `SELECT ${columns} FROM imported_files WHERE source = ? AND path IN (SELECT value FROM json_each(?))`).raw().all(source, JSON.stringify(paths))
        : prepared(this.db(), `SELECT ${columns} FROM imported_files WHERE source = ?`).raw().all(source)
    ) as Array<[string, number, number, number, number]>;
    const out = new Map<string, Identity>();
    for (const [path, ino, size, mtime, offset] of rows) out.set(path, [ino, size, mtime, offset]);
    return out;
  }

  stateOf(path: string): string {
    return (prepared(this.db(), 'SELECT state FROM imported_files WHERE path = ?').get(path) as { state: string } | undefined)?.state ?? '{}';
  }

  newRow(path: string, source: string): FileRow {
    return { path, source, session_id: null, ino: 0, size: 0, mtime_ms: 0, offset: 0, state: '{}', linked: 0, skipped: null };
  }

  save(r: FileRow): void {
    prepared(
      this.db(),
        `INSERT INTO imported_files (path, source, session_id, ino, size, mtime_ms, offset, state, linked, skipped, updated_at)
         VALUES (@path, @source, @session_id, @ino, @size, @mtime_ms, @offset, coalesce(@state, '{}'), @linked, @skipped, @updated_at)
         ON CONFLICT (path) DO UPDATE SET session_id = excluded.session_id, ino = excluded.ino, size = excluded.size,
           mtime_ms = excluded.mtime_ms, offset = excluded.offset, state = coalesce(@state, imported_files.state), linked = excluded.linked,
           skipped = excluded.skipped, updated_at = excluded.updated_at`,
      )
      .run({ ...r, updated_at: Date.now() });
  }
}
