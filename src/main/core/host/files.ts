/**
 * Confined file access, the file part of the Host port: every read, write and removal on a session's behalf
 * (an agent's fs/read_text_file and fs/write_text_file, checkpoint restores, @-mentions) is confined to a set
 * of root folders at the moment it acts. Refusals are `FsRefusal`s (a reason and a sentence for a human), on
 * every host; callers map them to their protocol (JSON-RPC error, IpcFailure).
 */

export type RefusalReason =
  | 'invalid_path'
  | 'outside'
  | 'not_found'
  | 'not_regular'
  | 'too_large'
  | 'symlink_loop'
  | 'dangling_symlink'
  | 'not_a_folder'
  | 'permission'
  | 'changed'
  | 'io';

/** A refused file operation: `message` is a sentence for the user (it starts with "refused:"). */
export class FsRefusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'FsRefusal';
  }
}

/** The path as it may appear in a message: printable, bounded. */
export function showPath(path: unknown): string {
  const s = typeof path === 'string' ? path : String(path);
  // eslint-disable-next-line no-control-regex
  const printable = s.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return printable.length > 200 ? `${printable.slice(0, 120)}…${printable.slice(-60)} (${s.length} characters)` : printable;
}

/** Names of Switchboard's temporary files (written, then renamed over their target); checkpoints skip them. */
export const TEMP_PREFIX = '.switchboard-tmp-';

export interface ReadOptions {
  /** Refuse files larger than this. */
  maxBytes: number;
}

export interface WriteOptions {
  /** Create missing parent folders (each one confined as it is made). */
  createParents?: boolean;
}

export type EntryKind = 'file' | 'folder' | 'symlink' | 'other';

export interface FileInfo {
  /** The real path (inside the roots). */
  real: string;
  kind: Exclude<EntryKind, 'symlink'>;
  size: number;
  mtimeMs: number;
}

export interface DirEntry {
  name: string;
  /** What the name is itself (a symlink is not followed). */
  kind: EntryKind;
}

/**
 * Paths are absolute (checked: a string, no NUL, not a URL, bounded) unless a method says `rel`: those are
 * relative to the first root and follow no symlink at all (checkpoint restores put back exactly what was
 * recorded: a recorded symlink is written as a link, a link in the way is replaced, never followed).
 */
export interface ConfinedFiles {
  /** The roots as real paths. */
  readonly roots: readonly string[];
  /** Whether a real (resolved) path lies in one of the roots. */
  contains(real: string): boolean;
  /** The real path `path` names now, and whether it exists (a missing file is judged by its nearest existing parent). */
  resolve(path: unknown): Promise<{ real: string; exists: boolean }>;
  /** What `path` is now (links followed, each confined). Missing: `not_found`. */
  stat(path: unknown): Promise<FileInfo>;
  /** A folder's entries (unsorted). */
  listDir(path: unknown): Promise<DirEntry[]>;
  /** A regular file's bytes; never blocks on a FIFO or device. Missing: `not_found`. */
  readFile(path: unknown, options: ReadOptions): Promise<{ real: string; data: Buffer }>;
  /** Like `readFile`, but a missing file (inside the roots) gives null. */
  readFileIfExists(path: unknown, options: ReadOptions): Promise<{ real: string; data: Buffer } | null>;
  /** Replaces (or creates) a regular file atomically; a link swapped in on the way is never followed. */
  writeFile(path: unknown, data: string | Buffer, options?: WriteOptions): Promise<{ real: string }>;
  /** Removes a regular file; false when it is already gone. A link, a folder or anything else is refused. */
  removeFile(path: unknown): Promise<boolean>;
  /** Writes a regular file atomically at `rel` (absent, a regular file or a symlink now), creating parents. */
  placeFile(rel: string, data: Buffer, mode: number): Promise<void>;
  /** Makes `rel` a symbolic link to `target` (the link itself; its target is never touched). */
  placeSymlink(rel: string, target: string): Promise<void>;
  /** Removes the file or symlink at `rel`; false when nothing is there. Folders and others are refused. */
  removeEntry(rel: string): Promise<boolean>;
  /** Whether anything is at `rel`, without following a link anywhere on the way. */
  hasEntry(rel: string): Promise<boolean>;
  /** Removes temporary files an interrupted write left in the parent folders of these paths. */
  removeTempFiles(rels: readonly string[]): Promise<void>;
}
