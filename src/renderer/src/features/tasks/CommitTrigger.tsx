import { useEffect, useState } from 'react';
import { useApi } from '../../app/api-context';

/**
 * "Also run on each new commit to <branch>": the branch is the folder's checked-out one unless the user names
 * another. `branch` null: off.
 */
export function CommitTrigger({ folder, branch, onChange }: { folder: string; branch: string | null; onChange(branch: string | null): void }) {
  const api = useApi();
  const [current, setCurrent] = useState<string | null>(null);
  useEffect(() => {
    setCurrent(null);
    const path = folder.trim();
    if (!path.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(path)) return;
    let live = true;
    const timer = setTimeout(() => {
      void api.call('worktrees.list', { repo: path }).then((r) => {
        if (live && r.ok && r.value.ok) setCurrent(r.value.value.currentBranch);
      });
    }, 300);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, folder]);
  // Switched on before the folder's branch was read: it is filled in once it is.
  useEffect(() => {
    if (current && branch === '') onChange(current);
  }, [current]);
  return (
    <fieldset className="task-commit-trigger">
      <legend>When the branch moves</legend>
      <label>
        <input type="checkbox" checked={branch !== null} onChange={(e) => onChange(e.target.checked ? (current ?? '') : null)} data-testid="task-on-commit" /> Also run on each new
        commit to the branch
      </label>
      {branch !== null && (
        <>
          <label>
            Branch <input value={branch} onChange={(e) => onChange(e.target.value)} placeholder={current ?? 'main'} maxLength={200} data-testid="task-on-commit-branch" />
          </label>
          <p className="muted small" data-testid="task-on-commit-text">
            {branch.trim()
              ? `Runs once for each new commit to ${branch.trim()} while Switchboard is open, after the branch has stayed put for a minute (a push of many commits is one run; never a second run while one is going).`
              : 'Name the branch to watch.'}
          </p>
        </>
      )}
    </fieldset>
  );
}
