/**
 * A worktree session in a container: the worktree's `.git` is a file naming its git folder inside the main
 * repository's (`<repo>/.git/worktrees/<name>`), which is not under the mounted folder. That repository's git
 * folder is mounted read-only at its own path, so git inside reads history, status and diffs; it cannot write
 * there (hooks, config, other branches): the review and the commit are Switchboard's, on this machine's side.
 *
 * The `.git` file is the repository's (untrusted): a folder is mounted only when it is a git folder that names
 * this worktree back (`worktrees/<name>/gitdir` is the worktree's `.git`), as `git worktree add` leaves it.
 */
import path from 'node:path';
import type { ConfinedFiles, Host } from '../host/host';

/** The main repository's git folder to mount read-only for the worktree at `folder`, or null (not a linked worktree). */
export async function worktreeCommonDir(host: Host, folder: string): Promise<string | null> {
  const files = await host.files([folder]).catch(() => null);
  const dotGit = path.posix.join(folder, '.git');
  const text = await read(files, dotGit);
  const m = text ? /^gitdir: (\/[^\n\0]+)\n?$/.exec(text) : null;
  if (!m) return null;
  const gitDir = path.posix.normalize(m[1]!.trim());
  const worktrees = path.posix.dirname(gitDir);
  if (path.posix.basename(worktrees) !== 'worktrees') return null;
  const common = path.posix.dirname(worktrees);
  if (common === '/' || folder === common || folder.startsWith(`${common}/`) || common.startsWith(`${folder}/`)) return null;
  const repo = await host.files([common]).catch(() => null);
  if (!repo) return null;
  const back = (await read(repo, path.posix.join(gitDir, 'gitdir')))?.trim();
  const head = await read(repo, path.posix.join(common, 'HEAD'));
  return back === dotGit && head !== null ? common : null;
}

async function read(files: ConfinedFiles | null, file: string): Promise<string | null> {
  const got = await files?.readFileIfExists(file, { maxBytes: 64 * 1024 }).catch(() => null);
  return got ? got.data.toString('utf8') : null;
}
