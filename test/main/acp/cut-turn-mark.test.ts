import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeCore, type TestCore } from './helpers';

/**
 * A turn cut by Switchboard's stop (the agent never answered: killed with it) is marked in the conversation
 * after a restart on the same data folder: in the stored thread (history), and in the session reopened; its
 * checkpoints say so too, never "recording".
 */

let second: TestCore | null = null;
let scratch: string | null = null;
afterEach(async () => {
  await second?.dispose();
  second = null;
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('a turn cut by a restart of Switchboard', () => {
  it('carries a "cut short" mark in the stored and the reopened thread, and its changes are not shown as still recording', async () => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'sb-cut-')));
    const dataDir = join(scratch, 'data');
    const first = await makeCore({ dataDir, checkpoints: true });
    const agentId = await first.addAgent({ SCENARIO_CAPS: 'loadSession', SCENARIO_STORE: join(scratch, 'agent.json') });
    const s = await first.call('sessions.create', { agentId, cwd: first.work, additionalDirectories: [] });
    // The agent says a word, then never answers, not even the stop's cancel.
    await first.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'say-hang' }] });
    await first.rec.until(() => first.rec.updates().some((p) => p.sessionId === s.id && p.event.type === 'update' && JSON.stringify(p.event.update).includes('thinking')), 'the first words');
    await first.core.dispose();

    second = await makeCore({ dataDir, checkpoints: true });
    const t = second;
    await t.core.history.whenIndexed();
    const stored = await t.call('history.entries', { sessionId: s.id, offset: 0, limit: 500 });
    const kinds = stored.entries.map((e) => [e.kind, 'text' in e ? e.text : '']);
    expect(kinds.slice(0, 2)).toEqual([
      ['prompt', 'say-hang'],
      ['agent', 'thinking'],
    ]);
    expect(kinds.slice(2).map(([, text]) => text)).toEqual([expect.stringMatching(/Cut short: Switchboard stopped during this turn/)]);

    const [turn] = (await t.call('checkpoints.listTurns', { sessionId: s.id })).turns;
    expect(turn?.state).toBe('failed');
    expect(turn?.error).toMatch(/Switchboard stopped during this turn/);

    await t.call('sessions.reopen', { sessionId: s.id });
    const { thread } = await t.call('sessions.state', { sessionId: s.id });
    expect(thread.turn.running).toBe(false);
    const cut = thread.entries.filter((e) => e.kind === 'turn_error');
    expect(cut).toHaveLength(1);
    expect(cut[0]).toMatchObject({ message: expect.stringMatching(/^Cut short: Switchboard stopped/) });
  });
});
