-- Every stored time is a whole number of ms (issue 36). Imports gave records without a time of their own the
-- session file's time, which has a fraction (mtimeMs); the store packer wrote it into its blocks' headers, which
-- could then not be read back. Here the plain columns are rounded; the blocks are rewritten by the start-up repair
-- (src/main/core/store/time-repair.ts) while the 'integer_times_repair' row is there.
UPDATE sessions SET created_at = CAST(round(created_at) AS INTEGER) WHERE typeof(created_at) = 'real';
UPDATE sessions SET updated_at = CAST(round(updated_at) AS INTEGER) WHERE typeof(updated_at) = 'real';
UPDATE history_entries SET ts = CAST(round(ts) AS INTEGER) WHERE typeof(ts) = 'real';
UPDATE history_sessions SET first_ts = CAST(round(first_ts) AS INTEGER) WHERE typeof(first_ts) = 'real';
UPDATE history_sessions SET last_ts = CAST(round(last_ts) AS INTEGER) WHERE typeof(last_ts) = 'real';
UPDATE acp_messages SET ts = CAST(round(ts) AS INTEGER) WHERE typeof(ts) = 'real' AND typeof(body) = 'text';
INSERT OR REPLACE INTO history_meta (key, value) SELECT 'integer_times_repair', 0 WHERE EXISTS (SELECT 1 FROM acp_messages WHERE typeof(body) = 'blob');

-- A session's times are whole ms whoever writes them (an agent's store may hold any number).
CREATE TRIGGER sessions_whole_ms_ai AFTER INSERT ON sessions
  WHEN typeof(new.created_at) = 'real' OR typeof(new.updated_at) = 'real' BEGIN
  UPDATE sessions SET created_at = CAST(round(new.created_at) AS INTEGER), updated_at = CAST(round(new.updated_at) AS INTEGER) WHERE id = new.id;
END;
CREATE TRIGGER sessions_whole_ms_au AFTER UPDATE OF created_at, updated_at ON sessions
  WHEN typeof(new.created_at) = 'real' OR typeof(new.updated_at) = 'real' BEGIN
  UPDATE sessions SET created_at = CAST(round(new.created_at) AS INTEGER), updated_at = CAST(round(new.updated_at) AS INTEGER) WHERE id = new.id;
END;
