-- Session history: transcript entries derived from acp_messages, their full-text index, and per-session
-- summaries. Written by src/main/history/ inside the message log's write transactions, so they never lag the
-- log. Messages already in the log are indexed by the history service at start-up (history_meta watermark).

-- One entry per prompt, per coalesced run of message chunks, per tool call (updated as it progresses), per
-- file write, per plan (one per turn), per failed turn end and one per session title.
CREATE TABLE history_entries (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,            -- seq of the entry's first message
  last_seq   INTEGER NOT NULL,            -- seq of the last message that changed it
  ts         INTEGER NOT NULL,
  turn       INTEGER NOT NULL,            -- 0 before the first prompt
  kind       TEXT NOT NULL,               -- prompt | user | agent | thought | tool | write | terminal | plan | stop | title
  failed     INTEGER NOT NULL DEFAULT 0,  -- the entry's turn failed
  ref        TEXT,                        -- tool call id, terminal id, plan:<turn>, 'title'
  text       TEXT,                        -- message text of user / agent / thought entries
  detail     TEXT                         -- JSON of the other kinds (tool call, prompt blocks, plan…)
);
CREATE INDEX history_entries_by_session ON history_entries (session_id, seq);
CREATE INDEX history_entries_by_ref ON history_entries (session_id, ref) WHERE ref IS NOT NULL;

-- Contentless FTS5 index (rowid = history_entries.id) of the text derived from each entry (message text; tool
-- title, output, diffs; prompt text and attachments…) in `body`, and the file paths it names in `paths`: each
-- path as words plus one token per trailing part of it ("src/auth/login.ts", "auth/login.ts", "login.ts",
-- with separators mapped to private-use characters, which unicode61 keeps inside tokens), so a typed path is
-- one fast prefix lookup. `facets` holds marker tokens for the search filters (agent, project, session,
-- failed turn), so filtering is an index intersection instead of a row-by-row check. Prefix indexes up to 6
-- characters make prefix queries of typed words cheap (longer prefixes are looked up by their first 6).
-- The indexer writes it in the same transaction as the entry; deleting an entry (or its session) deletes its row.
CREATE VIRTUAL TABLE history_fts USING fts5 (
  body,
  paths,
  facets,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '2 3 4 5 6'
);
CREATE TRIGGER history_entries_ad AFTER DELETE ON history_entries BEGIN
  DELETE FROM history_fts WHERE rowid = old.id;
END;

-- Per-session summary (for the history list and its filters) and the indexer's running state.
CREATE TABLE history_sessions (
  session_id        TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
  custom_title      TEXT,               -- set by the user (history.rename)
  info_title        TEXT,               -- from the agent's session_info_update
  prompt_title      TEXT,               -- first line of the first prompt
  first_ts          INTEGER,
  last_ts           INTEGER,
  message_count     INTEGER NOT NULL DEFAULT 0,
  entry_count       INTEGER NOT NULL DEFAULT 0,
  turn_count        INTEGER NOT NULL DEFAULT 0,
  tool_call_count   INTEGER NOT NULL DEFAULT 0,
  failed_tool_calls INTEGER NOT NULL DEFAULT 0,
  files_touched     INTEGER NOT NULL DEFAULT 0,
  files_edited      INTEGER NOT NULL DEFAULT 0,
  failed_turns      INTEGER NOT NULL DEFAULT 0,
  last_stop_reason  TEXT,
  -- indexer state
  turn              INTEGER NOT NULL DEFAULT 0,
  turn_start_seq    INTEGER NOT NULL DEFAULT 0,
  open_entry_id     INTEGER,            -- the message entry that the next chunk of the same kind extends
  open_kind         TEXT,
  open_message_id   TEXT,
  replay            INTEGER NOT NULL DEFAULT 0  -- during session/load: 1 index the replay, 2 skip it
) WITHOUT ROWID;
CREATE INDEX history_sessions_failed ON history_sessions (failed_turns) WHERE failed_turns > 0;

-- Files a session read or changed (tool call locations, diffs, fs/write_text_file).
CREATE TABLE history_files (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  path       TEXT NOT NULL,
  edited     INTEGER NOT NULL DEFAULT 0,
  seq        INTEGER NOT NULL,
  PRIMARY KEY (session_id, path)
) WITHOUT ROWID;

-- JSON-RPC requests awaiting their response (session/prompt, session/load, terminal/output), to read responses.
CREATE TABLE history_rpc (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  dir        TEXT NOT NULL,
  rpc_id     TEXT NOT NULL,
  method     TEXT NOT NULL,
  data       TEXT,
  PRIMARY KEY (session_id, dir, rpc_id)
) WITHOUT ROWID;

-- Terminals embedded in tool calls, so their output is shown with (and found through) the tool call.
CREATE TABLE history_terminals (
  session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  terminal_id TEXT NOT NULL,
  entry_id    INTEGER NOT NULL,
  PRIMARY KEY (session_id, terminal_id)
) WITHOUT ROWID;

CREATE TABLE history_meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
-- Every acp_messages row with id <= indexed_through has been indexed (0: backfill everything at start-up).
INSERT INTO history_meta (key, value) VALUES ('indexed_through', 0);
