import { rmSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Router } from '../../../src/main/core/base/router';
import { HistoryService } from '../../../src/main/core/history/history-service';
import { StoreService } from '../../../src/main/core/store/store-service';
import { Acp, turn } from '../history/acp';
import { repoRoot, tempDir } from '../../support/app-server';
import { MessageLog } from '../../../src/main/core/store/message-log';

const dirs: string[] = [];
const scratch = (prefix: string): string => {
  const d = tempDir(prefix);
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const children: ChildProcess[] = [];
const disposables: Array<{ dispose(): unknown }> = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    c.kill('SIGKILL');
    if (c.exitCode === null && c.signalCode === null) await new Promise((r) => c.once('exit', r));
  }
  for (const d of disposables.splice(0).reverse()) await d.dispose();
});

/** Starts another process that holds a lock on the file; resolves once it has it. */
async function holdLock(path: string, mode: 'exclusive' | 'write'): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'lock-holder.ts'), path, mode], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`lock holder exited (${code}): ${err}`)));
  });
}

async function seeded(): Promise<string> {
  const dir = scratch('sb-locked-');
  const store = new StoreService(dir);
  store.db.prepare("INSERT INTO sessions (id, agent_id, cwd, created_at, updated_at) VALUES ('s', 'claude', '/p', 1, 1)").run();
  const history = new HistoryService(store);
  await history.whenIndexed();
  const log = new MessageLog(store.db);
  history.attach(log);
  log.appendMany(turn(new Acp(), 'tune the postgres connection pool', 'Raised the pool size.').map((m) => ({ sessionId: 's', ...m })));
  history.dispose();
  store.dispose();
  return dir;
}

describe('a store locked by another process', () => {
  it('at start-up: the store reports "locked" and history requests fail with that reason, not an empty list', async () => {
    const dir = await seeded();
    await holdLock(join(dir, 'switchboard.db'), 'exclusive');
    const store = new StoreService(dir);
    const history = new HistoryService(store);
    disposables.push(store, history);
    expect(store.status).toMatchObject({ ok: false, kind: 'locked' });
    const router = new Router();
    history.register(router);
    for (const [method, params] of [
      ['history.list', {}],
      ['history.search', { query: 'postgres' }],
    ] as const) {
      const r = await router.invoke(method, params);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('unavailable');
        expect(r.error.message).toMatch(/locked by another process/);
      }
    }
  }, 60_000);

  it('while open: reads go on, a write blocked past the timeout fails with a clear "locked" error', async () => {
    const dir = await seeded();
    const store = new StoreService(dir);
    const history = new HistoryService(store);
    disposables.push(store, history);
    await history.whenIndexed();
    await holdLock(join(dir, 'switchboard.db'), 'write');
    expect(history.list({ limit: 10, offset: 0 }).sessions.map((s) => s.id)).toEqual(['s']);
    expect(history.search({ query: 'pool', limit: 5, perSession: 5 }).hits).toHaveLength(2);
    const router = new Router();
    history.register(router);
    const r = await router.invoke('history.rename', { sessionId: 's', title: 'Pool tuning' });
    expect(r).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.stringMatching(/locked by another process/) } });
  }, 60_000);
});
