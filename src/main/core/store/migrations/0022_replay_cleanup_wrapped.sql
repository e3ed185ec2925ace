-- Sessions reopened by session/load before a replay was recognised whatever the agent wraps around it (issue
-- 36): Gemini CLI 0.61 starts its replay with its `<session_context>` preamble as a user message, which ended
-- the recognition, so the rest of the replay was stored again. Listed again for the cleanup of migration 0011
-- (src/main/core/history/replay-cleanup.ts), which now drops every conversation update a load brought before
-- the next prompt. A compressed block (0013) hides the methods of all but its first message: the sessions of
-- agents that load without resuming (the only ones that replay) are listed when they have one.
INSERT OR IGNORE INTO replay_cleanup (session_id)
  SELECT DISTINCT session_id FROM acp_messages WHERE direction = 'c2a' AND method = 'session/load';
INSERT OR IGNORE INTO replay_cleanup (session_id)
  SELECT DISTINCT m.session_id FROM acp_messages m JOIN sessions s ON s.id = m.session_id
  JOIN agent_capabilities c ON c.agent_id = s.agent_id
  WHERE typeof(m.body) = 'blob'
    AND json_extract(c.capabilities_json, '$.loadSession') = 1
    AND json_extract(c.capabilities_json, '$.sessionCapabilities.resume') IS NULL;
