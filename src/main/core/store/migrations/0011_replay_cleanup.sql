-- Sessions reopened by session/load before replays were recognised by their content (issue 14): a replay the
-- agent sent after answering the load (Gemini CLI 0.61) was stored a second time. When history starts,
-- src/main/core/history/replay-cleanup.ts removes those duplicates from the sessions listed here (then the
-- index is rebuilt) and forgets each session once it is clean.
CREATE TABLE replay_cleanup (
  session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE
);
INSERT OR IGNORE INTO replay_cleanup (session_id)
  SELECT DISTINCT session_id FROM acp_messages WHERE direction = 'c2a' AND method = 'session/load';
