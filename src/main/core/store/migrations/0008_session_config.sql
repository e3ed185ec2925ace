-- What the agent was given when the session was set up (MCP servers, folders, environment names) and what
-- was left out: JSON of the contract's EffectiveConfig, written at session/new (and resume/load).
ALTER TABLE sessions ADD COLUMN effective_config TEXT;
