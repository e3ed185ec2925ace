import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeCore, promptAndWait, type TestCore, agentReply } from './helpers';

let t: TestCore;
let outside: string;
beforeEach(async () => {
  t = await makeCore({ checkpoints: true });
  // A folder next to the session's folder, holding a secret.
  outside = join(t.work, '..', 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET');
  writeFileSync(join(t.work, 'notes.txt'), 'one\ntwo\nthree\nfour\n');
  symlinkSync(outside, join(t.work, 'link-out'));
  symlinkSync(join(outside, 'secret.txt'), join(t.work, 'secret-link.txt'));
  symlinkSync(join(outside, 'not-yet.txt'), join(t.work, 'dangling.txt'));
});
afterEach(async () => {
  await t.dispose();
});

const reply = (sessionId: string, text: string) => agentReply(t, sessionId, text);

describe('client file system', () => {
  it('reads inside the roots (with line and limit) and refuses everything outside', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect(await reply(s.id, `read ${t.work}/notes.txt`)).toEqual({ ok: true, result: { content: 'one\ntwo\nthree\nfour\n' } });
    expect(await reply(s.id, `read ${t.work}/notes.txt 2 2`)).toEqual({ ok: true, result: { content: 'two\nthree\n' } });

    for (const path of [join(outside, 'secret.txt'), `${t.work}/../outside/secret.txt`, `${t.work}/link-out/secret.txt`, `${t.work}/secret-link.txt`, 'relative.txt']) {
      const r = await reply(s.id, `read ${path}`);
      expect(r.ok, path).toBe(false);
      expect(Number.isInteger(r.code)).toBe(true);
      expect(JSON.stringify(r)).not.toContain('TOP SECRET');
    }
    // A missing file inside the roots: -32002 (resource not found).
    const missing = await reply(s.id, `read ${t.work}/nope.txt`);
    expect(missing).toMatchObject({ ok: false, code: -32002 });
    // Trap 2: a request with a string id is answered under that id.
    const stringId = (await reply(s.id, `string-id ${t.work}/notes.txt`)) as unknown as { id: string; result: { content: string } };
    expect(stringId.id).toMatch(/^raw-/);
    expect(stringId.result.content).toBe('one\ntwo\nthree\nfour\n');
  });

  it('lets the renderer read files inside the session roots only', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect(await t.call('sessions.readFile', { sessionId: s.id, path: join(t.work, 'notes.txt') })).toEqual({
      path: join(t.work, 'notes.txt'),
      content: 'one\ntwo\nthree\nfour\n',
    });
    expect((await t.callError('sessions.readFile', { sessionId: s.id, path: `${t.work}/link-out/secret.txt` })).code).toBe('forbidden');
    expect((await t.callError('sessions.readFile', { sessionId: s.id, path: `${t.work}/nope.txt` })).code).toBe('not_found');
    // Stored (closed) sessions too, by their folder.
    await t.call('sessions.close', { sessionId: s.id });
    expect((await t.call('sessions.readFile', { sessionId: s.id, path: join(t.work, 'notes.txt') })).content).toContain('three');
  });

  it('answers a missing file with empty content for agents flagged for it (Gemini CLI 0.61)', async () => {
    const agentId = await t.addAgent();
    await t.call('agents.update', { agentId, compat: { missingFileAsEmpty: true } });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect(await reply(s.id, `read ${t.work}/nope.txt`)).toEqual({ ok: true, result: { content: '' } });
    // Only inside the roots: outside is still refused, missing or not.
    expect((await reply(s.id, `read ${outside}/nope.txt`)).ok).toBe(false);
    expect((await t.call('agents.list', {})).agents.find((a) => a.id === agentId)?.compat.missingFileAsEmpty).toBe(true);
  });

  it('writes inside the roots, shows each write in its turn\'s changes and reverts it there; refuses escapes without writing', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    expect((await reply(s.id, `write ${t.work}/notes.txt changed\\ncontent`)).ok).toBe(true);
    expect(readFileSync(join(t.work, 'notes.txt'), 'utf8')).toBe('changed\ncontent');
    expect((await reply(s.id, `write ${t.work}/sub/dir/new.txt brand new`)).ok).toBe(true);
    expect(readFileSync(join(t.work, 'sub/dir/new.txt'), 'utf8')).toBe('brand new');

    for (const path of [
      join(outside, 'evil.txt'),
      `${t.work}/../outside/evil.txt`,
      `${t.work}/link-out/evil.txt`,
      `${t.work}/link-out/deeper/evil.txt`,
      `${t.work}/secret-link.txt`,
      `${t.work}/dangling.txt`,
    ]) {
      const r = await reply(s.id, `write ${path} pwned`);
      expect(r.ok, path).toBe(false);
    }
    expect(existsSync(join(outside, 'evil.txt'))).toBe(false);
    expect(existsSync(join(outside, 'deeper'))).toBe(false);
    expect(existsSync(join(outside, 'not-yet.txt'))).toBe(false);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');

    // Its writes are reviewed and undone like any other change: through the turn's checkpoints.
    await t.core.checkpoints.idle();
    const { turns } = await t.call('checkpoints.listTurns', { sessionId: s.id });
    const changed = turns.map((turn) => turn.changes?.files.map((f) => [f.path, f.status]) ?? []);
    expect(changed.slice(0, 2)).toEqual([[['notes.txt', 'modified']], [['sub/dir/new.txt', 'added']]]);
    expect(changed.slice(2).flat()).toEqual([]);
    const [first, second] = [turns[0]!.changes!, turns[1]!.changes!];
    const diff = await t.call('checkpoints.fileDiff', { from: first.from, to: first.to, path: 'notes.txt' });
    expect([diff.oldText, diff.newText]).toEqual(['one\ntwo\nthree\nfour\n', 'changed\ncontent']);

    // Revert: the old content is back.
    const reverted = await t.call('checkpoints.revert', { from: first.from, to: first.to, scope: { kind: 'file', path: 'notes.txt' } });
    expect(reverted.applied).toEqual([{ path: 'notes.txt', action: 'written' }]);
    expect(readFileSync(join(t.work, 'notes.txt'), 'utf8')).toBe('one\ntwo\nthree\nfour\n');
    // The user rewrote the new file since: reverting its creation is refused, and the user's text stays.
    writeFileSync(join(t.work, 'sub/dir/new.txt'), 'edited by the user');
    const refused = await t.call('checkpoints.revert', { from: second.from, to: second.to, scope: { kind: 'all' } });
    expect(refused.applied).toEqual([]);
    expect(refused.refused).toMatchObject([{ path: 'sub/dir/new.txt', reason: expect.stringMatching(/changed/) }]);
    expect(readFileSync(join(t.work, 'sub/dir/new.txt'), 'utf8')).toBe('edited by the user');
  });

  it('uses the additional directories as roots only when the agent advertises them', async () => {
    const extra = join(t.work, '..', 'extra');
    mkdirSync(extra);
    writeFileSync(join(extra, 'x.txt'), 'extra file');
    const plain = await t.addAgent();
    const s1 = await t.call('sessions.create', { agentId: plain, cwd: t.work, additionalDirectories: [extra] });
    expect(s1.additionalDirectories).toEqual([]);
    expect((await reply(s1.id, `read ${extra}/x.txt`)).ok).toBe(false);

    const capable = await t.addAgent({ SCENARIO_CAPS: 'additionalDirectories' });
    const s2 = await t.call('sessions.create', { agentId: capable, cwd: t.work, additionalDirectories: [extra] });
    expect(s2.additionalDirectories).toEqual([extra]);
    expect(await reply(s2.id, `read ${extra}/x.txt`)).toEqual({ ok: true, result: { content: 'extra file' } });
    const log = await t.call('agents.log', { agentId: capable });
    expect(log.text).toContain(`additionalDirectories=${JSON.stringify([extra])}`);
  });
});
