import { useEffect, useState } from 'react';
import { DEFAULT_REPO_WORKTREE_SETTING, type RepoWorktreeSetting } from '@shared/contract/worktrees';
import { saveSetting, settingNow, useSetting } from '../../app/settings';
import { useApi } from '../../app/api-context';
import { useNotices } from '../../app/notices';

/** Saves a change of one repository's worktree settings (setting worktrees.repos); null: forgets them. */
export async function saveRepoWorktreeSetting(api: ReturnType<typeof useApi>, repo: string, patch: Partial<RepoWorktreeSetting> | null): Promise<void> {
  const { [repo]: current, ...others } = settingNow('worktrees.repos');
  const value = patch === null ? others : { ...others, [repo]: { ...DEFAULT_REPO_WORKTREE_SETTING, ...(current ?? {}), ...patch } };
  const error = await saveSetting(api, 'worktrees.repos', value);
  if (error) useNotices.getState().push('error', `Not saved: ${error}`);
}

/**
 * One repository's worktree settings, edited in place (the new-session form and Settings → Worktrees): always a
 * new worktree, the setup command, its timeout. Text is saved when the field is left.
 */
export function RepoWorktreeFields({ repo, testId }: { repo: string; testId: string }) {
  const api = useApi();
  const repos = useSetting('worktrees.repos');
  const setting = { ...DEFAULT_REPO_WORKTREE_SETTING, ...(repos[repo] ?? {}) };
  const [command, setCommand] = useState(setting.setupCommand);
  const [timeout, setTimeoutText] = useState(String(setting.setupTimeoutSeconds));
  useEffect(() => setCommand(setting.setupCommand), [repo, setting.setupCommand]);
  useEffect(() => setTimeoutText(String(setting.setupTimeoutSeconds)), [repo, setting.setupTimeoutSeconds]);
  const save = (patch: Partial<RepoWorktreeSetting>) => void saveRepoWorktreeSetting(api, repo, patch);
  const seconds = Number(timeout);
  const timeoutValid = Number.isInteger(seconds) && seconds >= 1 && seconds <= 24 * 3600;

  return (
    <div className="repo-worktree-fields" data-testid={testId}>
      <label className="checkbox">
        <input type="checkbox" checked={setting.alwaysNewWorktree} onChange={(e) => save({ alwaysNewWorktree: e.target.checked })} data-testid={`${testId}-always`} />
        Always start sessions of this repository in a new worktree
      </label>
      <label className="field">
        <span>Setup command, run in each new worktree (copy .env, npm ci…)</span>
        <input
          value={command}
          spellCheck={false}
          placeholder="cp ../project/.env . && npm ci"
          maxLength={4000}
          onChange={(e) => setCommand(e.target.value)}
          onBlur={() => command !== setting.setupCommand && save({ setupCommand: command })}
          data-testid={`${testId}-setup`}
        />
      </label>
      <label className="field inline">
        <span>Stop it after (seconds)</span>
        <input
          type="number"
          min={1}
          max={24 * 3600}
          value={timeout}
          aria-invalid={!timeoutValid}
          onChange={(e) => setTimeoutText(e.target.value)}
          onBlur={() => timeoutValid && seconds !== setting.setupTimeoutSeconds && save({ setupTimeoutSeconds: seconds })}
          data-testid={`${testId}-timeout`}
        />
      </label>
      {!timeoutValid && <span className="error small">A whole number of seconds, from 1 to 86400.</span>}
    </div>
  );
}
