-- Archived sessions (History → Archive): hidden from the default list, shown under the "Archived" filter, still searchable.
ALTER TABLE sessions ADD COLUMN archived_at INTEGER;
