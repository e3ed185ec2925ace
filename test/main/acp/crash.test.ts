import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentText, eventually, makeCore, promptAndWait, turnEnd, type TestCore } from './helpers';
import type { AcpServices } from '../../../src/main/core/acp/acp-services';

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

describe('agent process failures', () => {
  it('an exit mid-turn fails the turn and its tool calls; restart brings the agent back', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const end = await promptAndWait(t, s.id, 'crash');
    expect(end.stopReason).toBeNull();
    expect(end.error).toMatchObject({ code: 'agent_exited' });
    expect(end.error?.message).toContain('exit code 3');
    // What it said before dying was delivered.
    expect(agentText(t.rec, s.id)).toBe('crashing now');
    const state = await t.call('sessions.state', { sessionId: s.id });
    expect(state.session.status).toBe('failed');
    const tool = state.thread.entries.find((e) => e.kind === 'tool_call');
    expect(tool?.kind === 'tool_call' && tool.status).toBe('failed');
    expect(state.thread.entries.at(-1)).toMatchObject({ kind: 'turn_error', code: 'agent_exited' });
    await t.rec.until(() => t.rec.of('agent.status').find((st) => st.state === 'exited' && st.exitCode === 3), 'agent status exited');
    expect(t.rec.of('session.state').at(-1)).toMatchObject({ id: s.id, status: 'failed' });
    // A failed session takes no prompts.
    expect((await t.callError('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'hello' }] })).code).toBe('unavailable');

    // This agent cannot resume: the old session stays failed, new sessions work.
    const restarted = await t.call('agents.restart', { agentId });
    expect(restarted.status.state).toBe('running');
    expect(restarted.resumedSessions).toEqual([]);
    const s2 = await t.call('sessions.create', { agentId, cwd: t.work });
    expect((await promptAndWait(t, s2.id, 'hello')).stopReason).toBe('end_turn');
  });

  it('resumes its sessions after a restart when the agent supports session/resume', async () => {
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'resume' });
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    await promptAndWait(t, s.id, 'crash');
    const restarted = await t.call('agents.restart', { agentId });
    expect(restarted.resumedSessions).toEqual([s.id]);
    const state = await t.call('sessions.state', { sessionId: s.id });
    expect(state.session.status).toBe('idle');
    expect((await promptAndWait(t, s.id, 'hello')).stopReason).toBe('end_turn');
    expect(agentText(t.rec, s.id)).toContain('Hello from the scenario agent.');
  });

  it('reports a command that cannot be started', async () => {
    const bad = await t.call('agents.addCustom', { name: 'Missing', command: '/no/such/agent-binary', args: [], env: {}, cwd: t.work });
    const err = await t.callError('sessions.create', { agentId: bad.id, cwd: t.work });
    expect(err.code).toBe('agent_error');
    const status = (await t.call('agents.list', {})).agents.find((a) => a.id === bad.id)!.status;
    expect(status.state).toBe('failed');
    expect(status.error).toBe('could not start: no such program "/no/such/agent-binary"');
    expect(err.message).toContain('could not start: no such program');
  });

  it('says a pasted command line is not a program (it never started, it did not exit)', async () => {
    const bad = await t.call('agents.addCustom', { name: 'Pasted', command: 'bash /path/to/agent.sh', args: [], env: {}, cwd: t.work });
    const err = await t.callError('sessions.create', { agentId: bad.id, cwd: t.work });
    expect(err.message).toContain('could not start: no such program "bash /path/to/agent.sh"');
    expect(err.message).toContain('put the program in Command');
    expect(err.message).not.toContain('exited');
  });

  it('stops cleanly: the agent is told, its sessions fail, stop then start works', async () => {
    const agentId = await t.addAgent();
    const s = await t.call('sessions.create', { agentId, cwd: t.work });
    const { promptId } = await t.call('sessions.prompt', { sessionId: s.id, prompt: [{ type: 'text', text: 'slow' }] });
    await t.rec.until(() => agentText(t.rec, s.id).includes('tick 2'), 'a few ticks');
    await t.call('agents.stop', { agentId });
    const end = await turnEnd(t, s.id, promptId);
    expect(end.error?.message).toBe('the agent was stopped');
    expect((await t.call('agents.list', {})).agents[0]!.status.state).toBe('stopped');
    const status = await t.call('agents.start', { agentId });
    expect(status.state).toBe('running');
  });
});

describe('stopping stubborn agents (trap 4)', () => {
  it('ends the whole process group even when the agent ignores SIGTERM and a grandchild holds its pipes', async () => {
    const agentId = await t.addAgent({ SCENARIO_STUBBORN: '1' });
    await t.call('agents.start', { agentId });
    const log = await eventually(async () => {
      const text = (await t.call('agents.log', { agentId })).text;
      return /grandchild pid (\d+)/.test(text) ? text : null;
    }, 'the grandchild pid');
    const grandchild = Number(/grandchild pid (\d+)/.exec(log)![1]);
    const pid = (await t.call('agents.list', {})).agents[0]!.status.pid!;
    expect(() => process.kill(grandchild, 0)).not.toThrow();
    await t.call('agents.stop', { agentId });
    expect((await t.call('agents.list', {})).agents[0]!.status.state).toBe('stopped');
    await eventually(() => {
      try {
        process.kill(grandchild, 0);
        return false;
      } catch {
        return true;
      }
    }, 'the grandchild to be gone');
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

/** ACP services of their own (no AppCore) with the given initialize timeout, and a way to add a hanging agent. */
async function withAcpService(initializeTimeoutMs: number, fn: (acp: AcpServices, addHanging: (name: string) => { id: string }) => Promise<void>): Promise<void> {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { AcpServices } = await import('../../../src/main/core/acp/acp-services');
  const { EventBus } = await import('../../../src/main/core/base/event-bus');
  const { StoreService } = await import('../../../src/main/core/store/store-service');
  const { PtyHost } = await import('../../../src/main/core/terminals/pty-host');
  const { defaultsReader } = await import('../../../src/main/core/settings/settings-service');
  const { scenarioAgentCommand } = await import('../../fixtures/scenario-agent/launch');
  const dir = mkdtempSync(join(tmpdir(), 'sb-init-'));
  const store = new StoreService(dir);
  const { Hosts } = await import('../../../src/main/core/host/hosts');
  const hosts = new Hosts();
  const ptys = new PtyHost(hosts.local);
  const acp = new AcpServices({ bus: new EventBus(), store, settings: defaultsReader, ptys, hosts, options: { dataDir: dir } }, { initializeTimeoutMs });
  const { command, args } = scenarioAgentCommand();
  try {
    await fn(acp, (name) => acp.agents.addCustom({ name, command, args, env: { SCENARIO_HANG_INIT: '1' }, cwd: dir }));
  } finally {
    await acp.dispose();
    await ptys.dispose();
    store.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('start-up failures', () => {
  it('gives up on an agent that does not answer initialize in time, and ends it', async () => {
    await withAcpService(1500, async (acp, addHanging) => {
      const agent = addHanging('hangs');
      await expect(acp.agents.start(agent.id)).rejects.toThrow(/did not answer initialize within 2 s/);
      const status = acp.pool.runtime(agent.id).status();
      expect(status.state).toBe('failed');
      expect(status.pid).toBeNull();
    });
  });

  it('stopping an agent that hangs in initialize ends it at once (not after the initialize timeout), as stopped', async () => {
    // An initialize timeout far beyond this test's own: stopping must not wait for it.
    await withAcpService(600_000, async (acp, addHanging) => {
      const agent = addHanging('hangs');
      const started = acp.agents.start(agent.id);
      const rt = acp.pool.runtime(agent.id);
      for (let i = 0; i < 200 && rt.status().pid === null; i++) await new Promise((r) => setTimeout(r, 50));
      const pid = rt.status().pid!;
      expect(pid).toBeGreaterThan(0);
      await Promise.all([rt.stop(), expect(started).rejects.toThrow(/stopped while it was starting/)]);
      expect(rt.status().state).toBe('stopped');
      expect(rt.status().pid).toBeNull();
      expect(() => process.kill(pid, 0)).toThrow();
      // Stopped right away too: while its launch is still being prepared.
      const again = addHanging('hangs too');
      const early = acp.agents.start(again.id);
      await Promise.all([acp.pool.runtime(again.id).stop(), expect(early).rejects.toThrow(/stopped while it was starting/)]);
      expect(acp.pool.runtime(again.id).status().state).toBe('stopped');
    });
  });
});
