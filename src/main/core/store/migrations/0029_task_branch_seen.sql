-- The commit a task's branch was last seen on (JSON {"branch","sha"}), so commits made while the app was closed
-- run the task at the next start (issue 41's trigger kept it in memory only).
ALTER TABLE tasks ADD COLUMN branch_seen TEXT;
