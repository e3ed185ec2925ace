/**
 * File access confined to a set of root folders: the one place where Switchboard touches the disk on a
 * session's behalf (an agent's fs/read_text_file and fs/write_text_file, the user's Revert, checkpoint
 * restores, @-mentions, the file viewer).
 *
 * Every operation resolves and confines its path at the moment it acts; nothing reuses an earlier check,
 * because whoever controls the folders (the agent, with its own shell) can swap a folder for a symlink at
 * any time.
 *
 *   const fs = await ConfinedFs.open([cwd, ...additionalDirectories]);
 *   await fs.resolve(path)                 → { real, exists }       the real path, inside the roots
 *   await fs.readFile(path, { maxBytes })  → { real, data }         a regular file, never blocking
 *   await fs.readFileIfExists(path, …)     → { real, data } | null  the same; null when missing
 *   await fs.writeFile(path, data, …)      → { real }               atomic (temp file + rename), no link followed
 *   await fs.removeFile(path)              → boolean                unlinks a regular file (never a link target)
 *
 * Refusals are thrown as `FsRefusal` (a `reason` and a sentence for a human); callers map them to their
 * protocol (JSON-RPC error, IpcFailure). No other error leaves this module: an unexpected errno becomes an
 * `FsRefusal` with reason `io` that names it.
 *
 * How a swap is defeated:
 * - Reads open the resolved path with O_NOFOLLOW|O_NONBLOCK, fstat the descriptor (only a regular file is
 *   read, so a FIFO or device never blocks a thread), then check where the opened file really is (Linux:
 *   /proc/self/fd/N, the kernel's answer; elsewhere: the confined path must still name the opened inode,
 *   dev/ino); a folder swapped in between is caught there.
 * - A hard link inside the roots to a file elsewhere reads that file (the kernel cannot tell which name is
 *   the "real" one); a write never changes it, since the rename replaces the name, not the inode.
 * - Writes and removals anchor the resolved parent folder: on Linux an O_DIRECTORY|O_NOFOLLOW descriptor,
 *   addressed through /proc/self/fd/N, so the temp file, the rename and the unlink happen in that inode
 *   whatever is swapped on the path (openat/renameat semantics; Node has no *at calls). The folder's
 *   location is checked to be inside the roots before the rename. Elsewhere (macOS, Windows) the folder is
 *   addressed by path and its dev/ino re-checked just before acting, which leaves a small window.
 */
import { randomBytes } from 'node:crypto';
import { constants, existsSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve as resolvePath, sep, win32 } from 'node:path';

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

/** Longest path accepted (Linux PATH_MAX) and longest single name (NAME_MAX), in UTF-8 bytes. */
export const MAX_PATH_BYTES = 4096;
export const MAX_NAME_BYTES = 255;

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd') ? '/proc/self/fd' : null;

const errnoOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/** The path as it may appear in a message: printable, bounded. */
export function showPath(path: unknown): string {
  const s = typeof path === 'string' ? path : String(path);
  // eslint-disable-next-line no-control-regex
  const printable = s.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return printable.length > 200 ? `${printable.slice(0, 120)}…${printable.slice(-60)} (${s.length} characters)` : printable;
}

/** What a non-regular file is, in words. */
export function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

const notRegular = (path: string, info: Stats): FsRefusal =>
  new FsRefusal(info.isDirectory() ? 'not_regular' : 'not_regular', `refused: ${showPath(path)} is not a regular file (${kindOf(info).replace(/^an? /, '')})`);

/** An errno of a file operation as a refusal; FsRefusals pass through. */
export function refusalFor(e: unknown, path: string): FsRefusal {
  if (e instanceof FsRefusal) return e;
  const p = showPath(path);
  switch (errnoOf(e)) {
    case 'ENOENT':
      return new FsRefusal('not_found', `refused: ${p} does not exist`);
    case 'ELOOP':
      return new FsRefusal('symlink_loop', `refused: ${p} leads through a symbolic link loop (or a link where none is followed)`);
    case 'ENAMETOOLONG':
      return new FsRefusal('invalid_path', `refused: the path is too long: ${p}`);
    case 'ENOTDIR':
      return new FsRefusal('not_a_folder', `refused: a parent of ${p} is not a folder`);
    case 'EISDIR':
      return new FsRefusal('not_regular', `refused: ${p} is not a regular file (folder)`);
    case 'EACCES':
    case 'EPERM':
      return new FsRefusal('permission', `refused: no permission to access ${p}`);
    case 'ENXIO':
      return new FsRefusal('not_regular', `refused: ${p} is not a regular file (socket or device)`);
    case 'EEXIST':
      return new FsRefusal('changed', `refused: ${p} changed while Switchboard was working on it; try again`);
    default: {
      const code = errnoOf(e);
      return new FsRefusal('io', `refused: could not access ${p} (${code ?? (e instanceof Error ? e.message : String(e))})`);
    }
  }
}

/**
 * Checks the shape of a path an agent or the renderer sent, before it reaches the OS: a string, absolute,
 * no NUL byte, not a URL, within PATH_MAX/NAME_MAX. Returns it normalized (`..` and `.` folded).
 */
export function checkPath(path: unknown): string {
  if (typeof path !== 'string' || path.length === 0) throw new FsRefusal('invalid_path', 'refused: the path must be a non-empty string');
  if (path.includes('\0')) throw new FsRefusal('invalid_path', `refused: the path contains a NUL byte: ${showPath(path)}`);
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw new FsRefusal('invalid_path', `refused: the path is too long (over ${MAX_PATH_BYTES} bytes): ${showPath(path)}`);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) throw new FsRefusal('invalid_path', `refused: expected a file path, not a URL: ${showPath(path)}`);
  if (!isAbsolute(path)) {
    const windowsStyle = process.platform !== 'win32' && win32.isAbsolute(path);
    throw new FsRefusal('invalid_path', `refused: the path must be absolute${windowsStyle ? ' (this is a Windows-style path)' : ''}: ${showPath(path)}`);
  }
  const normalized = resolvePath(path);
  for (const name of normalized.split(sep)) {
    if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw new FsRefusal('invalid_path', `refused: a name in the path is too long (over ${MAX_NAME_BYTES} bytes): ${showPath(path)}`);
  }
  return normalized;
}

/** A folder held still while a file in it is created, renamed or removed. */
interface DirAnchor {
  /** The path of `name` inside the held folder. */
  child(name: string): string;
  /** Throws unless the held folder is still inside the roots (and, without /proc, still at its path). */
  verify(): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface ReadOptions {
  /** Refuse files larger than this. */
  maxBytes: number;
}

export interface WriteOptions {
  /** Create missing parent folders (each one confined as it is made). */
  createParents?: boolean;
}

export class ConfinedFs {
  private constructor(readonly roots: readonly string[]) {}

  /** Roots are taken as real paths once; a root later swapped for a link is then simply outside. */
  static async open(dirs: readonly string[]): Promise<ConfinedFs> {
    const roots: string[] = [];
    for (const d of dirs) roots.push(await realpath(d));
    return new ConfinedFs(roots);
  }

  /** Whether a real (resolved) path lies in one of the roots. */
  contains(real: string): boolean {
    return this.roots.some((r) => real === r || real.startsWith(r.endsWith(sep) ? r : r + sep));
  }

  private outside(path: string): FsRefusal {
    return new FsRefusal('outside', `refused: ${showPath(path)} is outside the session's folders`);
  }

  /**
   * The real path `path` names now, and whether it exists. A file that does not exist yet is judged by
   * the real path of its nearest existing ancestor; a dangling symlink is refused (where a write would
   * land is up to its target).
   */
  async resolve(path: unknown): Promise<{ real: string; exists: boolean }> {
    const normalized = checkPath(path);
    const tail: string[] = [];
    let current = normalized;
    for (;;) {
      try {
        const real = join(await realpath(current), ...tail);
        if (!this.contains(real)) throw this.outside(normalized);
        return { real, exists: tail.length === 0 };
      } catch (e) {
        if (errnoOf(e) !== 'ENOENT') throw refusalFor(e, normalized);
      }
      const link = await lstat(current).then(
        (i) => i.isSymbolicLink(),
        () => false,
      );
      if (link) throw new FsRefusal('dangling_symlink', `refused: ${showPath(current)} is a symbolic link to a missing target`);
      const parent = dirname(current);
      if (parent === current) throw this.outside(normalized);
      tail.unshift(basename(current));
      current = parent;
    }
  }

  /** A regular file's bytes. Missing: `not_found`. Never blocks on a FIFO or device (see the module doc). */
  async readFile(path: unknown, options: ReadOptions): Promise<{ real: string; data: Buffer }> {
    const { real, exists } = await this.resolve(path);
    if (!exists) throw refusalFor(Object.assign(new Error(), { code: 'ENOENT' }), real);
    const info = await lstat(real).catch((e: unknown) => {
      throw refusalFor(e, real);
    });
    if (!info.isFile()) throw notRegular(real, info);
    let fh: FileHandle;
    try {
      fh = await open(real, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (e) {
      throw refusalFor(e, real);
    }
    try {
      const opened = await fh.stat();
      if (!opened.isFile()) throw notRegular(real, opened);
      // The path may have been redirected between realpath and open. Linux: the kernel says where the
      // opened file is. Elsewhere: the confined path must still name the inode that was opened (a swap
      // between that realpath and stat can still slip through; see the module doc).
      if (PROC_FD) {
        const where = await readlink(`${PROC_FD}/${fh.fd}`);
        if (!isAbsolute(where) || !this.contains(where)) throw this.outside(real);
      } else {
        const again = await this.resolve(real);
        const now = again.exists ? await stat(again.real).catch(() => null) : null;
        if (!now || again.real !== real || now.dev !== opened.dev || now.ino !== opened.ino) {
          throw new FsRefusal('changed', `refused: ${showPath(real)} changed while it was being opened; try again`);
        }
      }
      return { real, data: await readBounded(fh, real, options.maxBytes) };
    } catch (e) {
      throw refusalFor(e, real);
    } finally {
      await fh.close().catch(() => {});
    }
  }

  /** Like `readFile`, but a missing file (inside the roots) gives null. */
  async readFileIfExists(path: unknown, options: ReadOptions): Promise<{ real: string; data: Buffer } | null> {
    try {
      return await this.readFile(path, options);
    } catch (e) {
      if (e instanceof FsRefusal && e.reason === 'not_found') return null;
      throw e;
    }
  }

  /**
   * Replaces (or creates) a regular file atomically: a temp file is created (O_CREAT|O_EXCL|O_NOFOLLOW)
   * in the held parent folder, written, fsynced and renamed over the name. An existing symlink at the
   * path is followed only when it resolves inside the roots (the real file is replaced); the name being
   * swapped for a link later is never followed. The file keeps its permission bits.
   */
  async writeFile(path: unknown, data: string | Buffer, options: WriteOptions = {}): Promise<{ real: string }> {
    const { real, exists } = await this.resolve(path);
    const name = basename(real);
    const dir = exists ? dirname(real) : await this.parentFolder(real, options.createParents ?? false);
    const anchor = await this.anchor(dir, real);
    let tmpName: string | null = null;
    try {
      const target = anchor.child(name);
      let mode = 0o666;
      const old = await open(target, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((e: unknown) => {
        if (errnoOf(e) === 'ENOENT') return null;
        throw refusalFor(e, real);
      });
      if (old) {
        try {
          const info = await old.stat();
          if (!info.isFile()) throw notRegular(real, info);
          mode = info.mode & 0o7777;
        } finally {
          await old.close().catch(() => {});
        }
      }
      tmpName = `.switchboard-${randomBytes(8).toString('hex')}.tmp`;
      const tmp = await open(anchor.child(tmpName), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, mode);
      try {
        if (old) await tmp.chmod(mode);
        await tmp.writeFile(data);
        await tmp.sync();
      } finally {
        await tmp.close();
      }
      await anchor.verify();
      await rename(anchor.child(tmpName), target);
      tmpName = null;
      await anchor.sync();
      return { real: join(dir, name) };
    } catch (e) {
      throw refusalFor(e, real);
    } finally {
      if (tmpName) await unlink(anchor.child(tmpName)).catch(() => {});
      await anchor.close();
    }
  }

  /**
   * Removes a regular file inside the roots; false when it is already gone. A name that is now a link, a
   * folder or anything else is refused (a link is never followed, so its target is never touched).
   */
  async removeFile(path: unknown): Promise<boolean> {
    const normalized = checkPath(path);
    const name = basename(normalized);
    const { real: dir, exists } = await this.resolve(dirname(normalized));
    if (!exists) return false;
    const anchor = await this.anchor(dir, normalized).catch((e: unknown) => {
      if (e instanceof FsRefusal && (e.reason === 'not_found' || e.reason === 'not_a_folder')) return null;
      throw e;
    });
    if (!anchor) return false;
    try {
      const info = await lstat(anchor.child(name)).catch((e: unknown) => {
        if (errnoOf(e) === 'ENOENT') return null;
        throw e;
      });
      if (!info) return false;
      if (!info.isFile()) throw notRegular(normalized, info);
      await anchor.verify();
      await unlink(anchor.child(name));
      await anchor.sync();
      return true;
    } catch (e) {
      throw refusalFor(e, normalized);
    } finally {
      await anchor.close();
    }
  }

  /** The real parent folder of a missing `real` path, creating missing folders when asked (each confined). */
  private async parentFolder(real: string, create: boolean): Promise<string> {
    const want = dirname(real);
    const { real: dir, exists } = await this.resolve(want);
    if (exists) return dir;
    if (!create) throw new FsRefusal('not_found', `refused: the folder ${showPath(want)} does not exist`);
    // Walk down from the nearest existing folder, making one folder at a time and re-resolving it: a
    // link swapped in for a new folder is then seen (and refused when it leads outside).
    const missing: string[] = [];
    let probe = want;
    while (!(await this.resolve(probe)).exists) {
      missing.unshift(basename(probe));
      probe = dirname(probe);
    }
    let current = (await this.resolve(probe)).real;
    for (const name of missing) {
      const next = join(current, name);
      // Made inside the held parent, so a parent swapped meanwhile cannot put the new folder elsewhere.
      const anchor = await this.anchor(current, next);
      try {
        await mkdir(anchor.child(name)).catch((e: unknown) => {
          if (errnoOf(e) !== 'EEXIST') throw refusalFor(e, next);
        });
      } finally {
        await anchor.close();
      }
      const r = await this.resolve(next);
      const info = await stat(r.real).catch((e: unknown) => {
        throw refusalFor(e, next);
      });
      if (!info.isDirectory()) throw new FsRefusal('not_a_folder', `refused: ${showPath(next)} is not a folder`);
      current = r.real;
    }
    return current;
  }

  /** Holds the folder `dir` (a real path inside the roots); `forPath` names the request in messages. */
  private async anchor(dir: string, forPath: string): Promise<DirAnchor> {
    if (PROC_FD) {
      let fh: FileHandle;
      try {
        fh = await open(dir, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (e) {
        throw refusalFor(e, forPath);
      }
      const base = `${PROC_FD}/${fh.fd}`;
      const anchor: DirAnchor = {
        child: (name) => `${base}/${name}`,
        verify: async () => {
          // Where the held folder is now (the kernel's answer; " (deleted)" when it was removed).
          const where = await readlink(base);
          if (!isAbsolute(where) || !this.contains(where)) throw this.outside(forPath);
        },
        sync: () => fh.sync().catch(() => {}),
        close: () => fh.close().catch(() => {}),
      };
      try {
        await anchor.verify();
      } catch (e) {
        await anchor.close();
        throw e;
      }
      return anchor;
    }
    const first = await stat(dir).catch((e: unknown) => {
      throw refusalFor(e, forPath);
    });
    if (!first.isDirectory()) throw new FsRefusal('not_a_folder', `refused: a parent of ${showPath(forPath)} is not a folder`);
    return {
      child: (name) => join(dir, name),
      verify: async () => {
        const again = await this.resolve(dir);
        const now = await stat(again.real);
        if (again.real !== dir || now.dev !== first.dev || now.ino !== first.ino) {
          throw new FsRefusal('changed', `refused: a folder on the way to ${showPath(forPath)} changed; try again`);
        }
      },
      sync: async () => {},
      close: async () => {},
    };
  }
}

/** Up to `maxBytes` of an open regular file; more is refused (the size on disk is not trusted). */
async function readBounded(fh: FileHandle, path: string, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total));
    const { bytesRead } = await fh.read(buf, 0, buf.length, null);
    if (bytesRead === 0) break;
    chunks.push(buf.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) throw new FsRefusal('too_large', `refused: ${showPath(path)} is larger than ${formatBytes(maxBytes)}`);
  }
  return Buffer.concat(chunks, total);
}

function formatBytes(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
