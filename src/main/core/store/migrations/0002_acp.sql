-- The ACP client (src/main/acp/).

-- Every fs/write_text_file an agent made through the client, so each can be shown and reverted.
CREATE TABLE file_writes (
  id               INTEGER PRIMARY KEY,
  session_id       TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  path             TEXT NOT NULL,          -- the real path written (symlinks resolved)
  previous_content TEXT,                   -- NULL: the write created the file
  new_content      TEXT NOT NULL,
  ts               INTEGER NOT NULL,
  reverted_at      INTEGER
);
CREATE INDEX file_writes_by_session ON file_writes (session_id, id);

-- The user's per-agent choices on top of the agents row: launch overrides and compatibility flags.
CREATE TABLE agent_prefs (
  agent_id    TEXT PRIMARY KEY,
  args_json   TEXT,                        -- NULL: the agent's own args
  env_json    TEXT NOT NULL DEFAULT '{}',  -- merged over the agent's env
  compat_json TEXT NOT NULL DEFAULT '{}',
  updated_at  INTEGER NOT NULL
);

-- Values the user gave for env-var authentication, encrypted (see src/main/acp/secret-store.ts).
CREATE TABLE agent_secrets (
  agent_id   TEXT NOT NULL,
  name       TEXT NOT NULL,
  ciphertext TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (agent_id, name)
);
