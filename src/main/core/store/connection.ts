import Database from 'better-sqlite3';

/**
 * Opens a connection with the store's settings: WAL journal, synchronous=NORMAL (every committed
 * transaction survives a process crash such as SIGKILL; only a power loss may lose the last few),
 * foreign keys on, and a busy timeout so a concurrent reader does not fail writes.
 */
export function connect(path: string): Database.Database {
  const db = new Database(path, { timeout: 5000 });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // Checkpoints are run by StoreService when the app is quiet; this bound (64 MB of WAL) only
    // applies if it never is, so a burst of writes does not pay for a checkpoint inside its commit.
    db.pragma('wal_autocheckpoint = 16384');
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}
