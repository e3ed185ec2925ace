import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/core/store/database';
import { readMessages } from '../../../src/main/core/store/message-log';
import { repoRoot, tempDir } from '../../support/app-server';
import { onLines } from '../../support/processes';

describe('store durability', () => {
  it('keeps every acknowledged write and a sound file when the writer is SIGKILLed mid-burst', async () => {
    const path = join(tempDir(), 'switchboard.db');
    const db = openDatabase(path);
    db.prepare("INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at) VALUES ('s1', 'a', '/', 0, 0)").run();
    db.close();

    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'sigkill-writer.ts'), path, 's1'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let acked = 0;
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    await new Promise<void>((resolve, reject) => {
      onLines(child.stdout, (l) => {
        acked = Math.max(acked, Number(l));
        // Kill while it is writing, after a good number of committed batches.
        if (acked >= 20_000) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited early (${code}): ${stderr}`))));
    });
    await new Promise((r) => child.once('exit', r).exitCode !== null && r(null));

    const reopened = openDatabase(path);
    expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
    const { count, max } = reopened.prepare("SELECT sum(n) AS count, max(seq + n - 1) AS max FROM acp_messages WHERE session_id = 's1'").get() as {
      count: number;
      max: number;
    };
    expect(acked).toBeGreaterThanOrEqual(20_000);
    // Every acknowledged message is there, in an unbroken sequence (no holes from a torn batch).
    expect(max).toBeGreaterThanOrEqual(acked);
    expect(count).toBe(max);
    const bodies = readMessages(reopened, 's1').filter((m) => m.seq === 1 || m.seq === acked);
    expect(bodies.map((b) => (JSON.parse(b.body) as { n: number }).n)).toEqual([1, acked]);
    reopened.close();
  });
});
