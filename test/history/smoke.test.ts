import { it, expect } from 'vitest';
import { Acp, createStore, turn } from './acp';

it('smoke', async () => {
  const t = await createStore();
  t.addSession('s1');
  const acp = new Acp();
  t.append('s1', [acp.title('Fix the login'), ...turn(acp, 'Where is the auth bug?\nsecond line', 'The authentication bug was in the token refresh of src/auth/login.ts')]);
  t.append('s1', [acp.tool({ toolCallId: 't1', title: 'Edit login.ts', kind: 'edit', status: 'pending', locations: [{ path: '/p/src/auth/login.ts' }], content: [{ type: 'diff', path: '/p/src/auth/login.ts', oldText: 'a', newText: 'refreshToken()' }] })]);
  const rows = t.db.prepare('SELECT id, kind, seq, last_seq, body, paths, failed, turn FROM history_entries').all();
  console.log(rows);
  console.log(t.db.prepare('SELECT * FROM history_sessions').all());
  console.log(JSON.stringify(t.history.search({ query: 'token refr', limit: 10, perSession: 3 }), null, 1));
  console.log(JSON.stringify(t.history.list({ limit: 10, offset: 0 }), null, 1));
  console.log(t.history.export('s1', 'markdown').text);
  console.log(JSON.stringify(t.history.entries({ sessionId: 's1', offset: 0, limit: 10 }), null, 1).slice(0, 3000));
  t.db.exec("INSERT INTO history_fts (history_fts, rank) VALUES ('integrity-check', 1)");
  console.log(t.db.prepare("EXPLAIN QUERY PLAN SELECT e.id, bm25(history_fts) FROM history_fts CROSS JOIN history_entries e ON e.id = history_fts.rowid CROSS JOIN sessions s ON s.id = e.session_id WHERE history_fts MATCH 'x' AND s.deleted_at IS NULL ORDER BY history_fts.rowid DESC LIMIT 10").all());
  t.close();
  expect(1).toBe(1);
});
