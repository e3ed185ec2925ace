import { recordGivenServers } from '../delegation/given-servers';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DELEGATION_SERVER_NAME } from '../../../src/shared/delegation';
import type { Compare } from '../../../src/shared/contract/compare';
import type { TaskRun } from '../../../src/shared/contract/tasks';
import { initRepo } from '../../support/git-repo';
import { eventually, makeCore, type TestCore } from '../acp/helpers';

/**
 * The spend guard beyond tasks, on the real core with the scenario agent (its own process) reporting tokens:
 * each run of a comparison is paused at the limits given to the comparison, and a delegated session's spending
 * counts against its guarded parent, whose pause cancels the child's turn too.
 */

let t: TestCore | null = null;
let client: Client | null = null;
afterEach(async () => {
  await client?.close().catch(() => {});
  client = null;
  await t?.dispose();
  t = null;
});

const runs = async (): Promise<TaskRun[]> => (await t!.call('tasks.runs', { inbox: false })).runs;
const turnEnds = (sessionId: string) =>
  t!.rec
    .updates()
    .filter((u) => u.sessionId === sessionId && u.event.type === 'turn_end')
    .map((u) => (u.event.type === 'turn_end' ? u.event.stopReason : null));

describe('the spend guard over compare runs and delegated sessions', () => {
  it('each run of a comparison is paused at the limit it was given: its turn cancelled, waiting in the Inbox', async () => {
    t = await makeCore({ timeZone: 'UTC' });
    initRepo(t.work);
    const a = await t.addAgent({}, 'One');
    const b = await t.addAgent({}, 'Two');
    const created = await t.call('compare.create', { repo: t.work, prompt: 'spend 200 1000 -', agentIds: [a, b], limits: { runTokens: 3000 } });
    const sessions = created.runs.map((r) => r.sessionId!);
    expect(sessions.every(Boolean)).toBe(true);
    const paused = await eventually(async () => {
      const list = (await runs()).filter((r) => r.state === 'paused');
      return list.length === 2 ? list : null;
    }, 'both compare runs paused', 30_000);
    expect(paused.map((r) => r.sessionId).sort()).toEqual([...sessions].sort());
    for (const r of paused) {
      expect(r.pause).toMatchObject({ limit: 'runTokens', allowed: 3000, spent: 3000 });
      expect(r.inbox).toBe('open');
    }
    for (const s of sessions) await t.rec.until(() => turnEnds(s).length === 1, 'the turn to end');
    expect(sessions.map(turnEnds)).toEqual([['cancelled'], ['cancelled']]);
    const ended = await t.rec.until(() => t!.rec.of('compare.changed').find((c: Compare) => c.id === created.id && c.runs.every((r) => r.endedAt !== null)), 'both runs ended');
    expect(ended.runs.map((r) => r.stopReason)).toEqual(['cancelled', 'cancelled']);
    // Their spending (to where the cancel reached the agent) counts toward today's, per agent.
    const usage = await t.call('tasks.usage', { days: 1 });
    for (const id of [a, b]) expect(usage.byAgent.find((x) => x.agentId === id)?.tokens).toBeGreaterThanOrEqual(3000);
  }, 60_000);

  it("a delegated session's spending counts against its guarded parent: the parent pauses at its limit and the child's turn is cancelled", async () => {
    t = await makeCore({ timeZone: 'UTC' });
    initRepo(t.work);
    const lead = await t.addAgent({}, 'Lead');
    const writer = await t.addAgent({}, 'Writer');
    await t.call('settings.set', { key: 'delegation.agents', value: [lead] });
    const given = recordGivenServers(t);
    const parent = await t.call('sessions.create', { agentId: lead, cwd: t.work });
    const { runId } = await t.call('tasks.guardSession', { sessionId: parent.id, limits: { runTokens: 4000 } });

    const server = given(parent.id).find((s) => s.name === DELEGATION_SERVER_NAME)!;
    client = new Client({ name: 'test-agent', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env: Object.fromEntries(server.env.map((e) => [e.name, e.value])), stderr: 'inherit' }));
    const r = (await client.callTool({ name: 'start_session', arguments: { agent: 'Writer', task: 'spend 200 1000 -', where: 'folder', wait: true } }, undefined, { timeout: 60_000 })) as {
      content: Array<{ text: string }>;
    };
    const child = (JSON.parse(r.content.map((c) => c.text).join('')) as { sessionId: string }).sessionId;

    const run = await eventually(async () => (await runs()).find((x) => x.id === runId && x.state === 'paused') ?? null, 'the parent paused', 30_000);
    expect(run.pause).toMatchObject({ limit: 'runTokens', allowed: 4000, spent: 4000 });
    expect(run.sessionId).toBe(parent.id);
    await t.rec.until(() => turnEnds(child).length === 1, "the child's turn to end");
    expect(turnEnds(child)).toEqual(['cancelled']);
    // Today's spending names the agent that spent it.
    const usage = await t.call('tasks.usage', { days: 1 });
    expect(usage.byAgent.find((x) => x.agentId === writer)?.tokens).toBeGreaterThanOrEqual(4000);
  }, 60_000);
});
