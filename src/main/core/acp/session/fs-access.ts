import { RequestError } from '@agentclientprotocol/sdk';
import type { FileWriteInfo } from '../../../../shared/contract/sessions';
import type { Db } from '../../store/database';
import { FsRefusal, showPath, type ConfinedFs } from '../../fs/confined-fs';

/** Largest file fs/read_text_file returns (and fs/write_text_file keeps a previous copy of). */
export const MAX_TEXT_FILE_BYTES = 32 * 1024 * 1024;

/** A refusal as the JSON-RPC error the agent gets: -32002 when the file is missing, else -32602 (or -32603 for an I/O error). */
export function toRequestError(e: unknown, path: unknown): unknown {
  if (!(e instanceof FsRefusal)) return e;
  const data = { path: typeof path === 'string' ? path.slice(0, 4096) : null, reason: e.reason };
  if (e.reason === 'not_found') return new RequestError(-32002, e.message, data);
  return new RequestError(e.reason === 'io' ? -32603 : -32602, e.message, data);
}

/** `line` is 1-based; `limit` counts lines. Newlines are kept. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if ((line === undefined || line === null) && (limit === undefined || limit === null)) return text;
  let start = 0;
  for (let n = 1; n < (line ?? 1) && start < text.length; n++) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) return '';
    start = nl + 1;
  }
  if (limit === undefined || limit === null) return text.slice(start);
  let end = start;
  for (let n = 0; n < limit && end < text.length; n++) {
    const nl = text.indexOf('\n', end);
    end = nl === -1 ? text.length : nl + 1;
  }
  return text.slice(start, end);
}

export interface ReadOptions {
  /** Compatibility (Gemini CLI 0.61): a missing file inside the roots reads as empty. */
  missingFileAsEmpty: boolean;
}

/** fs/read_text_file: a regular file inside the roots, as text (bounded, never blocking). */
export async function readTextFile(fs: ConfinedFs, path: string, line: number | null | undefined, limit: number | null | undefined, options: ReadOptions): Promise<string> {
  try {
    const file = await fs.readFileIfExists(path, { maxBytes: MAX_TEXT_FILE_BYTES });
    if (file) return sliceLines(file.data.toString('utf8'), line, limit);
    if (options.missingFileAsEmpty) return '';
    throw new FsRefusal('not_found', `${showPath(path)} does not exist`);
  } catch (e) {
    throw toRequestError(e, path);
  }
}

/** fs/write_text_file: an atomic write inside the roots (creating folders as needed), recorded so it can be reverted. */
export async function writeTextFile(fs: ConfinedFs, path: string, content: string, record: (real: string, previous: string | null) => void): Promise<void> {
  try {
    const { real, previous } = await fs.writeFile(path, content, { createParents: true, previousMaxBytes: MAX_TEXT_FILE_BYTES });
    record(real, previous === null ? null : previous.toString('utf8'));
  } catch (e) {
    throw toRequestError(e, path);
  }
}

interface WriteRow {
  id: number;
  session_id: string;
  path: string;
  previous_content: string | null;
  new_content: string;
  ts: number;
  reverted_at: number | null;
}

/** Table file_writes: every fs/write_text_file, with the content before and after. */
export class FileWrites {
  constructor(private readonly db: Db) {}

  record(sessionId: string, path: string, previous: string | null, next: string): number {
    const info = this.db
      .prepare('INSERT INTO file_writes (session_id, path, previous_content, new_content, ts) VALUES (?, ?, ?, ?, ?)')
      .run(sessionId, path, previous, next, Date.now());
    return Number(info.lastInsertRowid);
  }

  list(sessionId: string): FileWriteInfo[] {
    const rows = this.db
      .prepare(
        `SELECT id, session_id, path, previous_content IS NULL AS created, length(CAST(previous_content AS BLOB)) AS previous_size,
           length(CAST(new_content AS BLOB)) AS new_size, ts, reverted_at FROM file_writes WHERE session_id = ? ORDER BY id`,
      )
      .all(sessionId) as Array<{ id: number; session_id: string; path: string; created: number; previous_size: number | null; new_size: number; ts: number; reverted_at: number | null }>;
    return rows.map((r) => ({
      id: r.id,
      sessionId: r.session_id,
      path: r.path,
      created: r.created === 1,
      previousSize: r.previous_size,
      newSize: r.new_size,
      ts: r.ts,
      revertedAt: r.reverted_at,
    }));
  }

  get(id: number): WriteRow | undefined {
    return this.db.prepare('SELECT * FROM file_writes WHERE id = ?').get(id) as WriteRow | undefined;
  }

  markReverted(id: number): void {
    this.db.prepare('UPDATE file_writes SET reverted_at = ? WHERE id = ?').run(Date.now(), id);
  }
}
