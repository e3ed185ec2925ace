import type { MergeStrategy, WorktreeError } from '@shared/contract/worktrees';
import type { Api } from '../../ipc/client';
import { confirmDialog } from '../../ui/confirm';
import { describeWorktreeError } from '../agents';

/** The merge strategies, as the Finish panel and compare's "apply this one" offer them. */
export const STRATEGIES: Array<{ id: MergeStrategy; label: string }> = [
  { id: 'merge', label: 'Merge commit' },
  { id: 'squash', label: 'Squash into one commit' },
  { id: 'rebase', label: 'Rebase, then fast-forward' },
  { id: 'ff', label: 'Fast-forward only' },
];

/**
 * Asks before discarding a worktree, listing what would be lost (its unmerged commits, its uncommitted files).
 * The answer: the commits the user confirmed (for `worktrees.discard`), null when they said no, or why it cannot ask.
 */
export async function confirmWorktreeDiscard(api: Api, info: { path: string; branch: string; base: string }): Promise<{ unmerged: string[] } | { error: string } | null> {
  const plan = await api.call('worktrees.discardPlan', { path: info.path });
  if (!plan.ok) return { error: plan.error.message };
  if (!plan.value.ok) return { error: describeWorktreeError((plan.value as { error: WorktreeError }).error) };
  const { unmerged, files: dirty } = plan.value.value;
  const yes = await confirmDialog({
    title: `Discard ${info.branch}?`,
    message:
      unmerged.length > 0
        ? `The worktree and the branch are removed. ${unmerged.length} commit${unmerged.length === 1 ? ' is' : 's are'} not in ${info.base} and will be lost${dirty.length ? `, and ${dirty.length} uncommitted file${dirty.length === 1 ? '' : 's'}` : ''}:`
        : `The worktree and the branch are removed${dirty.length ? `, with ${dirty.length} uncommitted file${dirty.length === 1 ? '' : 's'}` : ''}. Everything committed is in ${info.base}.`,
    details: unmerged.map((c) => `${c.sha.slice(0, 8)} ${c.subject}`),
    confirm: 'Discard',
    danger: true,
  });
  return yes ? { unmerged: unmerged.map((c) => c.sha) } : null;
}
