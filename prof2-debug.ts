import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageLog } from './src/main/store/message-log';
const root = mkdtempSync(join(tmpdir(), 'sb-prof-'));
const db = new Database(join(root, 'db.sqlite'));
db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL'); db.pragma('foreign_keys = ON');
for (const f of readdirSync('src/main/store/migrations').sort()) db.exec(readFileSync(join('src/main/store/migrations', f), 'utf8'));
db.prepare("INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at) VALUES ('s','a','/',0,0)").run();
const log = new MessageLog(db);
const body = JSON.stringify({jsonrpc:'2.0',method:'session/update',params:{sessionId:'scn-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',update:{sessionUpdate:'agent_message_chunk',content:{type:'text',text:'y'.repeat(60)}}}});
for (let r = 0; r < 5; r++) {
  let t0 = performance.now();
  log.appendMany(Array.from({length: 20000}, () => ({ sessionId: 's', direction: 'a2c' as const, method: 'session/update', body })));
  const sync = performance.now() - t0;
  t0 = performance.now();
  const ps = [];
  for (let b = 0; b < 31; b++) { for (let i = 0; i < 645; i++) ps.push(log.append({ sessionId: 's', direction: 'a2c', method: 'session/update', body })); await new Promise(r => setImmediate(r)); }
  await Promise.all(ps);
  console.log('appendMany 20k', sync.toFixed(1), 'ms; append in 31 batches', (performance.now() - t0).toFixed(1), 'ms');
}
// FK check cost?
const triggers = db.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('trigger','index') AND tbl_name='acp_messages'").all();
console.log(triggers);
