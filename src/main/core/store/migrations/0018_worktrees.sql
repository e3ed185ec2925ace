-- Worktree sessions (issue 26): the worktrees Switchboard made or was pointed at, each with the branch it
-- works on and the base it merges into. A session in one is an ordinary session whose folder is the worktree.
CREATE TABLE worktrees (
  path       TEXT PRIMARY KEY,  -- the worktree's top folder
  repo       TEXT NOT NULL,     -- the main checkout's top folder
  branch     TEXT NOT NULL,
  base       TEXT NOT NULL,     -- the branch merges go into
  created    INTEGER NOT NULL,  -- 1: Switchboard made it (discard removes the branch too)
  created_at INTEGER NOT NULL
);
CREATE INDEX worktrees_by_repo ON worktrees (repo);
