-- What each agent's last `initialize` answered (its agentCapabilities), so that how a stored session can come
-- back (resume, load, neither) is known without starting the agent.
CREATE TABLE agent_capabilities (
  agent_id TEXT PRIMARY KEY,
  capabilities_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
