import { useCallback, useEffect, useState } from 'react';
import type { LeftoverWorktree } from '@shared/contract/worktrees';
import { useApi, useEvent } from '../../../app/api-context';
import { confirmDialog } from '../../../ui/confirm';
import { VisibleText } from '../../../ui/VisibleText';
import { describeWorktreeError } from '../../agents';

const ORIGIN: Record<LeftoverWorktree['origin'], string> = { session: 'worktree session', compare: 'compare run', old_compare: 'earlier compare run' };
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
const nameOf = (l: LeftoverWorktree) => l.branch ?? l.path ?? l.repo;
/** What it would lose is not known to be nothing (a problem reading it counts as not known). */
const loses = (l: LeftoverWorktree) => l.unmerged.length > 0 || l.files.length > 0 || l.problem !== undefined;

/** What removing it loses, as the confirmation lists it: the commits, then the uncommitted files. */
const lostLines = (l: LeftoverWorktree) => [...l.unmerged.map((c) => `${c.sha.slice(0, 8)} ${c.subject}`), ...l.files.map((f) => `${f.code.trim() || '?'} ${f.path}`)];

/**
 * Settings → Worktrees: the worktrees Switchboard made that no open session works in (worktree sessions', compare
 * runs', and those an earlier compare mode left in the repositories), with what removing each would lose; removed
 * one by one after a confirmation that lists that, or all those that lose nothing at once.
 */
export function LeftoverWorktrees() {
  const api = useApi();
  const [list, setList] = useState<LeftoverWorktree[] | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(async () => {
    const r = await api.call('worktrees.leftovers', {});
    if (r.ok) setList(r.value.leftovers);
    else setNote(r.error.message);
  }, [api]);
  useEffect(() => void load(), [load]);
  useEvent('worktrees.changed', () => void load(), [load]);

  /** Removes `l` as the user confirmed it; a message when it was not removed. */
  const removeOne = async (l: LeftoverWorktree): Promise<string | null> => {
    const r = await api.call('worktrees.removeLeftover', { repo: l.repo, path: l.path, branch: l.branch, unmerged: l.unmerged.map((c) => c.sha), files: l.files.map((f) => f.path) });
    if (!r.ok) return `${nameOf(l)}: ${r.error.message}`;
    if (r.value.ok) return null;
    if (r.value.error.kind === 'changed_since_confirmation') return `${nameOf(l)} has more unmerged work than you confirmed (shown now): it was kept.`;
    return `${nameOf(l)}: ${describeWorktreeError(r.value.error)}`;
  };

  const remove = async (l: LeftoverWorktree) => {
    const lost = lostLines(l);
    const yes = await confirmDialog({
      title: `Remove ${nameOf(l)}?`,
      message: loses(l)
        ? `The worktree and its branch are removed, and with them ${[l.unmerged.length ? `${plural(l.unmerged.length, 'commit')} on no other branch` : '', l.files.length ? plural(l.files.length, 'uncommitted change') : ''].filter(Boolean).join(' and ')}:`
        : 'The worktree and its branch are removed. Nothing unmerged is lost.',
      details: lost,
      confirm: 'Remove',
      danger: loses(l),
    });
    if (!yes) return;
    setBusy(true);
    setNote(await removeOne(l));
    setBusy(false);
    await load();
  };

  const clean = (list ?? []).filter((l) => !loses(l));
  const removeClean = async () => {
    const yes = await confirmDialog({
      title: `Remove ${plural(clean.length, 'leftover worktree')}?`,
      message: 'Each worktree and its branch are removed. None holds unmerged commits or uncommitted changes.',
      details: clean.map((l) => `${nameOf(l)}${l.path ? ` (${l.path})` : ''}`),
      confirm: 'Remove',
    });
    if (!yes) return;
    setBusy(true);
    const problems: string[] = [];
    for (const l of clean) {
      const problem = await removeOne(l);
      if (problem) problems.push(problem);
    }
    setNote(problems.length ? problems.join('\n') : null);
    setBusy(false);
    await load();
  };

  return (
    <div className="settings-leftovers" data-testid="settings-leftovers">
      <h3>Leftover worktrees</h3>
      <p className="muted small">Worktrees Switchboard made that no open session works in, and the branches of earlier compare runs.</p>
      {list === null ? (
        <p className="muted small">Looking…</p>
      ) : list.length === 0 ? (
        <p className="muted small" data-testid="settings-leftovers-empty">
          None.
        </p>
      ) : (
        <>
          <ul className="settings-worktree-repos" data-testid="settings-leftovers-list">
            {list.map((l) => (
              <li key={`${l.repo}\0${l.path ?? ''}\0${l.branch ?? ''}`} data-testid="settings-leftover" data-branch={l.branch ?? ''}>
                <div className="settings-worktree-repo-head">
                  <code>{l.branch ? <VisibleText text={l.branch} /> : '(detached)'}</code>
                  <span className="muted small">{ORIGIN[l.origin]}</span>
                  <span className="spacer" />
                  <button className="link-button" disabled={busy} onClick={() => void remove(l)} data-testid="settings-leftover-remove">
                    Remove
                  </button>
                </div>
                <div className="muted small">
                  {l.path ? <VisibleText text={l.missing ? `${l.path} (folder gone)` : l.path} /> : 'only the branch is left'} · <VisibleText text={l.repo} />
                </div>
                {l.problem && (
                  <div className="error small" data-testid="settings-leftover-problem">
                    Could not be read: <VisibleText text={l.problem} />
                  </div>
                )}
                <div className="small" data-testid="settings-leftover-loses">
                  {l.problem && !l.unmerged.length && !l.files.length
                    ? 'what removing it loses is unknown'
                    : loses(l)
                    ? [l.unmerged.length ? `${plural(l.unmerged.length, 'unmerged commit')}` : '', l.files.length ? plural(l.files.length, 'uncommitted change') : ''].filter(Boolean).join(', ')
                    : 'nothing unmerged'}
                </div>
              </li>
            ))}
          </ul>
          {clean.length > 0 && (
            <button disabled={busy} onClick={() => void removeClean()} data-testid="settings-leftovers-remove-clean">
              Remove the {plural(clean.length, 'one')} with nothing unmerged
            </button>
          )}
        </>
      )}
      {note && (
        <div className="error small" role="alert" style={{ whiteSpace: 'pre-line' }}>
          {note}
        </div>
      )}
    </div>
  );
}
