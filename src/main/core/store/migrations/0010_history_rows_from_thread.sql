-- History rows are now the shared thread model's entries (src/main/core/history/thread-rows.ts): each row's
-- ref is the thread entry id, and the indexer keeps its running state in memory (rebuilt from the log). The
-- rows derived the old way are dropped and the log is indexed again at start-up (the watermark goes back to
-- 0; history.list says indexing is not done until then). The user's titles are kept. The tables that held
-- the old indexer's pending requests and terminal links are no longer used.
DELETE FROM history_fts_lag;
DELETE FROM history_entries;
INSERT INTO history_fts (history_fts) VALUES ('delete-all');
DELETE FROM history_files;
DELETE FROM history_sessions WHERE custom_title IS NULL;
UPDATE history_sessions SET info_title = NULL, prompt_title = NULL, first_ts = NULL, last_ts = NULL, message_count = 0,
  entry_count = 0, turn_count = 0, tool_call_count = 0, failed_tool_calls = 0, files_touched = 0, files_edited = 0,
  failed_turns = 0, last_stop_reason = NULL, turn = 0, turn_start_seq = 0, open_entry_id = NULL, open_kind = NULL,
  open_message_id = NULL, replay = 0;
UPDATE history_meta SET value = 0 WHERE key = 'indexed_through';
DROP TABLE history_rpc;
DROP TABLE history_terminals;
