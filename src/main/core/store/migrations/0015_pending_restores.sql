-- A restore (revert, rewind, undo) is recorded before it touches the folder, with its plan (path, action, the
-- entry it writes), and the row goes once it is done. A row left at start is a restore cut short (a crash, a
-- kill): the next start finishes it and says so (issue 25.7).
CREATE TABLE checkpoint_pending_restores (
  id          TEXT PRIMARY KEY,
  folder_id   TEXT NOT NULL REFERENCES checkpoint_folders (id) ON DELETE CASCADE,
  kind        TEXT NOT NULL,
  label       TEXT NOT NULL,
  -- The turn it was about (a rewind's, a turn's revert), where there is one: its notice shows there.
  turn_id     TEXT,
  pre_id      TEXT NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
  plan_json   TEXT NOT NULL,
  started_at  INTEGER NOT NULL
);

-- What the user is told about a restore finished after an interruption, and the turn it is about.
ALTER TABLE checkpoint_restores ADD COLUMN turn_id TEXT;
ALTER TABLE checkpoint_restores ADD COLUMN notice TEXT;
