import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, rename, symlink, unlink } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { TEMP_PREFIX } from './shadow-repo';

/**
 * Every write and removal a restore makes in a user's folder goes through here. Each path is resolved
 * when it is written: no parent may be a symlink or resolve outside the root, the file itself is never
 * followed, non-regular files are refused, and content lands through a temporary file and a rename
 * (a crash leaves the old file or the new one, never a truncated one).
 * Kept to this one file so it can be backed by the app's shared confined-fs primitives later.
 */

export class ConfinedPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfinedPathError';
  }
}

function segmentsOf(relPath: string): string[] {
  if (relPath.includes('\0')) throw new ConfinedPathError('the path contains a NUL byte');
  if (relPath.startsWith('/') || /^[A-Za-z]:/.test(relPath)) throw new ConfinedPathError('the path is absolute');
  const parts = relPath.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  if (parts.length === 0) throw new ConfinedPathError('the path is empty');
  if (parts.some((p) => p === '..')) throw new ConfinedPathError('the path leaves the folder');
  if (parts.some((p) => p === '.git')) throw new ConfinedPathError('the path is inside a .git folder');
  return parts;
}

/**
 * Walks to the parent directory of relPath, one component at a time: each must be a real directory
 * (not a symlink) below the root's real path. Missing ones are created when `create` is set.
 */
async function confinedParent(root: string, relPath: string, create: boolean): Promise<{ dir: string; name: string } | null> {
  const parts = segmentsOf(relPath);
  const rootReal = await realpath(root);
  let dir = rootReal;
  for (const part of parts.slice(0, -1)) {
    const next = join(dir, part);
    const st = await lstat(next).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (!st) {
      if (!create) return null;
      await mkdir(next).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
      const made = await lstat(next);
      if (!made.isDirectory()) throw new ConfinedPathError(`${part} is not a folder`);
    } else if (st.isSymbolicLink()) {
      throw new ConfinedPathError(`${next.slice(rootReal.length + 1)} is a symbolic link; not followed`);
    } else if (!st.isDirectory()) {
      throw new ConfinedPathError(`${next.slice(rootReal.length + 1)} is not a folder`);
    }
    dir = next;
  }
  const resolved = await realpath(dir);
  if (resolved !== dir || !(resolved === rootReal || resolved.startsWith(rootReal + sep))) {
    throw new ConfinedPathError(`${relPath} resolves outside the folder`);
  }
  return { dir, name: parts.at(-1)! };
}

/** The file at relPath must be absent, a regular file or a symlink (replaced, never followed). */
async function checkTarget(path: string, relPath: string, allowSymlink: boolean): Promise<void> {
  const st = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (!st || st.isFile()) return;
  if (st.isSymbolicLink() && allowSymlink) return;
  const what = st.isDirectory() ? 'a folder' : st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file';
  throw new ConfinedPathError(`${relPath} is ${what} now; left as it is`);
}

const tempName = (): string => `${TEMP_PREFIX}${randomBytes(6).toString('hex')}`;

export async function writeFileConfined(root: string, relPath: string, bytes: Buffer, mode: number): Promise<void> {
  const parent = await confinedParent(root, relPath, true);
  const target = join(parent!.dir, parent!.name);
  await checkTarget(target, relPath, true);
  const temp = join(parent!.dir, tempName());
  const fh = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    await fh.writeFile(bytes);
    await fh.chmod(mode);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await unlink(temp).catch(() => {});
    throw e;
  }
  await fh.close();
  try {
    // The parent again, right before the rename: swapped for a symlink meanwhile, it is refused.
    await confinedParent(root, relPath, false);
    await checkTarget(target, relPath, true);
    await rename(temp, target);
  } catch (e) {
    await unlink(temp).catch(() => {});
    throw e;
  }
}

export async function symlinkConfined(root: string, relPath: string, linkTarget: string): Promise<void> {
  const parent = await confinedParent(root, relPath, true);
  const target = join(parent!.dir, parent!.name);
  await checkTarget(target, relPath, true);
  const temp = join(parent!.dir, tempName());
  await symlink(linkTarget, temp);
  try {
    await confinedParent(root, relPath, false);
    await rename(temp, target);
  } catch (e) {
    await unlink(temp).catch(() => {});
    throw e;
  }
}

/** Whether something is at relPath (not following symlinks, parents included). */
export async function existsConfined(root: string, relPath: string): Promise<boolean> {
  const parent = await confinedParent(root, relPath, false);
  if (!parent) return false;
  return (await lstat(join(parent.dir, parent.name)).catch(() => null)) !== null;
}

/** Removes a file or symlink (never what a symlink points to); absent is fine. */
export async function removeConfined(root: string, relPath: string): Promise<void> {
  const parent = await confinedParent(root, relPath, false);
  if (!parent) return;
  const target = join(parent.dir, parent.name);
  await checkTarget(target, relPath, true);
  await unlink(target).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
  });
}

/** Removes temporary files an interrupted restore left in the parent folders of these paths. */
export async function removeTempFiles(root: string, relPaths: readonly string[]): Promise<void> {
  const dirs = new Set(relPaths.map((p) => segmentsOf(p).slice(0, -1).join('/')));
  for (const d of dirs) {
    const parent = await confinedParent(root, d === '' ? 'x' : `${d}/x`, false).catch(() => null);
    if (!parent) continue;
    const names = await readdir(parent.dir).catch(() => []);
    for (const n of names) if (n.startsWith(TEMP_PREFIX)) await unlink(join(parent.dir, n)).catch(() => {});
  }
}
