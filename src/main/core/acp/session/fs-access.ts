import { RequestError } from '@agentclientprotocol/sdk';
import { lstat, mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { FileWriteInfo } from '../../../../shared/contract/sessions';
import type { Db } from '../../store/database';

/** Largest file fs/read_text_file returns (and fs/write_text_file keeps a previous copy of). */
export const MAX_TEXT_FILE_BYTES = 32 * 1024 * 1024;

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

export const outsideRootsError = (path: string): RequestError =>
  new RequestError(-32602, `Invalid params: ${path} is outside the session's folders`, { path });

/**
 * The session's roots (cwd + additional directories), as real paths. A path is inside when, after `..`
 * and symlinks are resolved, it lies in one of them. A file that does not exist yet is judged by the real
 * path of its nearest existing ancestor, so a symlinked folder cannot lead a new file outside.
 */
export class RootGuard {
  private constructor(readonly roots: readonly string[]) {}

  static async create(dirs: readonly string[]): Promise<RootGuard> {
    const roots: string[] = [];
    for (const d of dirs) roots.push(await realpath(d));
    return new RootGuard(roots);
  }

  contains(real: string): boolean {
    return this.roots.some((r) => real === r || real.startsWith(r.endsWith(sep) ? r : r + sep));
  }

  /** The real path `path` refers to, and whether it exists. Throws a JSON-RPC error when outside. */
  async resolve(path: string): Promise<{ real: string; exists: boolean }> {
    if (typeof path !== 'string' || !isAbsolute(path)) {
      throw new RequestError(-32602, `Invalid params: path must be absolute: ${String(path).slice(0, 500)}`);
    }
    const normalized = resolve(path);
    const tail: string[] = [];
    let current = normalized;
    for (;;) {
      try {
        const real = join(await realpath(current), ...tail);
        if (!this.contains(real)) throw outsideRootsError(path);
        return { real, exists: tail.length === 0 };
      } catch (e) {
        if (e instanceof RequestError) throw e;
        if (errno(e) !== 'ENOENT') {
          if (errno(e) === 'ELOOP') throw new RequestError(-32602, `Invalid params: ${path} is a symlink loop`);
          if (errno(e) === 'ENOTDIR') throw new RequestError(-32602, `Invalid params: a parent of ${path} is not a folder`);
          throw e;
        }
      }
      // `current` does not resolve. If it exists as a link, it is dangling: where a write would land is
      // decided by the link target, so refuse instead of guessing.
      try {
        await lstat(current);
        throw new RequestError(-32602, `Invalid params: ${current} is a symlink to a missing target`);
      } catch (e) {
        if (e instanceof RequestError) throw e;
      }
      const parent = dirname(current);
      if (parent === current) throw outsideRootsError(path);
      tail.unshift(basename(current));
      current = parent;
    }
  }
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

async function readSmallText(real: string): Promise<string> {
  const info = await stat(real);
  if (info.isDirectory()) throw new RequestError(-32602, `Invalid params: ${real} is a folder`);
  if (info.size > MAX_TEXT_FILE_BYTES) throw new RequestError(-32603, `Internal error: ${real} is larger than ${MAX_TEXT_FILE_BYTES} bytes`);
  return readFile(real, 'utf8');
}

export interface ReadOptions {
  /** Compatibility (Gemini CLI 0.61): a missing file inside the roots reads as empty. */
  missingFileAsEmpty: boolean;
}

export async function readTextFile(guard: RootGuard, path: string, line: number | null | undefined, limit: number | null | undefined, options: ReadOptions): Promise<string> {
  const { real, exists } = await guard.resolve(path);
  if (exists) {
    try {
      return sliceLines(await readSmallText(real), line, limit);
    } catch (e) {
      if (errno(e) !== 'ENOENT') throw e;
    }
  }
  if (options.missingFileAsEmpty) return '';
  throw RequestError.resourceNotFound(path);
}

/** Writes inside the roots (creating folders as needed) and records the write so it can be reverted. */
export async function writeTextFile(guard: RootGuard, path: string, content: string, record: (real: string, previous: string | null) => void): Promise<void> {
  const { real, exists } = await guard.resolve(path);
  let previous: string | null = null;
  if (exists) {
    try {
      previous = await readSmallText(real);
    } catch (e) {
      if (errno(e) !== 'ENOENT') throw e;
    }
  }
  await mkdir(dirname(real), { recursive: true });
  await writeFile(real, content, 'utf8');
  record(real, previous);
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
