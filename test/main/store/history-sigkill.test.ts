import { rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HistoryService } from '../../../src/main/core/history/history-service';
import { openDatabase } from '../../../src/main/core/store/database';
import { StoreService } from '../../../src/main/core/store/store-service';
import { repoRoot, tempDir } from '../../support/app-server';
import { onLines } from '../../support/processes';

describe('history index durability', () => {
  it('after a SIGKILL mid-burst: a sound file, every acknowledged message, and an index in step with the log', async () => {
    const dir = tempDir('sb-hkill-');
    const path = join(dir, 'switchboard.db');
    const db = openDatabase(path);
    db.prepare("INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at) VALUES ('s1', 'claude', '/p', 0, 0)").run();
    db.close();

    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'history-sigkill-writer.ts'), path, 's1'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    const acked = new Set<number>();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    await new Promise<void>((resolve, reject) => {
      onLines(child.stdout, (l) => {
        acked.add(Number(l));
        if (acked.size >= 6000 && child.exitCode === null && !child.killed) child.kill('SIGKILL'); // while it is writing
      });
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited early (${code}): ${stderr}`))));
    });
    const maxAcked = Math.max(...acked);
    expect(acked.size).toBeGreaterThanOrEqual(6000);

    const store = new StoreService(dir);
    const history = new HistoryService(store);
    try {
      const reopened = store.db;
      expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
      reopened.exec("INSERT INTO history_fts (history_fts) VALUES ('integrity-check')");
      const { count, max } = reopened.prepare("SELECT sum(n) AS count, max(seq + n - 1) AS max FROM acp_messages WHERE session_id = 's1'").get() as { count: number; max: number };
      expect(max).toBeGreaterThanOrEqual(maxAcked);
      expect(count).toBe(max); // no holes: every acknowledged message is there
      // The index committed with the log: nothing to catch up, and the summary counts every message.
      const status = history.list({ limit: 5, offset: 0 });
      expect(status.indexing).toEqual({ done: true, pendingMessages: 0 });
      expect(status.sessions[0]!.messageCount).toBe(count);
      const watermark = reopened.prepare("SELECT value FROM history_meta WHERE key = 'indexed_through'").get() as { value: number };
      expect(watermark.value).toBe((reopened.prepare('SELECT max(id) AS id FROM acp_messages').get() as { id: number }).id);
      // The last acknowledged prompt, chunk and tool call are all searchable.
      const last = (r: number) => [...acked].filter((k) => k % 20 === r).reduce((a, b) => Math.max(a, b), 0);
      const find = (q: string) => history.search({ query: q, limit: 5, perSession: 5 }).hits;
      expect(find(`p${last(1)}x`)[0]).toMatchObject({ kind: 'prompt', seq: last(1) });
      expect(find(`c${last(5)}x`)[0]).toMatchObject({ kind: 'agent' });
      expect(find(`d${last(10)}x`)[0]).toMatchObject({ kind: 'tool', seq: last(10) });
      expect(find(`job${last(10)}.ts`)[0]).toMatchObject({ kind: 'tool' });
    } finally {
      history.dispose();
      store.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
