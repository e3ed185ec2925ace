-- Session fork (issue 14): a session started by session/fork of another keeps the link to it, so that
-- history shows "forked from <parent>" on the fork and the forks on the parent.
ALTER TABLE sessions ADD COLUMN forked_from TEXT REFERENCES sessions (id) ON DELETE SET NULL;
CREATE INDEX sessions_forks ON sessions (forked_from) WHERE forked_from IS NOT NULL;
