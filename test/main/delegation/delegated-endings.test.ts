import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { SubagentEntry, ThreadEntry } from '../../../src/shared/acp-thread';
import { DELEGATION_SERVER_NAME } from '../../../src/shared/delegation';
import { initRepo } from '../../support/git-repo';
import { makeCore, type TestCore } from '../acp/helpers';
import { recordGivenServers } from './given-servers';

/**
 * How a delegated session ends with the session that started it (issue 42), on the real core with the real
 * delegation server process (driven by the MCP SDK's client, as the parent's agent would): the parent's cancel ends
 * its children's turns, its close closes them saying why, its agent's crash ends their turns; and the parent's card
 * of a child is stored with the parent's messages, so that after a restart it is still there, linked to the child's
 * stored thread, never shown running.
 */

let cores: TestCore[] = [];
let clients: Client[] = [];
afterEach(async () => {
  for (const c of clients) await c.close().catch(() => {});
  clients = [];
  for (const c of cores) await c.dispose();
  cores = [];
});

async function setup(dataDir?: string) {
  const t = await makeCore(dataDir ? { dataDir } : {});
  cores.push(t);
  return t;
}

async function agents(t: TestCore, env: Record<string, string> = {}) {
  initRepo(t.work);
  const given = recordGivenServers(t);
  const lead = await t.addAgent(env, 'Lead');
  const writer = await t.addAgent(env, 'Writer');
  await t.call('settings.set', { key: 'delegation.agents', value: [lead] });
  const parent = await t.call('sessions.create', { agentId: lead, cwd: t.work });
  const server = given(parent.id).find((s) => s.name === DELEGATION_SERVER_NAME)!;
  const transport = new StdioClientTransport({ command: server.command, args: server.args, env: Object.fromEntries(server.env.map((e) => [e.name, e.value])), stderr: 'inherit' });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { lead, writer, parent, client };
}

/** Starts a Writer session on `task` from the parent's delegation server; its id once its turn runs. */
async function delegate(t: TestCore, client: Client, task: string): Promise<string> {
  const r = (await client.callTool({ name: 'start_session', arguments: { agent: 'Writer', task } }, undefined, { timeout: 120_000 })) as { content: Array<{ text: string }>; isError?: boolean };
  expect(r.isError, r.content[0]?.text).not.toBe(true);
  const id = (JSON.parse(r.content[0]!.text) as { sessionId: string }).sessionId;
  await t.rec.until(() => t.core.acp.sessions.session(id)?.status === 'working', 'the delegated session at work');
  return id;
}

const status = (t: TestCore, id: string) => t.core.acp.sessions.session(id)?.status ?? 'gone';
const cards = (t: TestCore, parentId: string) => t.core.acp.sessions.session(parentId)!.snapshot().thread.entries.filter((e): e is SubagentEntry => e.kind === 'subagent');
const cardOf = (t: TestCore, parentId: string, childId: string) => cards(t, parentId).find((c) => c.childId === t.core.acp.sessions.session(childId)?.acpSessionId);
/** As the card reads: working only while its entry says so and its parent did not end it. */
const cardWorking = (c: SubagentEntry | undefined) => c !== undefined && !c.endedByParent && (c.state === 'running' || c.state === 'requires_action');

describe('a delegated session ends with its parent', () => {
  it("the parent's cancel ends its children's turns, and their cards say so", async () => {
    const t = await setup();
    const { parent, client } = await agents(t);
    await t.call('sessions.prompt', { sessionId: parent.id, prompt: [{ type: 'text', text: 'slow' }] });
    await t.rec.until(() => status(t, parent.id) === 'working', 'the parent at work');
    const child = await delegate(t, client, 'slow');
    await t.rec.until(() => cardWorking(cardOf(t, parent.id, child)), "the parent's card of its child, running");

    await t.call('sessions.cancel', { sessionId: parent.id, clearQueue: false });
    // The child's own turn was cancelled (its agent stopped its work), not only its card.
    await t.rec.until(() => status(t, child) === 'idle', 'the child at rest');
    const ended = t.rec.updates().find((u) => u.sessionId === child && u.event.type === 'turn_end');
    expect(ended?.event).toMatchObject({ stopReason: 'cancelled' });
    expect(cardWorking(cardOf(t, parent.id, child))).toBe(false);
    await t.rec.until(() => status(t, parent.id) === 'idle', 'the parent at rest');
    expect(cardWorking(cardOf(t, parent.id, child))).toBe(false);
  });

  it('closing the parent closes the sessions it started, each saying why; nothing is left running', async () => {
    const t = await setup();
    const { parent, client } = await agents(t);
    const first = await delegate(t, client, 'slow');
    const second = await delegate(t, client, 'slow');

    await t.call('sessions.close', { sessionId: parent.id });
    for (const id of [first, second]) {
      const closed = t.rec.of('session.state').filter((s) => s.id === id).at(-1)!;
      expect(closed).toMatchObject({ status: 'closed', error: 'It ended because its parent session was closed.' });
      expect(t.core.acp.sessions.session(id)).toBeUndefined();
    }
    // Stored ended: what the sidebar, the overview and History read of them.
    const subagents = (await t.call('sessions.subagents', { sessionId: parent.id })).subagents;
    expect(subagents.map((s) => [s.id, s.status, s.live])).toEqual([
      [first, 'closed', false],
      [second, 'closed', false],
    ]);
    expect(t.core.acp.sessions.list().filter((s) => s.status === 'working')).toEqual([]);
  });

  it("a parent whose agent crashed ends its children's turns", async () => {
    const t = await setup();
    const { parent, client } = await agents(t);
    const child = await delegate(t, client, 'slow');
    await t.call('sessions.prompt', { sessionId: parent.id, prompt: [{ type: 'text', text: 'crash' }] });
    await t.rec.until(() => status(t, parent.id) === 'failed', "the parent's agent gone");
    await t.rec.until(() => status(t, child) === 'idle', 'the child at rest');
    expect(t.rec.updates().find((u) => u.sessionId === child && u.event.type === 'turn_end')?.event).toMatchObject({ stopReason: 'cancelled' });
  });

  it("the parent's card of its child is stored with its messages: after a restart it is there, linked to the child's thread, ended", async () => {
    const t = await setup();
    const { parent, client } = await agents(t);
    const r = (await client.callTool({ name: 'start_session', arguments: { agent: 'Writer', task: 'sh-write notes.txt stored card', wait: true } }, undefined, { timeout: 120_000 })) as {
      content: Array<{ text: string }>;
    };
    const done = JSON.parse(r.content[0]!.text) as { sessionId: string; state: string };
    expect(done.state).toBe('idle');
    const childAcp = t.core.acp.sessions.session(done.sessionId)!.acpSessionId!;
    // A second child, still working when Switchboard is killed (its row stored as working).
    const running = await delegate(t, client, 'slow');
    const runningAcp = t.core.acp.sessions.session(running)!.acpSessionId!;
    await client.close();
    clients = [];
    const dataDir = t.dataDir;
    await t.core.dispose();
    cores = cores.filter((c) => c !== t);
    const db = new Database(join(dataDir, 'switchboard.db'));
    db.prepare("UPDATE sessions SET status = 'working' WHERE id = ?").run(running);
    db.close();

    const t2 = await setup(dataDir);
    const entries = (await t2.call('history.entries', { sessionId: parent.id, limit: 500 })).entries.map((e) => e.entry).filter((e): e is ThreadEntry => e !== undefined);
    const stored = entries.filter((e): e is SubagentEntry => e.kind === 'subagent');
    expect(stored.map((c) => [c.childId, c.title])).toEqual([
      [childAcp, 'Writer (delegated)'],
      [runningAcp, 'Writer (delegated)'],
    ]);
    expect(stored[0]).toMatchObject({ state: 'idle', description: 'sh-write notes.txt stored card' });
    // The card finds its child's stored thread, and no child comes back running.
    const subagents = (await t2.call('sessions.subagents', { sessionId: parent.id })).subagents;
    expect(subagents.map((s) => [s.acpSessionId, s.id, s.live, s.status])).toEqual([
      [childAcp, done.sessionId, false, 'closed'],
      [runningAcp, running, false, 'closed'],
    ]);
    const childText = (await t2.call('history.entries', { sessionId: done.sessionId, limit: 500 })).entries.map((e) => e.text).join('\n');
    expect(childText).toContain('wrote notes.txt');
  });

  it("after a restart the child's closing sentence is still said, and a child reopened from History is still its parent's: the reopened parent's cancel and close end it", async () => {
    const t = await setup();
    const { parent, client } = await agents(t, { SCENARIO_CAPS: 'resume' });
    const child = await delegate(t, client, 'slow');
    await t.call('sessions.close', { sessionId: parent.id });
    await t.rec.until(() => status(t, child) === 'gone', 'the child closed with its parent');
    await client.close();
    clients = [];
    const dataDir = t.dataDir;
    await t.core.dispose();
    cores = cores.filter((c) => c !== t);

    const t2 = await setup(dataDir);
    // History: the parent's row, the child under it, closed saying why (not a row of its own).
    const listed = (await t2.call('history.list', { limit: 50 })).sessions;
    expect(listed.map((s) => s.id)).toEqual([parent.id]);
    expect(listed[0]!.subagents.map((c) => [c.id, c.status, c.delegated, c.endedWhy])).toEqual([[child, 'closed', true, 'It ended because its parent session was closed.']]);

    // The child reopened first, then its parent: each knows the other.
    const reopenedChild = await t2.call('sessions.reopen', { sessionId: child });
    expect(reopenedChild.delegatedBy).toBe(parent.id);
    await t2.call('sessions.reopen', { sessionId: parent.id });
    // Reopened, it is not closed any more: the sentence is forgotten until it closes again.
    expect((await t2.call('history.list', { limit: 50 })).sessions[0]!.subagents[0]!.endedWhy ?? null).toBeNull();

    // The parent's cancel ends the child's turn.
    await t2.call('sessions.prompt', { sessionId: parent.id, prompt: [{ type: 'text', text: 'slow' }] });
    await t2.rec.until(() => status(t2, parent.id) === 'working', 'the parent at work');
    await t2.call('sessions.prompt', { sessionId: child, prompt: [{ type: 'text', text: 'slow' }] });
    await t2.rec.until(() => status(t2, child) === 'working', 'the child at work');
    await t2.call('sessions.cancel', { sessionId: parent.id, clearQueue: false });
    await t2.rec.until(() => status(t2, child) === 'idle', 'the child at rest');
    expect(t2.rec.updates().find((u) => u.sessionId === child && u.event.type === 'turn_end')?.event).toMatchObject({ stopReason: 'cancelled' });

    // The parent's close closes it, saying why.
    await t2.call('sessions.prompt', { sessionId: child, prompt: [{ type: 'text', text: 'slow' }] });
    await t2.rec.until(() => status(t2, child) === 'working', 'the child at work again');
    await t2.call('sessions.close', { sessionId: parent.id });
    expect(status(t2, child)).toBe('gone');
    expect(t2.rec.of('session.state').filter((s) => s.id === child).at(-1)).toMatchObject({ status: 'closed', error: 'It ended because its parent session was closed.' });
  });
});
