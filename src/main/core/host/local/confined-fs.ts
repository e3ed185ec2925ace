/**
 * File access confined to a set of root folders on this machine (LocalHost's `ConfinedFiles`, see ../files.ts):
 * the one place where Switchboard touches the disk on a session's behalf (an agent's fs/read_text_file and
 * fs/write_text_file, checkpoint reverts and rewinds, @-mentions, the file viewer).
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
 *   await fs.stat(path) / fs.listDir(path)                          what a path is; a folder's entries
 *
 * Checkpoint restores put back exactly what was recorded, by paths relative to the first root, following
 * no link at all (a recorded symlink is written as a link; a link in the way is replaced, never followed):
 *   await fs.placeFile(rel, data, mode) / fs.placeSymlink(rel, target) / fs.removeEntry(rel) / fs.hasEntry(rel)
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
import { lstat, mkdir, open, readdir, readlink, realpath, rename, stat, symlink, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve as resolvePath, sep, win32 } from 'node:path';
import { formatBytes } from '../../../../shared/format-bytes';
import { kindOf, readBounded } from '../../platform/regular-file';
import { FsRefusal, showPath, TEMP_PREFIX, type ConfinedFiles, type DirEntry, type EntryKind, type FileInfo, type ReadOptions, type WriteOptions } from '../files';

/** Longest path accepted (Linux PATH_MAX) and longest single name (NAME_MAX), in UTF-8 bytes. */
export const MAX_PATH_BYTES = 4096;
export const MAX_NAME_BYTES = 255;

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd') ? '/proc/self/fd' : null;

const tempName = (): string => `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`;

const errnoOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

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

export class ConfinedFs implements ConfinedFiles {
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
      const tooLarge = () => new FsRefusal('too_large', `refused: ${showPath(real)} is larger than ${formatBytes(options.maxBytes)}`);
      return { real, data: await readBounded(fh, options.maxBytes, tooLarge) };
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
   * What `path` is now. The entry is looked at inside its held parent folder (or, for a root, through a
   * descriptor of the root itself), so a link swapped in after `resolve` is seen as a change, never followed.
   */
  async stat(path: unknown): Promise<FileInfo> {
    const { real, exists } = await this.resolve(path);
    if (!exists) throw refusalFor(Object.assign(new Error(), { code: 'ENOENT' }), real);
    let info: Stats;
    if (this.roots.includes(real)) {
      const fh = await open(real, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((e: unknown) => {
        throw refusalFor(e, real);
      });
      try {
        info = await fh.stat();
      } finally {
        await fh.close().catch(() => {});
      }
    } else {
      const anchor = await this.anchor(dirname(real), real);
      try {
        info = await lstat(anchor.child(basename(real))).catch((e: unknown) => {
          throw refusalFor(e, real);
        });
      } finally {
        await anchor.close();
      }
      if (info.isSymbolicLink()) throw new FsRefusal('changed', `refused: ${showPath(real)} changed while it was being looked at; try again`);
    }
    const kind: FileInfo['kind'] = info.isFile() ? 'file' : info.isDirectory() ? 'folder' : 'other';
    return { real, kind, size: info.size, mtimeMs: info.mtimeMs };
  }

  /** A folder's entries, read through a held descriptor of the folder (checked to be inside the roots). */
  async listDir(path: unknown): Promise<DirEntry[]> {
    const { real, exists } = await this.resolve(path);
    if (!exists) throw refusalFor(Object.assign(new Error(), { code: 'ENOENT' }), real);
    const anchor = await this.anchor(real, real);
    try {
      const entries = await readdir(anchor.child('.'), { withFileTypes: true });
      return entries.map((e) => {
        const kind: EntryKind = e.isFile() ? 'file' : e.isDirectory() ? 'folder' : e.isSymbolicLink() ? 'symlink' : 'other';
        return { name: e.name, kind };
      });
    } catch (e) {
      throw refusalFor(e, real);
    } finally {
      await anchor.close();
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
      tmpName = tempName();
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

  /*
   * Paths relative to the first root where no link is followed at all, in the parents or at the name
   * (checkpoint restores put back exactly what was recorded: a symlink is written as a symlink and a
   * symlink in the way is replaced, never followed). Each parent is opened from the one above it with
   * O_DIRECTORY|O_NOFOLLOW (on Linux through /proc/self/fd, so a swap anywhere on the path cannot
   * redirect the walk).
   */

  /** Writes a regular file atomically at `rel` (absent, a regular file or a symlink now), creating parents. */
  async placeFile(rel: string, data: Buffer, mode: number): Promise<void> {
    await this.placeEntry(rel, async (temp) => {
      const fh = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, mode);
      try {
        await fh.writeFile(data);
        await fh.chmod(mode);
        await fh.sync();
      } finally {
        await fh.close();
      }
    });
  }

  /** Makes `rel` a symbolic link to `target` (the link itself; its target is never touched). */
  async placeSymlink(rel: string, target: string): Promise<void> {
    await this.placeEntry(rel, (temp) => symlink(target, temp));
  }

  /** Removes the file or symlink at `rel`; false when nothing is there. Folders and others are refused. */
  async removeEntry(rel: string): Promise<boolean> {
    const held = await this.holdTreeParent(rel, false);
    if (!held) return false;
    const { anchor, name } = held;
    try {
      const info = await this.entryAt(anchor, name, rel);
      if (!info) return false;
      await anchor.verify();
      await unlink(anchor.child(name));
      await anchor.sync();
      return true;
    } catch (e) {
      throw refusalFor(e, rel);
    } finally {
      await anchor.close();
    }
  }

  /** Whether anything is at `rel`, without following a link anywhere on the way. */
  async hasEntry(rel: string): Promise<boolean> {
    const held = await this.holdTreeParent(rel, false);
    if (!held) return false;
    try {
      return (await lstat(held.anchor.child(held.name)).catch(() => null)) !== null;
    } finally {
      await held.anchor.close();
    }
  }

  /** Removes temporary files an interrupted write left in the parent folders of these paths. */
  async removeTempFiles(rels: readonly string[]): Promise<void> {
    const dirs = new Set(rels.map((r) => treeParts(r).slice(0, -1).join('/')));
    for (const d of dirs) {
      const held = await this.holdTreeParent(d === '' ? 'x' : `${d}/x`, false).catch(() => null);
      if (!held) continue;
      try {
        const names = await readdir(held.anchor.child('.')).catch(() => [] as string[]);
        for (const n of names) if (n.startsWith(TEMP_PREFIX)) await unlink(held.anchor.child(n)).catch(() => {});
      } finally {
        await held.anchor.close();
      }
    }
  }

  private async placeEntry(rel: string, make: (temp: string) => Promise<void>): Promise<void> {
    const { anchor, name } = (await this.holdTreeParent(rel, true))!;
    let temp: string | null = null;
    try {
      await this.entryAt(anchor, name, rel);
      temp = tempName();
      await make(anchor.child(temp));
      await anchor.verify();
      await this.entryAt(anchor, name, rel);
      await rename(anchor.child(temp), anchor.child(name));
      temp = null;
      await anchor.sync();
    } catch (e) {
      throw refusalFor(e, rel);
    } finally {
      if (temp) await unlink(anchor.child(temp)).catch(() => {});
      await anchor.close();
    }
  }

  /** What is at `name` in the held folder: null, a regular file or a symlink; anything else is refused. */
  private async entryAt(anchor: DirAnchor, name: string, rel: string): Promise<Stats | null> {
    const info = await lstat(anchor.child(name)).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return null;
      throw e;
    });
    if (info && !info.isFile() && !info.isSymbolicLink()) {
      throw new FsRefusal('not_regular', `refused: ${showPath(rel)} is ${kindOf(info)} now; left as it is`);
    }
    return info;
  }

  /** Holds the parent folder of `rel` under the first root; null when a parent is missing and `create` is off. */
  private async holdTreeParent(rel: string, create: boolean): Promise<{ anchor: DirAnchor; name: string } | null> {
    const parts = treeParts(rel);
    const root = this.roots[0]!;
    let dir = root;
    let fh = await open(root, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((e: unknown) => {
      throw refusalFor(e, root);
    });
    try {
      for (const part of parts.slice(0, -1)) {
        const next = PROC_FD ? `${PROC_FD}/${fh.fd}/${part}` : join(dir, part);
        const shown = join(dir, part).slice(root.length + 1);
        const openNext = () => open(next, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        // A link opened with O_NOFOLLOW|O_DIRECTORY fails with ELOOP or ENOTDIR depending on the system.
        const notFolder = async (e: unknown): Promise<FsRefusal> => {
          if (errnoOf(e) !== 'ELOOP' && errnoOf(e) !== 'ENOTDIR') return refusalFor(e, shown);
          const link = await lstat(next).then((i) => i.isSymbolicLink(), () => false);
          return link
            ? new FsRefusal('symlink_loop', `refused: ${showPath(shown)} is a symbolic link; not followed`)
            : new FsRefusal('not_a_folder', `refused: ${showPath(shown)} is not a folder`);
        };
        let child = await openNext().catch(async (e: unknown) => {
          if (errnoOf(e) === 'ENOENT') return null;
          throw await notFolder(e);
        });
        if (!child) {
          if (!create) return null;
          await mkdir(next).catch((e: unknown) => {
            if (errnoOf(e) !== 'EEXIST') throw refusalFor(e, shown);
          });
          child = await openNext().catch(async (e: unknown) => {
            throw await notFolder(e);
          });
        }
        await fh.close();
        fh = child;
        dir = join(dir, part);
      }
      const anchor = this.anchorOf(fh, dir, rel);
      await anchor.verify();
      return { anchor, name: parts.at(-1)! };
    } catch (e) {
      await fh.close().catch(() => {});
      throw e;
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
    let fh: FileHandle;
    try {
      fh = await open(dir, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (e) {
      throw refusalFor(e, forPath);
    }
    const anchor = this.anchorOf(fh, dir, forPath);
    try {
      await anchor.verify();
    } catch (e) {
      await anchor.close();
      throw e;
    }
    return anchor;
  }

  /**
   * A held folder. Linux: addressed through its descriptor, and where it is now is the kernel's answer
   * (" (deleted)" when it was removed). Elsewhere: addressed by path, and its dev/ino must still match.
   */
  private anchorOf(fh: FileHandle, dir: string, forPath: string): DirAnchor {
    const close = () => fh.close().catch(() => {});
    const sync = () => fh.sync().catch(() => {});
    if (PROC_FD) {
      const base = `${PROC_FD}/${fh.fd}`;
      return {
        child: (name) => `${base}/${name}`,
        verify: async () => {
          const where = await readlink(base);
          if (!isAbsolute(where) || !this.contains(where)) throw this.outside(forPath);
        },
        sync,
        close,
      };
    }
    return {
      child: (name) => join(dir, name),
      verify: async () => {
        const [held, now] = await Promise.all([fh.stat(), lstat(dir).catch(() => null)]);
        const real = await realpath(dir).catch(() => null);
        if (!now || !now.isDirectory() || now.dev !== held.dev || now.ino !== held.ino || real === null || !this.contains(real)) {
          throw new FsRefusal('changed', `refused: a folder on the way to ${showPath(forPath)} changed; try again`);
        }
      },
      sync,
      close,
    };
  }
}

/** A path relative to a root, as names: never absolute, never `..`, never inside a `.git` folder. */
function treeParts(rel: string): string[] {
  const refuse = (why: string) => new FsRefusal('invalid_path', `refused: ${showPath(rel)} ${why}`);
  if (rel.includes('\0')) throw refuse('contains a NUL byte');
  if (rel.startsWith('/') || /^[A-Za-z]:/.test(rel)) throw refuse('is absolute');
  const parts = rel.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  if (parts.length === 0) throw refuse('is empty');
  if (parts.some((p) => p === '..')) throw refuse('leaves the folder');
  if (parts.some((p) => p === '.git')) throw refuse('is inside a .git folder');
  if (parts.some((p) => Buffer.byteLength(p) > MAX_NAME_BYTES)) throw refuse(`has a name over ${MAX_NAME_BYTES} bytes`);
  return parts;
}

