-- Agents the user can start: installed from the registry or added by hand.
CREATE TABLE agents (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  source      TEXT NOT NULL CHECK (source IN ('registry', 'custom', 'builtin')),
  command     TEXT NOT NULL,
  args_json   TEXT NOT NULL DEFAULT '[]',
  env_json    TEXT NOT NULL DEFAULT '{}',
  cwd         TEXT,
  version     TEXT,
  registry_id TEXT,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);

-- One row per Switchboard session (a tab's conversation with one agent).
CREATE TABLE sessions (
  id             TEXT PRIMARY KEY,
  agent_id       TEXT NOT NULL,
  acp_session_id TEXT,
  cwd            TEXT NOT NULL,
  title          TEXT,
  status         TEXT NOT NULL DEFAULT 'idle',
  pinned         INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  deleted_at     INTEGER
);
CREATE INDEX sessions_by_activity ON sessions (updated_at DESC);
CREATE INDEX sessions_by_agent ON sessions (agent_id, updated_at DESC);

-- The ordered log of every ACP message of a session, both directions, as sent on the wire.
CREATE TABLE acp_messages (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  ts         INTEGER NOT NULL,
  direction  TEXT NOT NULL CHECK (direction IN ('c2a', 'a2c')),
  method     TEXT,
  body       TEXT NOT NULL,
  UNIQUE (session_id, seq)
);

-- "Always" answers to permission requests, applied automatically next time.
CREATE TABLE permission_rules (
  id         INTEGER PRIMARY KEY,
  agent_id   TEXT NOT NULL,
  tool_kind  TEXT NOT NULL,
  decision   TEXT NOT NULL CHECK (decision IN ('allow', 'reject')),
  created_at INTEGER NOT NULL,
  UNIQUE (agent_id, tool_kind)
);

CREATE TABLE settings (
  key        TEXT PRIMARY KEY,
  value_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
