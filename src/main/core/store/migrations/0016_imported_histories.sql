-- Importing the agents' own histories (issue 29): sessions their command-line tools stored, read into
-- History. `imported_from` names the tool a session came from (NULL: Switchboard ran it); each file (or
-- OpenCode session) is remembered with where its import stopped, so a rescan reads only what is new.
ALTER TABLE sessions ADD COLUMN imported_from TEXT;
CREATE INDEX sessions_by_acp_id ON sessions (acp_session_id) WHERE acp_session_id IS NOT NULL;

CREATE TABLE imported_files (
  path       TEXT PRIMARY KEY,           -- the file, or 'opencode:<db path>#<session id>'
  source     TEXT NOT NULL,
  session_id TEXT REFERENCES sessions (id) ON DELETE SET NULL,
  ino        INTEGER NOT NULL DEFAULT 0,
  size       INTEGER NOT NULL DEFAULT 0,
  mtime_ms   REAL NOT NULL DEFAULT 0,
  offset     INTEGER NOT NULL DEFAULT 0, -- bytes imported (complete lines)
  state      TEXT NOT NULL DEFAULT '{}', -- the parser's and the writer's state (JSON)
  linked     INTEGER NOT NULL DEFAULT 0, -- 1: Switchboard ran this session itself; the file is not imported
  skipped    TEXT,                       -- why the file is left out, if it is
  updated_at INTEGER NOT NULL
);
CREATE INDEX imported_files_by_source ON imported_files (source);
