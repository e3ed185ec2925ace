import { mkdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';
import { agentText, makeCore, promptAndWait, type TestCore } from './helpers';

/**
 * Issue 14: agents that confine their tools to the folder they started in. An agent's process starts in the
 * folder of the session that needs it, one process per agent and project folder by default; the setting
 * `agents.processPerFolder` (false, or { [agentId]: false }) gives an agent one process for all folders.
 */

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

/** An agent without a working folder of its own (as one added in the form, or installed, is). */
async function addAgent(): Promise<string> {
  const { command, args } = scenarioAgentCommand();
  return (await t.call('agents.addCustom', { name: 'Sandboxed', command, args, env: { SCENARIO_CAPS: 'resume' }, cwd: null })).id;
}

async function whereami(sessionId: string): Promise<{ cwd: string; pid: number }> {
  await promptAndWait(t, sessionId, 'whereami');
  const said = agentText(t.rec, sessionId);
  return JSON.parse(said.slice(said.lastIndexOf('{"cwd"'))) as { cwd: string; pid: number };
}

function folder(name: string): string {
  const dir = join(t.work, name);
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

describe('one agent process per project folder', () => {
  it('starts the agent in each session folder, one process per folder, shared by sessions of that folder', async () => {
    const agentId = await addAgent();
    const [a, b] = [folder('proj-a'), folder('proj-b')];
    const s1 = await t.call('sessions.create', { agentId, cwd: a });
    const s2 = await t.call('sessions.create', { agentId, cwd: b });
    const s3 = await t.call('sessions.create', { agentId, cwd: a });
    const [w1, w2, w3] = [await whereami(s1.id), await whereami(s2.id), await whereami(s3.id)];
    expect(w1.cwd).toBe(a);
    expect(w2.cwd).toBe(b);
    expect(w3).toEqual(w1);
    expect(w2.pid).not.toBe(w1.pid);

    // The sidebar sees each process, with its folder; the supervisor measures each.
    const agent = (await t.call('agents.list', {})).agents.find((x) => x.id === agentId)!;
    expect(agent.folderProcesses?.map((p) => [p.folder, p.state, p.pid]).sort()).toEqual(
      [
        [a, 'running', w1.pid],
        [b, 'running', w2.pid],
      ].sort(),
    );
    const metrics = (await t.call('agents.metrics', {})).agents.filter((m) => m.agentId === agentId && m.folder);
    expect(metrics.map((m) => m.folder).sort()).toEqual([a, b].sort());

    // A crash of one folder's process fails only that folder's sessions; Restart brings them back.
    await t.call('settings.set', { key: 'agents.autoRestart', value: false });
    process.kill(w2.pid, 'SIGKILL');
    await t.rec.until(() => t.rec.of('session.state').some((x) => x.id === s2.id && x.status === 'failed'), 'the crashed folder session to fail');
    expect((await t.call('sessions.state', { sessionId: s1.id })).session.status).toBe('idle');
    const restarted = await t.call('agents.restart', { agentId });
    expect(restarted.resumedSessions).toContain(s2.id);
    expect((await whereami(s2.id)).cwd).toBe(b);
  });

  it('with agents.processPerFolder off for the agent, one process in its own folder serves every folder', async () => {
    const agentId = await addAgent();
    await t.call('settings.set', { key: 'agents.processPerFolder', value: { [agentId]: false } });
    const s1 = await t.call('sessions.create', { agentId, cwd: folder('one') });
    const s2 = await t.call('sessions.create', { agentId, cwd: folder('two') });
    const [w1, w2] = [await whereami(s1.id), await whereami(s2.id)];
    expect(w1).toEqual(w2);
    expect(w1.cwd).toBe(realpathSync(homedir()));
    const agent = (await t.call('agents.list', {})).agents.find((x) => x.id === agentId)!;
    expect(agent.status).toMatchObject({ state: 'running', pid: w1.pid });
    expect(agent.folderProcesses).toEqual([]);
  });
});
