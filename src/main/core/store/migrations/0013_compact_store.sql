-- A smaller store (issue 16). The message log's rows and the history entries' long texts are compressed once
-- their session is quiet (src/main/core/store/log-packing.ts: a block of a session's consecutive rows is one
-- BLOB row; src/main/core/store/compression.ts), and the search index keeps fewer prefix indexes.

-- Sessions written since they were last compacted: every batch of the message log touches its sessions here,
-- and src/main/core/history/store-packer.ts packs each once it has been quiet for a while. A session
-- leaves the queue in the transaction that compacts it, so a crash mid-way loses nothing and it resumes.
CREATE TABLE IF NOT EXISTS store_compaction (
  session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
  touched_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS store_compaction_by_time ON store_compaction (touched_at);

-- Migrating an existing store: every session is compacted (at once: touched_at 0), and while this row is
-- there the migration is under way (its progress bar counts the sessions it queued).
INSERT OR REPLACE INTO store_compaction (session_id, touched_at) SELECT id, 0 FROM sessions;
INSERT OR REPLACE INTO history_meta (key, value) SELECT 'compaction_migration', (SELECT count(*) FROM sessions) WHERE EXISTS (SELECT 1 FROM sessions);

-- The FTS index of 0003 with prefix indexes of 2 and 4 characters instead of 2 to 6 (each took as much room as
-- the index itself; longer prefixes are looked up by their first four characters, see search.ts). Its rows are
-- written again from the stored entries by the history index's catch-up (history-index.ts, rebuildFts), in
-- entry id order: fts_rebuild_through says how far it got.
DROP TRIGGER history_entries_ad;
DROP TABLE history_fts;
CREATE VIRTUAL TABLE history_fts USING fts5 (
  body,
  paths,
  facets,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '2 4'
);
CREATE TRIGGER history_entries_ad AFTER DELETE ON history_entries BEGIN
  DELETE FROM history_fts WHERE rowid = old.id;
END;
DELETE FROM history_fts_lag;
INSERT OR REPLACE INTO history_meta (key, value) SELECT 'fts_rebuild_through', 0 WHERE EXISTS (SELECT 1 FROM history_entries);
INSERT OR REPLACE INTO history_meta (key, value) SELECT 'fts_rebuild_end', (SELECT max(id) FROM history_entries) WHERE EXISTS (SELECT 1 FROM history_entries);
