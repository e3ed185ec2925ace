import { MAX_DIFF_CHARS } from '../../../shared/delegation';
import type { Host } from '../host/host';
import { gitOwn } from './git';
import { changedFiles } from './repo-git';

/** Untracked files whose content a diff shows at most (the others are listed). */
const MAX_UNTRACKED_DIFFS = 50;

export interface FolderChanges {
  files: Array<{ path: string; change: string }>;
  diff: string;
  truncated: boolean;
}

const CHANGE: Record<string, string> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'type changed' };

/**
 * What changed in a git folder since `base` (a commit): committed and uncommitted, untracked files too, as git's
 * own unified diff (Switchboard's guarded git: no driver, pager or hook the repository names runs). Bounded.
 */
export async function folderChanges(host: Host, cwd: string, base: string): Promise<FolderChanges> {
  const files: FolderChanges['files'] = [];
  const names = await gitOwn(host, cwd, ['diff', '--name-status', '-z', '--no-renames', base, '--']);
  if (names.code !== 0) throw new Error(`git diff failed: ${names.output.slice(0, 300)}`);
  const fields = names.stdout.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) files.push({ path: fields[i + 1]!, change: CHANGE[fields[i]![0]!] ?? 'changed' });
  const untracked = (await changedFiles(host, cwd)).filter((f) => f.code === '??').map((f) => f.path);
  for (const path of untracked) files.push({ path, change: 'added' });
  let diff = (await gitOwn(host, cwd, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', base, '--'], { maxBuffer: 4 * MAX_DIFF_CHARS })).stdout;
  for (const path of untracked.slice(0, MAX_UNTRACKED_DIFFS)) {
    if (diff.length > MAX_DIFF_CHARS) break;
    // Exit code 1 means "they differ": the diff is in stdout.
    diff += (await gitOwn(host, cwd, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-index', '--', '/dev/null', path], { maxBuffer: 4 * MAX_DIFF_CHARS })).stdout;
  }
  const truncated = diff.length > MAX_DIFF_CHARS || untracked.length > MAX_UNTRACKED_DIFFS;
  return { files, diff: diff.length > MAX_DIFF_CHARS ? diff.slice(0, MAX_DIFF_CHARS) : diff, truncated };
}
