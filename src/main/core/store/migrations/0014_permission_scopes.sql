-- Permission rules carry a scope (issue 24): agent, tool kind, a pattern taken from the request (exact command,
-- command prefix, exact path or path glob, exact title), the project folder and optionally the session; and the
-- label of the option that made them. The rules of before were (agent, tool kind) only: wider than any label
-- their users were shown. They are kept, with no scope (subject, pattern and folder NULL): the permissions page
-- lists them flagged for review, and they answer nothing until the user gives them a scope (or forgets them).
CREATE TABLE permission_rules_scoped (
  id         INTEGER PRIMARY KEY,
  agent_id   TEXT NOT NULL,
  tool_kind  TEXT NOT NULL,
  subject    TEXT CHECK (subject IN ('command', 'path', 'title')),
  match      TEXT CHECK (match IN ('exact', 'prefix', 'glob')),
  pattern    TEXT,
  folder     TEXT,
  session_id TEXT,
  decision   TEXT NOT NULL CHECK (decision IN ('allow', 'reject')),
  label      TEXT,
  created_at INTEGER NOT NULL
);
INSERT INTO permission_rules_scoped (id, agent_id, tool_kind, decision, created_at)
  SELECT id, agent_id, tool_kind, decision, created_at FROM permission_rules;
DROP TABLE permission_rules;
ALTER TABLE permission_rules_scoped RENAME TO permission_rules;
CREATE UNIQUE INDEX permission_rules_scope ON permission_rules (agent_id, tool_kind, subject, match, pattern, folder, ifnull(session_id, ''));
CREATE INDEX permission_rules_by_agent ON permission_rules (agent_id, tool_kind);
