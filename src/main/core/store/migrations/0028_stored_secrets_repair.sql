-- The message log keeps only the names of the MCP servers' env values and headers given with a session (the
-- user's API keys, the delegation channel's secret). Stores written before held the values: the start-up repair
-- (src/main/core/store/secrets-repair.ts) writes those messages again while the 'stored_secrets_repair' row is there.
INSERT OR REPLACE INTO history_meta (key, value) SELECT 'stored_secrets_repair', 0
  WHERE EXISTS (SELECT 1 FROM acp_messages WHERE typeof(body) = 'blob' OR (direction = 'c2a' AND instr(body, '"mcpServers"') > 0));
