import { beforeEach, describe, expect, it } from 'vitest';
import { ok } from '@shared/contract';
import type { AgentStatus, AgentSummary } from '@shared/contract/agents';
import type { AgentMetrics } from '@shared/contract/supervisor';
import { agentMetrics } from '../../../src/renderer/src/features/agents/metrics';
import { agentName, displayStatus, dropAgent, syncAgents, upsertAgent, useAgents } from '../../../src/renderer/src/features/agents/state';
import { FakeApi, settle } from '../support/fake-api';
import { sessionInfo } from '../support/fake-session';

function status(agentId: string, patch: Partial<AgentStatus> = {}): AgentStatus {
  return {
    agentId,
    state: 'stopped',
    pid: null,
    error: null,
    exitCode: null,
    signal: null,
    protocolVersion: null,
    agentInfo: null,
    capabilities: null,
    authMethods: [],
    canLogout: false,
    startedAt: null,
    ...patch,
  };
}

function agent(id: string, name: string, patch: Partial<AgentSummary> = {}): AgentSummary {
  return {
    id,
    name,
    source: 'custom',
    command: 'agent',
    args: [],
    env: {},
    cwd: null,
    version: null,
    registryId: null,
    overrides: { args: null, env: {} },
    compat: { missingFileAsEmpty: false },
    storedSecrets: [],
    status: status(id),
    ...patch,
  };
}

describe('agents and live sessions (features/agents/state)', () => {
  let api: FakeApi;
  let listed: AgentSummary[];

  beforeEach(() => {
    useAgents.setState(useAgents.getInitialState(), true);
    listed = [agent('a', 'Alpha'), agent('b', 'Beta')];
    api = new FakeApi()
      .handle('agents.list', () => ok({ agents: listed }))
      .handle('sessions.live', () => ok({ sessions: [sessionInfo({ id: 'live-1', agentId: 'a' })] }));
  });

  it('lists the agents and this run’s live sessions once per connection', async () => {
    syncAgents(api);
    syncAgents(api);
    await settle();
    expect(useAgents.getState()).toMatchObject({ loaded: true, error: null });
    expect(useAgents.getState().agents.map((a) => a.name)).toEqual(['Alpha', 'Beta']);
    expect(Object.keys(useAgents.getState().sessions)).toEqual(['live-1']);
    expect(api.callsOf('agents.list')).toHaveLength(1);
  });

  it('says why the list failed', async () => {
    const failing = new FakeApi().handle('sessions.live', () => ok({ sessions: [] }));
    syncAgents(failing);
    await settle();
    expect(useAgents.getState()).toMatchObject({ loaded: true, agents: [], error: 'no handler for agents.list in this test' });
  });

  it('follows agent.status: the agent’s own process, and its per-folder processes beside it', async () => {
    syncAgents(api);
    await settle();
    api.emit('agent.status', status('a', { state: 'running', pid: 42 }));
    api.emit('agent.status', status('b', { state: 'running', pid: 7, folder: '/work/two' }));
    api.emit('agent.status', status('b', { state: 'failed', error: 'crashed', folder: '/work/one' }));
    const [a, b] = useAgents.getState().agents;
    expect(a!.status).toMatchObject({ state: 'running', pid: 42 });
    expect(b!.status.state).toBe('stopped');
    expect(b!.folderProcesses?.map((p) => [p.folder, p.state])).toEqual([
      ['/work/one', 'failed'],
      ['/work/two', 'running'],
    ]);
    // The sidebar shows the busiest of them when the agent's own process is not running.
    expect(displayStatus(b!)).toMatchObject({ state: 'running', pid: 7 });
  });

  it('lists again when a status names an agent it does not know (installed in another window)', async () => {
    syncAgents(api);
    await settle();
    listed = [...listed, agent('c', 'Gamma')];
    api.emit('agent.status', status('c', { state: 'starting' }));
    await settle();
    expect(useAgents.getState().agents.map((a) => a.id)).toEqual(['a', 'b', 'c']);
  });

  it('keeps live sessions in step; a session that ended with an error keeps the reason', async () => {
    syncAgents(api);
    await settle();
    api.emit('session.state', sessionInfo({ id: 's2', agentId: 'b', status: 'working' }));
    expect(useAgents.getState().sessions.s2?.status).toBe('working');
    api.emit('session.state', sessionInfo({ id: 's2', agentId: 'b', status: 'closed', error: 'the agent refused to resume it' }));
    expect(useAgents.getState().sessions.s2).toBeUndefined();
    expect(useAgents.getState().endedErrors.s2).toBe('the agent refused to resume it');
    api.emit('session.state', sessionInfo({ id: 's2', agentId: 'b', status: 'idle' }));
    expect(useAgents.getState().endedErrors.s2).toBeUndefined();
  });

  it('adds, replaces and drops an agent at once; names an agent by the name it was added under', () => {
    upsertAgent(agent('a', 'Alpha'));
    upsertAgent(agent('a', 'Alpha renamed'));
    upsertAgent(agent('b', 'Beta'));
    dropAgent('b');
    const agents = useAgents.getState().agents;
    expect(agents.map((a) => a.name)).toEqual(['Alpha renamed']);
    expect(agentName(agents, 'a')).toBe('Alpha renamed');
    expect(agentName(agents, 'removed-agent')).toBe('removed-agent');
  });
});

describe('agent metrics (features/agents/metrics)', () => {
  const sample = (folder: string | null, patch: Partial<AgentMetrics>): AgentMetrics => ({
    agentId: 'a',
    folder,
    pid: 1,
    processes: 1,
    rssBytes: 100,
    cpuPercent: 10,
    sampledAt: 1,
    restarts: 0,
    nextRestartAt: null,
    gaveUp: null,
    unresponsive: null,
    throttled: null,
    lastExit: null,
    ...patch,
  });

  it('sums an agent’s processes over its folders, and keeps the warnings of any of them', () => {
    const all = {
      a: sample(null, { pid: 10, processes: 2, rssBytes: 1000, cpuPercent: 5 }),
      'a\0/one': sample('/one', { pid: 11, processes: 3, rssBytes: 500, cpuPercent: 20, restarts: 2, throttled: 'floods its output' }),
      'a\0/two': sample('/two', { pid: null, processes: 0, rssBytes: null, cpuPercent: null, gaveUp: 'exit loop' }),
      b: { ...sample(null, {}), agentId: 'b' },
    };
    expect(agentMetrics(all, 'a')).toMatchObject({ folder: null, pid: 10, processes: 5, rssBytes: 1500, cpuPercent: 25, restarts: 2, throttled: 'floods its output', gaveUp: 'exit loop' });
    expect(agentMetrics(all, 'b')?.agentId).toBe('b');
    expect(agentMetrics(all, 'nobody')).toBeNull();
  });
});
