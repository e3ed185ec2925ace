import type { MergeStrategy } from '../../../shared/contract/worktrees';
import type { Host } from '../host/host';
import { gitRun } from './git';
import { installedHook } from './hooks';
import type { Outcome } from './publish';
import { headsFromFiles } from './ref-files';
import { changedFiles, commitsBetween, mainCheckoutHeads, overwrittenFiles, revParse, trialMerge } from './repo-git';

/** How a merge commit is made in the base's checkout: as the user's own `git merge --no-ff` (the bench's baseline too). */
export const MERGE_COMMIT = ['merge', '--no-ff'] as const;

export interface MergeTarget {
  repo: string;
  /** The session's worktree (rebase happens there). */
  worktree: string;
  branch: string;
  base: string;
}

/**
 * Merges `branch` into `base`. First checked without touching any checkout (`git merge-tree`): a conflict is
 * refused with the files listed. Then the base moves: where it is checked out, by git itself in that checkout
 * (`merge --ff-only` or `merge --no-ff`, its hooks running, and git refusing when uncommitted changes there are
 * in the way); where it is not, by moving the branch ref from the commit checked to the new one.
 */
export async function mergeIntoBase(host: Host, t: MergeTarget, strategy: MergeStrategy, message?: string): Promise<Outcome<{ base: string; head: string; strategy: MergeStrategy }>> {
  for (let attempt = 1; ; attempt++) {
    const out = await mergeOnce(host, t, strategy, message);
    // The base moved between the check and the merge (a commit in its checkout): checked again on its new commit.
    if (out !== 'base_moved') return out;
    if (attempt === 3) return { ok: false, error: { kind: 'git_failed', command: 'git merge', output: `${t.base} kept moving while the merge was checked; nothing was merged`, hook: null } };
  }
}

async function mergeOnce(host: Host, t: MergeTarget, strategy: MergeStrategy, message?: string): Promise<Outcome<{ base: string; head: string; strategy: MergeStrategy }> | 'base_moved'> {
  // The two commits first, and where the base is checked out (from the repository's files, or one git process);
  // everything after works on those commits, not on names that could move.
  const heads = await mainCheckoutHeads(host, t.repo, [t.base, t.branch], [t.base]);
  const baseSha = heads.get(t.base)?.sha;
  if (!baseSha) return { ok: false, error: { kind: 'no_base', base: t.base } };
  let branchSha = heads.get(t.branch)?.sha;
  if (!branchSha) return { ok: false, error: { kind: 'git_failed', command: 'git rev-parse', output: `no branch ${t.branch}`, hook: null } };
  const checkout = heads.get(t.base)!.checkout;
  // A merge commit made in the checkout needs no ancestry question: git merge itself finds nothing to merge.
  const inCheckout = strategy === 'merge' && checkout !== null;
  const [mergeBase, trial] = await Promise.all([
    inCheckout ? null : gitRun(host, t.repo, ['merge-base', baseSha, branchSha]).then((o) => o.stdout.trim()),
    trialMerge(host, t.repo, baseSha, branchSha, true),
  ]);
  if (mergeBase === branchSha) return { ok: false, error: { kind: 'nothing_to_merge', base: t.base, branch: t.branch } };
  const fastForward = mergeBase === baseSha;
  if (strategy === 'ff' && !fastForward) return { ok: false, error: { kind: 'not_fast_forward', base: t.base, branch: t.branch } };
  if (trial.conflicts.length > 0) return { ok: false, error: { kind: 'conflict', files: trial.conflicts, base: t.base, branch: t.branch } };
  const trialTree: string | null = fastForward ? null : trial.tree;
  if (inCheckout) return mergeInCheckout(host, checkout, t, baseSha, branchSha, message?.trim() || `Merge branch '${t.branch}'`);

  let target: string;
  switch (strategy) {
    case 'ff':
      target = branchSha;
      break;
    case 'rebase': {
      if (!fastForward) {
        const dirty = await changedFiles(host, t.worktree);
        if (dirty.length > 0) return { ok: false, error: { kind: 'dirty', path: t.worktree, files: dirty.map((f) => f.path) } };
        const out = await gitRun(host, t.worktree, ['rebase', baseSha]);
        if (out.code !== 0) {
          const conflicts = (await gitRun(host, t.worktree, ['diff', '--name-only', '-z', '--diff-filter=U'])).stdout.split('\0').filter(Boolean);
          await gitRun(host, t.worktree, ['rebase', '--abort']);
          if (conflicts.length > 0) return { ok: false, error: { kind: 'conflict', files: conflicts, base: t.base, branch: t.branch } };
          return { ok: false, error: { kind: 'git_failed', command: 'git rebase', output: out.output, hook: await installedHook(host, t.worktree, ['pre-rebase']) } };
        }
        branchSha = (await revParse(host, t.worktree, 'HEAD')) ?? branchSha;
      }
      target = branchSha;
      break;
    }
    case 'squash': {
      const subjects = (await commitsBetween(host, t.repo, baseSha, branchSha)).map((c) => `* ${c.subject}`).reverse();
      const msg = message?.trim() || `Squashed branch '${t.branch}'\n\n${subjects.join('\n')}`;
      const tree = trialTree ?? (await gitRun(host, t.repo, ['rev-parse', `${branchSha}^{tree}`])).stdout.trim();
      const made = await gitRun(host, t.repo, ['commit-tree', tree, '-p', baseSha, '-F', '-'], { input: msg });
      if (made.code !== 0) return { ok: false, error: { kind: 'git_failed', command: 'git commit-tree', output: made.output, hook: null } };
      target = made.stdout.trim();
      break;
    }
    case 'merge': {
      const msg = message?.trim() || `Merge branch '${t.branch}'`;
      const tree = trialTree ?? (await gitRun(host, t.repo, ['rev-parse', `${branchSha}^{tree}`])).stdout.trim();
      const made = await gitRun(host, t.repo, ['commit-tree', tree, '-p', baseSha, '-p', branchSha, '-F', '-'], { input: msg });
      if (made.code !== 0) return { ok: false, error: { kind: 'git_failed', command: 'git commit-tree', output: made.output, hook: null } };
      target = made.stdout.trim();
      break;
    }
  }
  return moveBase(host, t, checkout, baseSha, target, strategy);
}

/** Fast-forwards the base to `target`: in its checkout by git itself, else the ref (only if it still is `from`). */
async function moveBase(host: Host, t: MergeTarget, checkout: string | null, from: string, target: string, strategy: MergeStrategy): Promise<Outcome<{ base: string; head: string; strategy: MergeStrategy }>> {
  if (checkout) {
    const out = await gitRun(host, checkout, ['merge', '--ff-only', target]);
    if (out.code !== 0) return refused(host, checkout, 'git merge --ff-only', out.output);
  } else {
    const out = await gitRun(host, t.repo, ['update-ref', '-m', `switchboard: ${strategy} ${t.branch}`, `refs/heads/${t.base}`, target, from]);
    if (out.code !== 0) return { ok: false, error: { kind: 'git_failed', command: 'git update-ref', output: out.output, hook: null } };
  }
  return { ok: true, value: { base: t.base, head: target, strategy } };
}

/**
 * A merge commit made by git in the base's checkout (its merge hooks run); a hook's refusal is undone there.
 * 'base_moved' when the checkout's branch is no longer the commit checked (nothing done then).
 */
async function mergeInCheckout(host: Host, checkout: string, t: MergeTarget, baseSha: string, branchSha: string, message: string): Promise<Outcome<{ base: string; head: string; strategy: MergeStrategy }> | 'base_moved'> {
  // The base as its files say now (null: they cannot say; git is not asked, the check is only cheap insurance).
  const baseNow = async () => {
    const heads = await headsFromFiles(host, t.repo, [t.base], { checkouts: [t.base] });
    return heads && (heads.get(t.base) ?? { sha: '', checkout: null });
  };
  // Still the commit checked, still checked out there (a commit or a switch of branch in the meantime: checked again).
  const before = await baseNow();
  if (before && (before.sha !== baseSha || before.checkout !== checkout)) return 'base_moved';
  const out = await gitRun(host, checkout, [...MERGE_COMMIT, '-m', message, branchSha]);
  if (out.code !== 0) {
    // A hook that refused the merge commit leaves the merge in progress: put the checkout back as it was.
    if ((await gitRun(host, checkout, ['rev-parse', '-q', '--verify', 'MERGE_HEAD'])).code === 0) await gitRun(host, checkout, ['merge', '--abort']);
    return refused(host, checkout, 'git merge', out.output);
  }
  const head = (await baseNow())?.sha || ((await revParse(host, checkout, 'HEAD')) ?? '');
  // "Already up to date": the branch was merged before, and git made no commit.
  if (head === baseSha) return { ok: false, error: { kind: 'nothing_to_merge', base: t.base, branch: t.branch } };
  return { ok: true, value: { base: t.base, head, strategy: 'merge' } };
}

async function refused(host: Host, checkout: string, command: string, output: string): Promise<Outcome<never>> {
  const files = overwrittenFiles(output);
  if (files.length > 0) return { ok: false, error: { kind: 'dirty', path: checkout, files } };
  return { ok: false, error: { kind: 'git_failed', command, output, hook: await installedHook(host, checkout, ['pre-merge-commit', 'commit-msg', 'post-merge']) } };
}
