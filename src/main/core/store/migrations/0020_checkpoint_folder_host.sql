-- Checkpoints on an SSH host (issue 27): the host a checkpointed folder is on ('local' is this machine). The
-- path column stays unique, as it was made: a folder on another host stores '<host id>:<path>' there (the same
-- path can be a folder here and on a host), and the rows read back the plain path (checkpoint-rows.ts).
ALTER TABLE checkpoint_folders ADD COLUMN host_id TEXT NOT NULL DEFAULT 'local';
