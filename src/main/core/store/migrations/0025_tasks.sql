-- Tasks (issue 41): work that runs unattended, its runs (queued, running, paused by the spend guard, ended and
-- waiting in the Inbox), the runs a schedule missed while the app was closed, and the daily spending ledger.
CREATE TABLE tasks (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  spec         TEXT NOT NULL,      -- JSON: prompts, agent, folder, place, host, policy, limits, schedule
  from_session TEXT,
  -- The time up to which the schedule's runs were started or listed as missed.
  checked_at   INTEGER NOT NULL,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);

CREATE TABLE task_runs (
  id            TEXT PRIMARY KEY,
  task_id       TEXT,              -- NULL: an interactive session that opted in to the guard
  name          TEXT NOT NULL,
  agent_id      TEXT NOT NULL,
  spec          TEXT NOT NULL,     -- the task as it was when the run was queued (JSON)
  state         TEXT NOT NULL,     -- queued | held | running | paused | done | failed | cancelled
  trig          TEXT NOT NULL,
  position      REAL NOT NULL,
  session_id    TEXT,
  folder        TEXT NOT NULL,
  worktree      TEXT,
  branch        TEXT,
  queued_at     INTEGER NOT NULL,
  started_at    INTEGER,
  ended_at      INTEGER,
  stop_reason   TEXT,
  error         TEXT,
  prompts_sent  INTEGER NOT NULL DEFAULT 0,
  tokens        INTEGER NOT NULL DEFAULT 0,
  money         REAL NOT NULL DEFAULT 0,
  money_source  TEXT NOT NULL DEFAULT 'none',
  pause         TEXT,              -- JSON: the limit crossed, allowed, spent, at
  allowance     TEXT NOT NULL DEFAULT '{}', -- JSON: limit → what Continue with +X added
  last_message  TEXT,
  inbox         TEXT NOT NULL DEFAULT 'none',
  hold_reason   TEXT,
  answers       TEXT NOT NULL DEFAULT '[]' -- JSON: the permission answers its policy gave
);
CREATE INDEX task_runs_by_state ON task_runs (state, position);
CREATE INDEX task_runs_by_session ON task_runs (session_id);

CREATE TABLE task_missed (
  task_id TEXT NOT NULL,
  due_at  INTEGER NOT NULL,
  PRIMARY KEY (task_id, due_at)
);

-- Spending per local day, agent and task ('' : an interactive session).
CREATE TABLE spend_days (
  day      TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  task_id  TEXT NOT NULL,
  tokens   INTEGER NOT NULL DEFAULT 0,
  money    REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (day, agent_id, task_id)
);
