-- The sentence a session was closed with (e.g. a delegated session closed with its parent), kept so that it is
-- still said after a restart; NULL while it is not closed, or closed without one.
ALTER TABLE sessions ADD COLUMN ended_why TEXT;
