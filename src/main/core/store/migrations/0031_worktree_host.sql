-- The machine a worktree is on: 'local', or an SSH host ('ssh:…') whose helper runs its git.
ALTER TABLE worktrees ADD COLUMN host_id TEXT NOT NULL DEFAULT 'local';
