-- Compare mode: one prompt, several agents, one git worktree each.
CREATE TABLE compares (
  id          TEXT PRIMARY KEY,
  repo        TEXT NOT NULL,
  base_commit TEXT NOT NULL,
  prompt      TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);

CREATE TABLE compare_runs (
  id          TEXT PRIMARY KEY,
  compare_id  TEXT NOT NULL REFERENCES compares (id) ON DELETE CASCADE,
  agent_id    TEXT NOT NULL,
  worktree    TEXT NOT NULL,
  branch      TEXT NOT NULL,
  session_id  TEXT,
  started_at  INTEGER NOT NULL,
  ended_at    INTEGER,
  stop_reason TEXT,
  error       TEXT,
  applied_at  INTEGER
);
CREATE INDEX compare_runs_by_compare ON compare_runs (compare_id);
