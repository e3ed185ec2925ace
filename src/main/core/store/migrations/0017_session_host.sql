-- Remote hosts (issue 27): the host a session runs on. 'local' is this machine; 'ssh:<alias or user@host:port>'
-- an SSH host. Reopening a session reconnects its host; its folders are paths on that host.
ALTER TABLE sessions ADD COLUMN host_id TEXT NOT NULL DEFAULT 'local';
