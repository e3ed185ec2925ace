import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeCore, promptAndWait, type TestCore } from '../acp/helpers';

let t: TestCore;
afterEach(async () => t?.dispose());

/** A session that runs two turns through the scenario agent's shell: one names its file, one does not. */
async function twoTurns() {
  t = await makeCore({ checkpoints: true });
  const folder = join(t.work, 'proj');
  mkdirSync(folder);
  // The second turn runs this script: the file it writes is named nowhere in the conversation.
  writeFileSync(join(folder, 'make.sh'), 'mkdir -p out && printf "totals\\n" > out/quarterly-ledger.txt\n');
  const agentId = await t.addAgent();
  const session = await t.call('sessions.create', { agentId, cwd: folder });
  expect((await promptAndWait(t, session.id, 'sh-write notes/todo.txt buy milk\\n')).error).toBeNull();
  expect((await promptAndWait(t, session.id, 'sh-run make.sh')).error).toBeNull();
  await t.core.checkpoints.idle();
  return { folder, session };
}

describe("a turn's changed files in history", () => {
  it('finds the session by the name of a file a shell command wrote, which the conversation never mentions', async () => {
    const { session } = await twoTurns();
    const conversation = await t.call('history.export', { sessionId: session.id, format: 'json' });
    expect(conversation.text).not.toContain('quarterly-ledger');

    for (const query of ['quarterly-ledger.txt', 'out/quarterly-ledger.txt', 'quarterly ledger']) {
      const { hits } = await t.call('history.search', { query });
      expect(hits.map((h) => [h.sessionId, h.kind]), query).toEqual([[session.id, 'changes']]);
    }
    const { hits } = await t.call('history.search', { query: 'quarterly-ledger.txt' });
    expect(hits[0]!.snippet.text).toContain('out/quarterly-ledger.txt');

    // The hit opens the transcript at the turn's prompt.
    const page = await t.call('history.entries', { sessionId: session.id, limit: 50, offset: 0, aroundSeq: hits[0]!.seq });
    const target = page.entries[page.targetIndex! - page.offset]!;
    expect(target).toMatchObject({ kind: 'prompt', text: 'sh-run make.sh', turn: 2 });
    t.core.history.index().checkIntegrity();
  });

  it("gives every entry of a recorded turn the turn's prompt id, and keeps the changes out of the transcript", async () => {
    const { session } = await twoTurns();
    const { turns } = await t.call('checkpoints.listTurns', { sessionId: session.id });
    expect(turns.map((x) => x.changes?.files.map((f) => f.path))).toEqual([['notes/todo.txt'], ['out/quarterly-ledger.txt']]);

    const { entries, total } = await t.call('history.entries', { sessionId: session.id, limit: 100, offset: 0 });
    expect(total).toBe(entries.length);
    expect(entries.map((e) => e.kind)).not.toContain('changes');
    const prompts = entries.filter((e) => e.kind === 'prompt');
    expect(prompts.map((e) => e.promptId)).toEqual(turns.map((x) => x.promptId));
    for (const e of entries) if (e.turn > 0) expect(e.promptId).toBe(turns[e.turn - 1]!.promptId);
  });

  it('keeps changed files searchable when the index is rebuilt', async () => {
    const { session } = await twoTurns();
    t.core.history.index().rebuild();
    t.core.history.index().checkIntegrity();
    const { hits } = await t.call('history.search', { query: 'quarterly-ledger.txt' });
    expect(hits.map((h) => h.sessionId)).toEqual([session.id]);
    const { entries } = await t.call('history.entries', { sessionId: session.id, limit: 100, offset: 0 });
    expect(entries.filter((e) => e.kind === 'prompt').every((e) => e.promptId)).toBe(true);
  });

  it("reviews a past session's turn after its folder is gone, and refuses to restore into it", async () => {
    const { folder, session } = await twoTurns();
    await t.call('sessions.close', { sessionId: session.id });
    rmSync(folder, { recursive: true, force: true });

    const { turns } = await t.call('checkpoints.listTurns', { sessionId: session.id });
    expect(turns.map((x) => [x.state, x.folderMissing])).toEqual([
      ['recorded', true],
      ['recorded', true],
    ]);
    const changes = turns[1]!.changes!;
    const diff = await t.call('checkpoints.fileDiff', { from: changes.from, to: changes.to, path: 'out/quarterly-ledger.txt' });
    expect(diff.newText).toBe('totals\n');

    const err = await t.callError('checkpoints.revert', { from: changes.from, to: changes.to, scope: { kind: 'all' } });
    expect(err.message).toMatch(/no longer exists/);
    expect((await t.callError('checkpoints.rewind', { turnId: turns[1]!.id })).message).toMatch(/no longer exists/);
    expect(() => rmSync(folder)).toThrow(/ENOENT/);
    const { hits } = await t.call('history.search', { query: 'quarterly-ledger.txt' });
    expect(hits.map((h) => h.sessionId)).toEqual([session.id]);
  });
});
