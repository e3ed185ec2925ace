-- The user's overrides of a registry agent's launch arguments and environment. Kept apart from the
-- install (the agents row is rewritten on update/rollback) so updates and rollbacks keep them.
CREATE TABLE registry_overrides (
  registry_id TEXT PRIMARY KEY,
  args_json   TEXT,
  env_json    TEXT NOT NULL DEFAULT '{}',
  updated_at  INTEGER NOT NULL
);
