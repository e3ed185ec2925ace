import { useEffect, useState } from 'react';
import type { RepoBranches, WorktreeError } from '@shared/contract/worktrees';
import { DEFAULT_REPO_WORKTREE_SETTING, suggestBranchName } from '@shared/contract/worktrees';
import type { Api } from '../../ipc/client';
import { useSetting } from '../../app/settings';
import { RepoWorktreeFields } from './RepoWorktreeFields';
import { basename } from '../../ui/format';
import { VisibleText, visibleText } from '../../ui/VisibleText';

/** Where a new session works: the folder itself, a new worktree on a new branch, or an existing worktree. */
export type Where =
  | { kind: 'here' }
  | { kind: 'new'; branch: string; branchEdited: boolean; base: string; prompt: string }
  | { kind: 'existing'; path: string };


/** A worktree error in a sentence. */
export function describeWorktreeError(e: WorktreeError): string {
  switch (e.kind) {
    case 'not_a_repo':
      return `${e.path} is not in a git repository: ${e.message}`;
    case 'unknown_worktree':
      return `${e.path} is not a worktree Switchboard knows.`;
    case 'outside_folder':
      return `${e.path} is not inside the worktrees folder ${e.folder} (Settings → Worktrees), or that folder is inside the repository or the data folder.`;
    case 'branch_exists':
      return `A branch named ${visibleText(e.branch)} already exists.`;
    case 'invalid_branch':
      return `${visibleText(e.branch)} is not a valid branch name. ${e.message}`;
    case 'no_base':
      return `There is no branch ${visibleText(e.base)}.`;
    case 'path_exists':
      return `${e.path} already exists.`;
    case 'conflict':
      return `Merging ${visibleText(e.branch)} into ${visibleText(e.base)} would conflict in ${e.files.length} file${e.files.length === 1 ? '' : 's'}; nothing was changed.`;
    case 'dirty':
      return `Uncommitted changes in ${e.path} are in the way (${e.files.join(', ')}); nothing was changed.`;
    case 'not_fast_forward':
      return `${visibleText(e.base)} has commits that ${visibleText(e.branch)} does not: a fast-forward is not possible. Choose merge, squash or rebase.`;
    case 'nothing_to_commit':
      return 'Nothing to commit in the chosen files.';
    case 'nothing_to_merge':
      return `${visibleText(e.base)} already has everything on ${visibleText(e.branch)}.`;
    case 'no_remote':
      return e.message;
    case 'push_rejected':
      return `The remote refused the push (it is never forced): ${e.output}`;
    case 'changed_since_confirmation':
      return e.files ? 'More would be lost than you confirmed (new commits or changed files); confirm again.' : 'New commits were made since you confirmed; confirm again.';
    case 'no_draft':
      return `No draft from the agent: ${e.message}`;
    case 'git_failed':
      return `${e.command} failed${e.hook ? ` (the ${e.hook} hook)` : ''}: ${e.output}`;
  }
}

/** The repository of `folder` on the machine `hostId` (null: not a git repository), fetched as the folder changes. */
export function useRepo(api: Api, folder: string, hostId?: string): RepoBranches | null {
  const [repo, setRepo] = useState<RepoBranches | null>(null);
  useEffect(() => {
    if (!folder.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(folder)) {
      setRepo(null);
      return;
    }
    let stale = false;
    const t = setTimeout(() => {
      void api.call('worktrees.list', { repo: folder, ...(hostId ? { hostId } : {}) }).then((r) => {
        if (!stale) setRepo(r.ok && r.value.ok ? r.value.value : null);
      });
    }, 250);
    return () => {
      stale = true;
      clearTimeout(t);
    };
  }, [api, folder, hostId]);
  return repo;
}

/** The "Where the session works" part of the new-session form. */
export function WhereField({ repo, where, onChange, remote = false }: { repo: RepoBranches | null; where: Where; onChange(w: Where): void; remote?: boolean }) {
  const repos = useSetting('worktrees.repos');
  // The per-repository settings are of this machine's repositories (keyed by their paths here).
  const setting = repo && !remote ? { ...DEFAULT_REPO_WORKTREE_SETTING, ...(repos[repo.repo] ?? {}) } : DEFAULT_REPO_WORKTREE_SETTING;
  const [settingsOpen, setSettingsOpen] = useState(false);
  const defaultBase = repo?.currentBranch ?? repo?.branches[0]?.name ?? 'main';
  const newWhere = (prompt = ''): Where => ({ kind: 'new', branch: suggestBranchName(prompt), branchEdited: false, base: defaultBase, prompt });

  // The repository's default ("always a new worktree") once it is known.
  useEffect(() => {
    if (!repo) return onChange({ kind: 'here' });
    onChange(setting.alwaysNewWorktree ? newWhere() : { kind: 'here' });
  }, [repo?.repo]);

  if (!repo) return null;
  const existing = repo.worktrees.filter((w) => !w.main && w.branch);

  return (
    <fieldset className="where-field" data-testid="where-field">
      <legend>Where the session works</legend>
      <label className="radio">
        <input type="radio" name="where" checked={where.kind === 'here'} onChange={() => onChange({ kind: 'here' })} data-testid="where-here" />
        This folder
      </label>
      <label className="radio">
        <input type="radio" name="where" checked={where.kind === 'new'} onChange={() => onChange(newWhere())} data-testid="where-new" />
        A new worktree on a new branch
      </label>
      {where.kind === 'new' && (
        <div className="where-detail">
          <label className="field">
            <span>First message (optional; the branch name is suggested from it)</span>
            <textarea
              rows={2}
              value={where.prompt}
              onChange={(e) => onChange({ ...where, prompt: e.target.value, branch: where.branchEdited ? where.branch : suggestBranchName(e.target.value) })}
              data-testid="where-prompt"
            />
          </label>
          <div className="where-row">
            <label className="field">
              <span>Branch</span>
              <input value={where.branch} spellCheck={false} onChange={(e) => onChange({ ...where, branch: e.target.value, branchEdited: true })} data-testid="where-branch" />
            </label>
            <label className="field">
              <span>From</span>
              <select value={where.base} onChange={(e) => onChange({ ...where, base: e.target.value })} data-testid="where-base">
                {repo.branches.map((b) => (
                  <option key={b.name} value={b.name}>
                    {visibleText(b.name)}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <p className="muted small">In <VisibleText text={repo.folder} /></p>
        </div>
      )}
      <label className="radio">
        <input
          type="radio"
          name="where"
          disabled={existing.length === 0}
          checked={where.kind === 'existing'}
          onChange={() => existing[0] && onChange({ kind: 'existing', path: existing[0].path })}
          data-testid="where-existing"
        />
        An existing worktree{existing.length === 0 ? ' (none yet)' : ''}
      </label>
      {where.kind === 'existing' && (
        <select value={where.path} onChange={(e) => onChange({ kind: 'existing', path: e.target.value })} data-testid="where-existing-path" aria-label="Existing worktree">
          {existing.map((w) => (
            <option key={w.path} value={w.path}>
              {visibleText(w.branch ?? '(detached)')} — {visibleText(basename(w.path))}
            </option>
          ))}
        </select>
      )}
      {!remote && (
        <button type="button" className="link-button small" onClick={() => setSettingsOpen(!settingsOpen)} aria-expanded={settingsOpen}>
          Worktree settings for <VisibleText text={basename(repo.repo)} />
        </button>
      )}
      {settingsOpen && !remote && (
        <div className="where-settings">
          <RepoWorktreeFields repo={repo.repo} testId="where-settings" />
        </div>
      )}
    </fieldset>
  );
}

/** Makes the place `where` names: the session's folder and its first message, or why not. */
export async function preparePlace(api: Api, folder: string, where: Where, hostId?: string): Promise<{ cwd: string; prompt?: string } | { error: string }> {
  if (where.kind === 'here') return { cwd: folder };
  const on = hostId ? { hostId } : {};
  const r =
    where.kind === 'new'
      ? await api.call('worktrees.create', { kind: 'new', repo: folder, branch: where.branch.trim(), base: where.base, ...on })
      : await api.call('worktrees.create', { kind: 'existing', path: where.path, ...on });
  if (!r.ok) return { error: r.error.message };
  if (!r.value.ok) return { error: describeWorktreeError(r.value.error) };
  const prompt = where.kind === 'new' && where.prompt.trim() ? where.prompt : undefined;
  return { cwd: r.value.value.worktree.path, ...(prompt ? { prompt } : {}) };
}
