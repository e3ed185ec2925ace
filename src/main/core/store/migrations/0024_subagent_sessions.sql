-- ACP subagent sessions (issue 42): a child session the agent started under another one, on the same connection.
ALTER TABLE sessions ADD COLUMN subagent_of TEXT REFERENCES sessions(id) ON DELETE SET NULL;
CREATE INDEX sessions_subagent_of ON sessions(subagent_of) WHERE subagent_of IS NOT NULL;
