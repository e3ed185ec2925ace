// Child process of locked.test.ts: another program holding a lock on the store until it is killed.
//   exclusive: locking_mode=EXCLUSIVE and an open exclusive transaction (nobody else can even read)
//   write:     an open write transaction (readers go on; writers wait, then fail)
import Database from 'better-sqlite3';

const [path, mode] = process.argv.slice(2) as [string, 'exclusive' | 'write'];
const db = new Database(path, { timeout: 10_000 });
db.pragma('journal_mode = WAL');
if (mode === 'exclusive') db.pragma('locking_mode = EXCLUSIVE');
db.exec(mode === 'exclusive' ? 'BEGIN EXCLUSIVE' : 'BEGIN IMMEDIATE');
db.exec("INSERT INTO settings (key, value_json, updated_at) VALUES ('lock-holder', '1', 0) ON CONFLICT (key) DO NOTHING");
process.stdout.write('locked\n');
setInterval(() => undefined, 60_000);
