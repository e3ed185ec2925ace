-- Sessions in containers (issue 38): what a session's container is made from and its fence (JSON), so that
-- after a restart the container is found again, or made again when it was removed. NULL: not in a container.
ALTER TABLE sessions ADD COLUMN container TEXT;
