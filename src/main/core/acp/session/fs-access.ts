import { RequestError } from '@agentclientprotocol/sdk';
import { FsRefusal, showPath, type ConfinedFiles } from '../../host/files';

/** Largest file fs/read_text_file returns. */
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
export async function readTextFile(fs: ConfinedFiles, path: string, line: number | null | undefined, limit: number | null | undefined, options: ReadOptions): Promise<string> {
  try {
    const file = await fs.readFileIfExists(path, { maxBytes: MAX_TEXT_FILE_BYTES });
    if (file) return sliceLines(file.data.toString('utf8'), line, limit);
    if (options.missingFileAsEmpty) return '';
    throw new FsRefusal('not_found', `${showPath(path)} does not exist`);
  } catch (e) {
    throw toRequestError(e, path);
  }
}

/** fs/write_text_file: an atomic write inside the roots (creating folders as needed). Checkpoints see it like any other change. */
export async function writeTextFile(fs: ConfinedFiles, path: string, content: string): Promise<void> {
  try {
    await fs.writeFile(path, content, { createParents: true });
  } catch (e) {
    throw toRequestError(e, path);
  }
}
