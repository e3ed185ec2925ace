-- Checkpoints: snapshots of session folders before and after every turn (objects live in a shadow git
-- repository per folder under the data folder; these rows say which snapshot is which).
CREATE TABLE checkpoint_folders (
  id           TEXT PRIMARY KEY,
  path         TEXT NOT NULL UNIQUE,
  created_at   INTEGER NOT NULL,
  bytes        INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE checkpoints (
  id          TEXT PRIMARY KEY,
  folder_id   TEXT NOT NULL REFERENCES checkpoint_folders (id) ON DELETE CASCADE,
  tree        TEXT NOT NULL,
  -- Files over the size cap: [{ path, size, mtimeMs }], content not kept.
  large_json  TEXT NOT NULL DEFAULT '[]',
  kind        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX checkpoints_by_folder ON checkpoints (folder_id, created_at);

CREATE TABLE checkpoint_turns (
  id           TEXT PRIMARY KEY,
  session_id   TEXT NOT NULL,
  prompt_id    TEXT NOT NULL,
  folder_id    TEXT NOT NULL REFERENCES checkpoint_folders (id) ON DELETE CASCADE,
  before_id    TEXT REFERENCES checkpoints (id) ON DELETE SET NULL,
  after_id     TEXT REFERENCES checkpoints (id) ON DELETE SET NULL,
  -- The turn went ahead before its "before" snapshot was done (a huge folder's first snapshot).
  before_late  INTEGER NOT NULL DEFAULT 0,
  started_at   INTEGER NOT NULL,
  ended_at     INTEGER,
  error        TEXT,
  -- The turn's change set, computed once (the two snapshots never change).
  changes_json TEXT
);
CREATE INDEX checkpoint_turns_by_session ON checkpoint_turns (session_id, started_at);
CREATE INDEX checkpoint_turns_by_folder ON checkpoint_turns (folder_id, started_at);

CREATE TABLE checkpoint_restores (
  id          TEXT PRIMARY KEY,
  folder_id   TEXT NOT NULL REFERENCES checkpoint_folders (id) ON DELETE CASCADE,
  kind        TEXT NOT NULL,
  label       TEXT NOT NULL,
  pre_id      TEXT NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
  post_id     TEXT NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
  created_at  INTEGER NOT NULL,
  undone_by   TEXT,
  report_json TEXT NOT NULL
);
CREATE INDEX checkpoint_restores_by_folder ON checkpoint_restores (folder_id, created_at);
