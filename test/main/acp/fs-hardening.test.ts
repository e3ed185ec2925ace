import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCore, promptAndWait, type TestCore, agentReply } from './helpers';

let t: TestCore;
let outside: string;
beforeEach(async () => {
  t = await makeCore({ checkpoints: true });
  outside = join(t.work, '..', 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(t.work, 'notes.txt'), 'one\ntwo\n');
});
afterEach(async () => {
  await t.dispose();
});

const reply = (sessionId: string, text: string) => agentReply(t, sessionId, text);

describe('client file system, hardened', () => {
  it('Revert does not follow a folder the agent swapped for a symlink: nothing outside changes', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    mkdirSync(join(t.work, 'd'));
    writeFileSync(join(t.work, 'd', 'x.txt'), 'old');
    expect((await reply(s.id, `write ${t.work}/d/x.txt new`)).ok).toBe(true);
    expect((await reply(s.id, `write ${t.work}/d/created.txt new`)).ok).toBe(true);
    await t.core.checkpoints.idle();
    // After the turn, the agent (with its own shell) moves the folder away and leaves a link to an outside folder whose
    // files match what it wrote, so the "changed since" check would pass.
    renameSync(join(t.work, 'd'), join(t.work, 'd-moved'));
    writeFileSync(join(outside, 'x.txt'), 'new');
    writeFileSync(join(outside, 'created.txt'), 'new');
    symlinkSync(outside, join(t.work, 'd'));

    const turns = (await t.call('checkpoints.listTurns', { sessionId: s.id })).turns.slice(0, 2).map((turn) => turn.changes!);
    expect(turns.map((c) => c.files.map((f) => f.path))).toEqual([['d/x.txt'], ['d/created.txt']]);
    for (const { from, to } of turns) {
      const report = await t.call('checkpoints.revert', { from, to, scope: { kind: 'all' } });
      expect(report.applied).toEqual([]);
    }
    expect(readFileSync(join(outside, 'x.txt'), 'utf8')).toBe('new');
    expect(readFileSync(join(outside, 'created.txt'), 'utf8')).toBe('new');

    // The folder back in place: Revert works.
    renameSync(join(t.work, 'd'), join(t.work, 'd-link'));
    renameSync(join(t.work, 'd-moved'), join(t.work, 'd'));
    expect((await t.call('checkpoints.revert', { from: turns[0]!.from, to: turns[0]!.to, scope: { kind: 'all' } })).applied).toEqual([{ path: 'd/x.txt', action: 'written' }]);
    expect(readFileSync(join(t.work, 'd/x.txt'), 'utf8')).toBe('old');
    expect((await t.call('checkpoints.revert', { from: turns[1]!.from, to: turns[1]!.to, scope: { kind: 'all' } })).applied).toEqual([{ path: 'd/created.txt', action: 'removed' }]);
    expect(existsSync(join(t.work, 'd/created.txt'))).toBe(false);
    expect(readdirSync(outside).sort()).toEqual(['created.txt', 'x.txt']);
  });

  it('refuses a named pipe at once, and keeps answering other requests', async () => {
    execFileSync('mkfifo', [join(t.work, 'pipe')]);
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const r = await reply(s.id, `read ${t.work}/pipe`);
    expect(r).toMatchObject({ ok: false, code: -32602 });
    expect(r.message).toMatch(/not a regular file \(named pipe\)/);
    expect((await reply(s.id, `write ${t.work}/pipe hello`)).message).toMatch(/named pipe/);
    const viewer = await t.callError('sessions.readFile', { sessionId: s.id, path: join(t.work, 'pipe') });
    expect(viewer.message).toMatch(/named pipe/);
    // Node's file threads are not stuck: more file requests are answered.
    for (let i = 0; i < 6; i++) expect(await reply(s.id, `read ${t.work}/notes.txt`)).toEqual({ ok: true, result: { content: 'one\ntwo\n' } });
    expect((await t.call('sessions.readFile', { sessionId: s.id, path: join(t.work, 'notes.txt') })).content).toBe('one\ntwo\n');
  });

  it('answers malformed paths with a clear refusal, never a bare internal error', async () => {
    symlinkSync(join(t.work, 'loop2'), join(t.work, 'loop1'));
    symlinkSync(join(t.work, 'loop1'), join(t.work, 'loop2'));
    mkdirSync(join(t.work, 'sub'));
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const cases: Array<[string, RegExp]> = [
      [`${t.work}/a\0b.txt`, /NUL byte/],
      [`${t.work}/${'n'.repeat(300)}.txt`, /too long/],
      [`${t.work}/${'abcdefghij/'.repeat(400)}x.txt`, /too long/],
      [`${t.work}/loop1`, /symbolic link loop/],
      [`${t.work}/loop1/x.txt`, /symbolic link loop/],
      [`${t.work}/notes.txt/x.txt`, /not a folder/],
      [`${t.work}/sub`, /not a regular file \(folder\)/],
      ['C:\\Users\\me\\x.txt', /absolute \(this is a Windows-style path\)/],
      [`file://${t.work}/notes.txt`, /not a URL/],
      [`${t.work}/../outside/x.txt`, /outside the session's folders/],
    ];
    for (const verb of ['read', 'write']) {
      for (const [path, message] of cases) {
        const r = await reply(s.id, `${verb} ${path}${verb === 'write' ? ' pwned' : ''}`);
        expect(r.ok, `${verb} ${path}`).toBe(false);
        expect(r.code, `${verb} ${path}`).toBe(-32602);
        expect(r.message, `${verb} ${path}`).toMatch(message);
        expect(r.message).toMatch(/^refused: /);
      }
    }
    expect(readdirSync(outside)).toEqual([]);
  });
});
