-- Open message entries whose search-index row lags their text (src/main/history/history-index.ts): an entry
-- still being streamed is re-indexed at most once a second, when it closes, or before a search. Rows left
-- here by a crash are re-indexed at start-up.
CREATE TABLE history_fts_lag (
  entry_id INTEGER PRIMARY KEY REFERENCES history_entries (id) ON DELETE CASCADE
);

-- A row of acp_messages may hold a run of consecutive session/update notifications of one session, as
-- they arrived in one write (a streamed answer is hundreds of them a second): `n` lines joined by "\n"
-- (a JSON-RPC line never holds a raw newline), with sequence numbers seq … seq + n - 1.
ALTER TABLE acp_messages ADD COLUMN n INTEGER NOT NULL DEFAULT 1 CHECK (n >= 1);
