-- Compare mode's runs are worktree sessions (issue 26): the branch the comparison started from (which
-- "apply this one" merges into), and the user's "keep" of a run after another was applied. A comparison made
-- before has no base ('').
ALTER TABLE compares ADD COLUMN base TEXT NOT NULL DEFAULT '';
ALTER TABLE compare_runs ADD COLUMN kept_at INTEGER;
