import type { CommitRef, WorktreeFile } from '../../../shared/contract/worktrees';
import type { Host } from '../host/host';
import { TEMP_PREFIX } from '../host/files';
import { git, gitTry } from './git';
import { headsFromFiles, type Heads } from './ref-files';

/** Read-only questions to a repository (no hooks run for them). */

export interface GitWorktree {
  path: string;
  head: string;
  /** Null: detached HEAD. */
  branch: string | null;
}

/** The repository's worktrees, the main checkout first (as git lists them). */
export async function listWorktrees(host: Host, cwd: string): Promise<GitWorktree[]> {
  const out = await git(host, cwd, ['worktree', 'list', '--porcelain', '-z']);
  const list: GitWorktree[] = [];
  let cur: GitWorktree | null = null;
  for (const field of out.split('\0')) {
    if (field === '') {
      if (cur) list.push(cur);
      cur = null;
    } else if (field.startsWith('worktree ')) cur = { path: field.slice(9), head: '', branch: null };
    else if (cur && field.startsWith('HEAD ')) cur.head = field.slice(5);
    else if (cur && field.startsWith('branch ')) cur.branch = field.slice(7).replace(/^refs\/heads\//, '');
    else if (cur && field === 'bare') cur = null;
  }
  if (cur) list.push(cur);
  return list;
}

/** The main checkout's top folder, from any folder of the repository or of one of its worktrees. */
export async function mainCheckout(host: Host, cwd: string): Promise<string> {
  const first = (await listWorktrees(host, cwd))[0];
  if (!first) throw new Error(`${cwd} is in a bare repository`);
  return first.path;
}

export async function branches(host: Host, repo: string): Promise<Array<{ name: string; head: string }>> {
  const out = await git(host, repo, ['for-each-ref', '--format=%(refname:short)%00%(objectname)', 'refs/heads']);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [name = '', head = ''] = l.split('\0');
      return { name, head };
    });
}

/**
 * The commits branches point at, and the worktree each is checked out in (null: none), asked in one git process.
 * A name that is not a branch (or points at no commit) is left out.
 */
export async function branchHeads(host: Host, cwd: string, names: readonly string[]): Promise<Map<string, { sha: string; checkout: string | null }>> {
  const out = await git(host, cwd, ['for-each-ref', '--format=%(refname)%00%(objecttype)%00%(objectname)%00%(worktreepath)', ...names.map((n) => `refs/heads/${n}`)]);
  const wanted = new Set(names.map((n) => `refs/heads/${n}`));
  const heads = new Map<string, { sha: string; checkout: string | null }>();
  for (const line of out.split('\n')) {
    const [ref = '', type, sha = '', checkout = ''] = line.split('\0');
    // A pattern also matches the refs under it (refs/heads/a matches refs/heads/a/b): only the exact names count.
    if (wanted.has(ref) && type === 'commit') heads.set(ref.slice('refs/heads/'.length), { sha, checkout: checkout || null });
  }
  return heads;
}

/**
 * branchHeads of a main checkout, read from its files when they answer for certain (no git process), else asked
 * of git. `checkouts`: the branches whose checkout is wanted (default all).
 */
export async function mainCheckoutHeads(host: Host, repo: string, names: readonly string[], checkouts?: readonly string[]): Promise<Heads> {
  return (await headsFromFiles(host, repo, names, { checkouts })) ?? branchHeads(host, repo, names);
}

export async function revParse(host: Host, cwd: string, rev: string): Promise<string | null> {
  const out = await gitTry(host, cwd, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  return out.code === 0 ? out.stdout.toString('utf8').trim() : null;
}

export async function isAncestor(host: Host, cwd: string, a: string, b: string): Promise<boolean> {
  const out = await gitTry(host, cwd, ['merge-base', '--is-ancestor', a, b]);
  if (out.code > 1) throw new Error(`git merge-base failed: ${out.stderr.trim()}`);
  return out.code === 0;
}

/**
 * The commits removing `branch` would lose: those not in `base`; none when merging the branch into the base
 * would change nothing (it was squashed or rebased into it).
 */
export async function unmergedCommits(host: Host, repo: string, base: string, branch: string): Promise<CommitRef[]> {
  if (!(await revParse(host, repo, `refs/heads/${branch}`))) return [];
  const unmerged = await commitsBetween(host, repo, `refs/heads/${base}`, `refs/heads/${branch}`);
  if (unmerged.length === 0) return unmerged;
  if (await mergedAsOf(host, repo, `refs/heads/${base}`, `refs/heads/${branch}`)) return [];
  return (await mergedEarlier(host, repo, base, branch)) ? [] : unmerged;
}

/** Merging `branch` into `commit` would change nothing (its work is in `commit` already). */
async function mergedAsOf(host: Host, repo: string, commit: string, branch: string): Promise<boolean> {
  const trial = await trialMerge(host, repo, commit, branch);
  if (trial.conflicts.length > 0) return false;
  return trial.tree === (await git(host, repo, ['rev-parse', `${commit}^{tree}`])).trim();
}

/** How many of the base's later commits are tried as the one a squash (or rebase) of the branch went into. */
const SQUASH_SEARCH = 30;

/**
 * The branch was squashed (or rebased) into the base earlier, and the base has moved on since, in the same
 * files (merging it into the base's tip now would conflict, or undo the later work): one of the base's commits
 * since the branch forked, among those touching the branch's files, already held all of its work.
 */
async function mergedEarlier(host: Host, repo: string, base: string, branch: string): Promise<boolean> {
  const fork = (await gitTry(host, repo, ['merge-base', `refs/heads/${base}`, `refs/heads/${branch}`])).stdout.toString('utf8').trim();
  if (!fork) return false;
  const files = (await git(host, repo, ['diff', '--name-only', '-z', fork, `refs/heads/${branch}`, '--'])).split('\0').filter(Boolean);
  if (files.length === 0) return false;
  const paths = files.length <= 200 ? ['--', ...files] : ['--'];
  const candidates = (await git(host, repo, ['--literal-pathspecs', 'log', '--format=%H', `-n${SQUASH_SEARCH}`, `${fork}..refs/heads/${base}`, ...paths])).split('\n').filter(Boolean);
  for (const commit of candidates) if (await mergedAsOf(host, repo, commit, `refs/heads/${branch}`)) return true;
  return false;
}

/** The branch's commits on no other branch, tag or remote branch (what deleting it alone would lose), newest first. */
export async function commitsOnlyOn(host: Host, repo: string, branch: string): Promise<CommitRef[]> {
  const out = await git(host, repo, ['log', '--format=%H%x00%s%x00', `refs/heads/${branch}`, '--not', `--exclude=${branch}`, '--branches', '--tags', '--remotes', '--']);
  return parseCommits(out);
}

function parseCommits(out: string): CommitRef[] {
  const parts = out.split('\0');
  const list: CommitRef[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) list.push({ sha: parts[i]!.trim(), subject: parts[i + 1]! });
  return list;
}

/** Commits in `to` not in `from`, newest first. */
export async function commitsBetween(host: Host, cwd: string, from: string, to: string): Promise<Array<{ sha: string; subject: string }>> {
  return parseCommits(await git(host, cwd, ['log', '--format=%H%x00%s%x00', `${from}..${to}`, '--']));
}

export async function aheadBehind(host: Host, cwd: string, base: string, branch: string): Promise<{ ahead: number; behind: number }> {
  const [behind = 0, ahead = 0] = (await git(host, cwd, ['rev-list', '--left-right', '--count', '--end-of-options', `${base}...${branch}`, '--'])).trim().split(/\s+/).map(Number);
  return { ahead, behind };
}

/** Uncommitted changes (untracked files one by one, or with 'normal' an untracked folder as one entry). */
export async function changedFiles(host: Host, worktree: string, untracked: 'all' | 'normal' = 'all'): Promise<WorktreeFile[]> {
  return (await statusEntries(host, worktree, untracked)).map(({ path, code }) => ({ path, code }));
}

/**
 * The uncommitted changes, with the path a staged rename or copy came from. Switchboard's own temporary files
 * (a write's, the folder feed's sync file) come and go in a session's folder: never a change of the session's.
 */
export async function statusEntries(host: Host, worktree: string, untracked: 'all' | 'normal' = 'all'): Promise<Array<WorktreeFile & { from?: string }>> {
  // A submodule's own status would run under its own configuration (its filters): only its commit is compared.
  const out = await git(host, worktree, ['status', '--porcelain=v1', '-z', `--untracked-files=${untracked}`, '--ignore-submodules=dirty']);
  const fields = out.split('\0');
  const files: Array<WorktreeFile & { from?: string }> = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    const code = f.slice(0, 2);
    const path = f.slice(3);
    // A rename or copy is followed by the path it came from.
    const from = code[0] === 'R' || code[0] === 'C' ? (fields[++i] ?? '') : undefined;
    if (path.split('/').at(-1)!.startsWith(TEMP_PREFIX)) continue;
    files.push(from === undefined ? { path, code } : { path, code, from });
  }
  return files;
}

/** The branch's upstream ('origin/x'), if it has one. */
export async function upstreamOf(host: Host, cwd: string, branch: string): Promise<string | null> {
  // rev-parse takes no --end-of-options (git 2.39): a name that reads as an option has no upstream here.
  if (branch.startsWith('-')) return null;
  const out = await gitTry(host, cwd, ['rev-parse', '--abbrev-ref', '--symbolic-full-name', `${branch}@{upstream}`]);
  return out.code === 0 ? out.stdout.toString('utf8').trim() || null : null;
}

/**
 * Would merging `theirs` into `ours` conflict? The merged tree, or the conflicting files. Touches no checkout.
 * A merge driver the repository configures is not run (its files conflict) unless `asUser`: the merge the user
 * asked for, which their own git merge would run it for.
 */
export async function trialMerge(host: Host, repo: string, ours: string, theirs: string, asUser = false): Promise<{ tree: string; conflicts: string[] }> {
  const args = ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs];
  const out = asUser ? await host.git(args, { cwd: repo }) : await gitTry(host, repo, args);
  if (out.code > 1) throw new Error(`git merge-tree failed: ${out.stderr.trim()}`);
  const [tree = '', ...names] = out.stdout.toString('utf8').split('\0');
  return { tree: tree.trim(), conflicts: out.code === 1 ? [...new Set(names.filter(Boolean))] : [] };
}

/** The files git lists as "would be overwritten" (a tab before each) when it refuses to touch a checkout. */
export function overwrittenFiles(output: string): string[] {
  if (!/would be overwritten|untracked working tree files would be/.test(output)) return [];
  return output
    .split('\n')
    .filter((l) => l.startsWith('\t'))
    .map((l) => l.trim());
}
