-- Open message entries whose search-index row lags their text (src/main/history/history-index.ts): an entry
-- still being streamed is re-indexed at most once a second, when it closes, or before a search. Rows left
-- here by a crash are re-indexed at start-up.
CREATE TABLE history_fts_lag (
  entry_id INTEGER PRIMARY KEY REFERENCES history_entries (id) ON DELETE CASCADE
);
