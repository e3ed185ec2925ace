-- Delegation and the compare judge (issue 42).
-- A session's own delegation switch: NULL follows its agent's setting (delegation.agents), 0 off, 1 on.
ALTER TABLE sessions ADD COLUMN delegation INTEGER;
-- A session started through the delegation tools, by the session it belongs to (also linked as sessions.subagent_of).
CREATE TABLE delegations (
  session_id  TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  parent_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  worktree    TEXT,
  branch      TEXT,
  base_commit TEXT,
  created_at  INTEGER NOT NULL
);
CREATE INDEX delegations_parent ON delegations(parent_id);
-- A comparison's judge: the agent, the criteria, its session and its verdict.
CREATE TABLE compare_judges (
  compare_id  TEXT PRIMARY KEY REFERENCES compares(id) ON DELETE CASCADE,
  agent_id    TEXT NOT NULL,
  criteria    TEXT NOT NULL,
  session_id  TEXT,
  verdict     TEXT,
  error       TEXT,
  started_at  INTEGER NOT NULL,
  ended_at    INTEGER
);
