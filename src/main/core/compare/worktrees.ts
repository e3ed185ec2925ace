import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CompareFile } from '../../../shared/contract/compare';
import { git } from './git';

const MAX_FILES = 500;
const MAX_TEXT_BYTES = 1_000_000;

/** Creates a worktree of `repo` at `commit` on a new branch. */
export async function addWorktree(repo: string, path: string, branch: string, commit: string): Promise<void> {
  await git(repo, ['worktree', 'add', '-b', branch, path, commit]);
}

/** Removes the worktree (even with changes) and its branch. */
export async function removeWorktree(repo: string, path: string, branch: string): Promise<void> {
  try {
    await git(repo, ['worktree', 'remove', '--force', path]);
  } catch {
    rmSync(path, { recursive: true, force: true });
    await git(repo, ['worktree', 'prune']).catch(() => undefined);
  }
  await git(repo, ['branch', '-D', branch]).catch(() => undefined);
}

/** Stages everything in the worktree so committed, modified and new files all count as the run's change. */
async function stageAll(worktree: string): Promise<void> {
  await git(worktree, ['add', '-A']);
}

const isText = (buf: Buffer) => !buf.subarray(0, 8000).includes(0);

function readWorktreeText(worktree: string, path: string): string | null {
  const file = join(worktree, path);
  if (!existsSync(file) || statSync(file).size > MAX_TEXT_BYTES) return null;
  const buf = readFileSync(file);
  return isText(buf) ? buf.toString('utf8') : null;
}

async function readBaseText(worktree: string, base: string, path: string): Promise<string | null> {
  try {
    const size = Number((await git(worktree, ['cat-file', '-s', `${base}:${path}`])).trim());
    if (size > MAX_TEXT_BYTES) return null;
    const text = await git(worktree, ['show', `${base}:${path}`]);
    return text.includes('\0') ? null : text;
  } catch {
    return null;
  }
}

/** The files a run changed relative to `base`, with old and new text for the diff view. */
export async function diffWorktree(worktree: string, base: string): Promise<{ files: CompareFile[]; truncated: boolean }> {
  await stageAll(worktree);
  const status = await git(worktree, ['diff', '--cached', '--name-status', '-M', '-z', base]);
  const numstat = await git(worktree, ['diff', '--cached', '--numstat', '-M', '-z', base]);
  const counts = new Map<string, { additions: number; deletions: number }>();
  // numstat -z: "add\tdel\tpath\0" or, for renames, "add\tdel\t\0old\0new\0".
  const ns = numstat.split('\0');
  for (let i = 0; i < ns.length; i++) {
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/.exec(ns[i]!);
    if (!m) continue;
    let path = m[3]!;
    if (path === '') {
      path = ns[i + 2] ?? '';
      i += 2;
    }
    counts.set(path, { additions: m[1] === '-' ? 0 : Number(m[1]), deletions: m[2] === '-' ? 0 : Number(m[2]) });
  }
  const parts = status.split('\0').filter((p) => p !== '');
  const files: CompareFile[] = [];
  let truncated = false;
  for (let i = 0; i < parts.length; ) {
    const code = parts[i++]!;
    const renamed = code.startsWith('R');
    const oldPath = parts[i++]!;
    const newPath = renamed ? parts[i++]! : oldPath;
    if (files.length >= MAX_FILES) {
      truncated = true;
      break;
    }
    const kind = renamed ? 'renamed' : code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified';
    files.push({
      path: newPath,
      status: kind,
      oldText: kind === 'added' ? '' : await readBaseText(worktree, base, oldPath),
      newText: kind === 'deleted' ? '' : readWorktreeText(worktree, newPath),
      ...(counts.get(newPath) ?? { additions: 0, deletions: 0 }),
    });
  }
  return { files, truncated };
}

/**
 * Applies the worktree's change (relative to `base`) to the main checkout's working tree. Checked first:
 * when any hunk does not apply (the checkout changed those lines since), nothing is touched.
 */
export async function applyWorktree(worktree: string, base: string, repo: string): Promise<string[]> {
  await stageAll(worktree);
  const patch = await git(worktree, ['diff', '--cached', '--binary', '-M', base]);
  if (!patch.trim()) return [];
  const names = (await git(worktree, ['diff', '--cached', '--name-only', '-M', base])).split('\n').filter(Boolean);
  await git(repo, ['apply', '--check', '--whitespace=nowarn', '-'], { input: patch });
  await git(repo, ['apply', '--whitespace=nowarn', '-'], { input: patch });
  return names;
}
