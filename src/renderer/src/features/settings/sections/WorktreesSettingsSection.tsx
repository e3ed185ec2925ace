import { useState } from 'react';
import { useApi } from '../../../app/api-context';
import { useSetting } from '../../../app/settings';
import { confirmDialog } from '../../../ui/confirm';
import { describeWorktreeError, RepoWorktreeFields, saveRepoWorktreeSetting } from '../../agents';
import { SectionFields } from './GenericSection';
import { LeftoverWorktrees } from './LeftoverWorktrees';

/**
 * Worktree sessions: where their worktrees go, and each repository's own settings (always a new worktree, the
 * setup command and its timeout), listed, edited and removed; a repository is added by its folder. Below them, the
 * worktrees Switchboard made that no session uses any more, to clean up.
 */
export function WorktreesSettingsSection() {
  const api = useApi();
  const repos = useSetting('worktrees.repos');
  const [adding, setAdding] = useState('');
  const [error, setError] = useState<string | null>(null);
  const names = Object.keys(repos).sort((a, b) => a.localeCompare(b));

  const add = async () => {
    setError(null);
    // Any folder of the repository, or of one of its worktrees: kept under its main checkout.
    const r = await api.call('worktrees.list', { repo: adding.trim() });
    if (!r.ok) return setError(r.error.message);
    if (!r.value.ok) return setError(describeWorktreeError(r.value.error));
    const repo = r.value.value.repo;
    if (!repos[repo]) await saveRepoWorktreeSetting(api, repo, {});
    setAdding('');
  };
  const remove = async (repo: string) => {
    const yes = await confirmDialog({ title: 'Remove these settings?', message: `${repo} goes back to the defaults: no setup command, sessions in the folder itself.`, confirm: 'Remove' });
    if (yes) await saveRepoWorktreeSetting(api, repo, null);
  };

  return (
    <div className="settings-worktrees" data-testid="settings-worktrees">
      <p className="muted small">
        A session can work in its own git worktree on its own branch (chosen in the new-session form), and be finished from its Finish panel:
        commit, merge into its base, push, pull request, or discard.
      </p>
      <SectionFields section="worktrees" except={['worktrees.repos']} />
      <h3>Repositories</h3>
      {names.length === 0 ? (
        <p className="muted small" data-testid="settings-worktree-repos-empty">
          No repository has settings of its own yet.
        </p>
      ) : (
        <ul className="settings-worktree-repos" data-testid="settings-worktree-repos">
          {names.map((repo, i) => (
            <li key={repo} data-repo={repo}>
              <div className="settings-worktree-repo-head">
                <code>{repo}</code>
                <span className="spacer" />
                <button className="link-button" onClick={() => void remove(repo)} data-testid={`settings-worktree-remove-${i}`}>
                  Remove
                </button>
              </div>
              <RepoWorktreeFields repo={repo} testId={`settings-worktree-repo-${i}`} />
            </li>
          ))}
        </ul>
      )}
      <form
        className="form-actions"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <input
          value={adding}
          spellCheck={false}
          placeholder="/path/to/repository"
          aria-label="Repository folder"
          onChange={(e) => setAdding(e.target.value)}
          data-testid="settings-worktree-add-path"
        />
        <button type="submit" disabled={!adding.trim()} data-testid="settings-worktree-add">
          Add a repository
        </button>
      </form>
      {error && (
        <div className="error small" role="alert">
          {error}
        </div>
      )}
      <LeftoverWorktrees />
    </div>
  );
}
