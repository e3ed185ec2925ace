import { afterEach, describe, expect, it } from 'vitest';
import type { AgentMetrics } from '../../../src/shared/contract/supervisor';
import type { SettingEntryInput, SettingValues } from '../../../src/shared/contract/settings';
import { Hosts } from '../../../src/main/core/host/hosts';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { FakeClock } from '../../support/fake-clock';
import { agentText, makeCore, promptAndWait, turnEnd, type TestCore } from '../acp/helpers';

/**
 * The agent supervisor with real scenario-agent processes: metrics, crash restarts, exit loops, idle stop,
 * hangs, floods. Its time is a fake clock (samples, restart delays, hang and idle timeouts happen when the
 * test moves it), except in the flood tests, which measure real rates.
 */

let t: TestCore | null = null;
let clock = new FakeClock();
afterEach(async () => {
  await t?.dispose();
  t = null;
});

async function setup(settings: Partial<SettingValues> = {}, options: { realTime?: boolean; hosts?: Hosts } = {}): Promise<TestCore> {
  clock = new FakeClock();
  t = await makeCore({ ...(options.realTime ? {} : { clock }), ...(options.hosts ? { hosts: options.hosts } : {}) });
  for (const [key, value] of Object.entries(settings)) await t.call('settings.set', { key, value } as SettingEntryInput);
  return t;
}

/**
 * Moves the supervisor's clock on in steps of `stepMs` until `pred` holds, letting the agents' processes
 * (real ones, in real time) act between steps.
 */
async function advanceUntil<T>(pred: () => T | undefined | null | false, what: string, stepMs = 250): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const v = pred();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await clock.advance(stepMs);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const metricsOf = (t: TestCore, agentId: string): AgentMetrics[] =>
  t.rec
    .of('agent.metrics')
    .flatMap((p) => p.agents)
    .filter((m) => m.agentId === agentId);

/** The supervisor samples `count` more times (one a second of its clock). */
async function samplesLater(count: number): Promise<void> {
  await clock.advance(count * 1000);
}

const sessionStates = (t: TestCore, sessionId: string) => t.rec.of('session.state').filter((s) => s.id === sessionId);

describe('agent supervisor', () => {
  it('reports memory and CPU of a running agent, and clears them when it stops', async () => {
    const t = await setup();
    const agentId = await t.addAgent();
    const status = await t.call('agents.start', { agentId });
    expect(status.pid).toBeGreaterThan(0);
    const sample = await advanceUntil(
      () => metricsOf(t, agentId).find((m) => m.pid === status.pid && m.rssBytes !== null && m.cpuPercent !== null),
      'a metrics sample with memory and CPU',
      1000,
    );
    expect(() => process.kill(status.pid!, 0)).not.toThrow();
    expect(sample.processes).toBeGreaterThanOrEqual(1);
    // A node process takes tens of MB; a sample of zero or of terabytes would be wrong.
    expect(sample.rssBytes!).toBeGreaterThan(5 * 1024 * 1024);
    expect(sample.rssBytes!).toBeLessThan(4 * 1024 * 1024 * 1024);
    expect(sample.cpuPercent!).toBeGreaterThanOrEqual(0);
    const listed = (await t.call('agents.metrics', {})).agents.find((m) => m.agentId === agentId);
    expect(listed?.pid).toBe(status.pid);

    await t.call('agents.stop', { agentId });
    const after = (await t.call('agents.metrics', {})).agents.find((m) => m.agentId === agentId);
    expect(after).toMatchObject({ pid: null, rssBytes: null, cpuPercent: null, lastExit: null });
  }, 60_000);

  it('restarts a crashed agent after a delay and resumes its sessions', async () => {
    const t = await setup({ 'agents.restartDelaySeconds': 0.2 });
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'resume' });
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const firstPid = (await t.call('agents.metrics', {})).agents.find((m) => m.agentId === agentId)?.pid ?? (await t.call('agents.list', {})).agents[0]!.status.pid;

    const end = await promptAndWait(t, sessionId, 'crash');
    expect(end.error?.code).toBe('agent_exited');
    // The session says what happened and what comes next…
    await t.rec.until(() => sessionStates(t, sessionId).find((s) => s.status === 'failed' && /restarting it in \d+ s \(attempt 1 of 5\)/.test(s.error ?? '')), 'the restart notice');
    // Not before its delay…
    await clock.advance(100);
    expect(t.rec.of('agent.status').filter((s) => s.agentId === agentId && s.state === 'starting')).toHaveLength(1);
    // …then it comes back on its own, on a new process.
    await clock.advance(100);
    await t.rec.until(() => sessionStates(t, sessionId).at(-1)?.status === 'idle', 'the session to be resumed');
    const m = (await t.call('agents.metrics', {})).agents.find((x) => x.agentId === agentId)!;
    expect(m.restarts).toBe(1);
    expect(m.lastExit).toMatchObject({ code: 3, signal: null });
    const status = (await t.call('agents.list', {})).agents.find((a) => a.id === agentId)!.status;
    expect(status.state).toBe('running');
    expect(status.pid).not.toBe(firstPid);

    const again = await promptAndWait(t, sessionId, 'hello');
    expect(again.stopReason).toBe('end_turn');
    expect(agentText(t.rec, sessionId)).toContain('Hello from the scenario agent.');
  }, 60_000);

  it('says so when the restarted agent cannot resume the crashed session', async () => {
    const t = await setup({ 'agents.restartDelaySeconds': 0.2 });
    const agentId = await t.addAgent();
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await promptAndWait(t, sessionId, 'crash');
    const told = await advanceUntil(
      () => sessionStates(t, sessionId).find((s) => s.status === 'failed' && /was restarted, but it cannot resume this session/.test(s.error ?? '')),
      'the session to say it cannot come back',
    );
    expect(told.error).toMatch(/start a new session/);
    expect((await t.call('agents.list', {})).agents.find((a) => a.id === agentId)!.status.state).toBe('running');
  }, 60_000);

  it('brings a crashed session back even when a new session started the agent first', async () => {
    const t = await setup({ 'agents.restartDelaySeconds': 0.5 });
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'resume' });
    const { id: first } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await promptAndWait(t, first, 'crash');
    await t.rec.until(() => metricsOf(t, agentId).find((m) => m.nextRestartAt !== null), 'a restart to be due');
    // The user opens another session about when the restart is due: either may start the agent.
    const { id: second } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await clock.advance(500);
    await t.rec.until(() => sessionStates(t, first).at(-1)?.status === 'idle', 'the crashed session to be resumed');
    expect((await promptAndWait(t, first, 'hello')).stopReason).toBe('end_turn');
    expect((await promptAndWait(t, second, 'hello')).stopReason).toBe('end_turn');
    // One process served both: the restart did not kill the new session's agent.
    expect(t.rec.of('agent.status').filter((s) => s.agentId === agentId && s.state === 'starting').length).toBe(2);
  }, 60_000);

  it('stops restarting an agent that exits in a loop, and says why', async () => {
    const t = await setup({ 'agents.restartDelaySeconds': 0.1, 'agents.maxRestarts': 2 });
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'resume' });
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    // From now on every start of the agent dies right after initialize.
    await t.call('agents.update', { agentId, env: { SCENARIO_CAPS: 'resume', SCENARIO_EXIT_AFTER_INIT: '1' } });
    await promptAndWait(t, sessionId, 'crash');

    const gaveUp = await advanceUntil(() => metricsOf(t, agentId).find((m) => m.gaveUp !== null), 'the supervisor to give up', 100);
    expect(gaveUp.gaveUp).toMatch(/ended 3 times within 5 min, so Switchboard stopped restarting it/);
    const session = await t.rec.until(
      () => sessionStates(t, sessionId).find((s) => s.status === 'failed' && /stopped restarting it/.test(s.error ?? '')),
      'the session to say why',
    );
    expect(session.error).toMatch(/exited unexpectedly|exited during start-up/);
    // Exactly the first start and the two allowed restarts, and no more.
    const starts = () => t.rec.of('agent.status').filter((s) => s.agentId === agentId && s.state === 'starting').length;
    expect(starts()).toBe(3);
    expect((await t.call('agents.metrics', {})).agents.find((m) => m.agentId === agentId)?.nextRestartAt).toBeNull();
    // Minutes later, still no restart.
    await clock.advance(5 * 60_000);
    expect(starts()).toBe(3);

    // The user fixes it and restarts: a fresh start, the session comes back.
    await t.call('agents.update', { agentId, env: { SCENARIO_CAPS: 'resume' } });
    const { resumedSessions } = await t.call('agents.restart', { agentId });
    expect(resumedSessions).toEqual([sessionId]);
    expect((await t.call('agents.metrics', {})).agents.find((m) => m.agentId === agentId)?.gaveUp).toBeNull();
  }, 90_000);

  it('an idle agent costs no event per sample: agent.metrics only carries figures that changed', async () => {
    const t = await setup();
    const agentId = await t.addAgent();
    await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await advanceUntil(() => metricsOf(t, agentId).find((m) => m.cpuPercent !== null), 'a full sample', 1000);
    // A freshly started agent is still loading (its memory grows for a while, more slowly on a loaded
    // machine): idle means two samples in a row with nothing to report.
    for (let settled = false; !settled; ) {
      const seen = metricsOf(t, agentId).length;
      await samplesLater(2);
      settled = metricsOf(t, agentId).length === seen;
    }
    const before = metricsOf(t, agentId).length;
    await samplesLater(6);
    const sent = metricsOf(t, agentId).slice(before);
    // Six samples of an agent doing nothing: its figures rarely move (a CPU tick now and then), and each
    // event sent differs from the one before it.
    expect(sent.length).toBeLessThan(5);
    const all = metricsOf(t, agentId);
    for (let i = Math.max(1, before); i < all.length; i++) {
      const { sampledAt: _a, ...prev } = all[i - 1]!;
      const { sampledAt: _b, ...next } = all[i]!;
      expect(next).not.toEqual(prev);
    }
    // The request answers with the latest sample, also one that sent no event.
    const latest = async () => (await t.call('agents.metrics', {})).agents.find((m) => m.agentId === agentId)!.sampledAt;
    for (let i = 0; i < 10 && (await latest()) <= metricsOf(t, agentId).at(-1)!.sampledAt; i++) await samplesLater(1);
    expect(await latest()).toBeGreaterThan(metricsOf(t, agentId).at(-1)!.sampledAt);
  }, 60_000);

  it('an idle agent is sampled every few seconds, not every second, and at once again when it acts', async () => {
    const t = await setup();
    const agentId = await t.addAgent();
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    await advanceUntil(() => metricsOf(t, agentId).find((m) => m.cpuPercent !== null), 'a full sample', 1000);
    const sampledAt = async () => (await t.call('agents.metrics', {})).agents.find((m) => m.agentId === agentId)!.sampledAt;
    // Settled: two samples in a row with nothing to show (as in the test above).
    for (let settled = false; !settled; ) {
      const seen = metricsOf(t, agentId).length;
      await samplesLater(2);
      settled = metricsOf(t, agentId).length === seen;
    }
    const seen = new Set<number>();
    for (let i = 0; i < 10; i++) {
      await samplesLater(1);
      seen.add(await sampledAt());
    }
    // Ten seconds of an agent doing nothing: read two or three times (a figure that moved wakes it for a tick).
    expect(seen.size).toBeLessThan(6);
    expect(seen.size).toBeGreaterThanOrEqual(2);
    // The agent acts (a turn): the next second's tick reads it again.
    await promptAndWait(t, sessionId, 'hello');
    await samplesLater(1);
    expect(await sampledAt()).toBe(clock.now());
  }, 60_000);

  it("an idle agent's memory that grows still reaches the user, with nothing else happening", async () => {
    const t = await setup();
    const agentId = await t.addAgent();
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    // The agent answers, then, seconds later and silent, takes 64 MB more.
    await promptAndWait(t, sessionId, 'grow-later');
    const before = await advanceUntil(() => metricsOf(t, agentId).at(-1)?.rssBytes, 'a memory sample', 1000);
    const grown = await advanceUntil(() => metricsOf(t, agentId).find((m) => m.rssBytes !== null && m.rssBytes >= before + 60 * 1024 * 1024), 'the grown memory in agent.metrics', 1000);
    expect(grown.pid).not.toBeNull();
  }, 60_000);

  it('stops an agent with no open session after the idle timeout, not one with a session', async () => {
    const t = await setup({ 'agents.idleStopMinutes': 0.02 });
    const idle = await t.addAgent({}, 'Idle');
    const busy = await t.addAgent({}, 'Busy');
    const a = await t.call('sessions.create', { agentId: idle, cwd: t.work, additionalDirectories: [] });
    await t.call('sessions.create', { agentId: busy, cwd: t.work, additionalDirectories: [] });
    await t.call('sessions.close', { sessionId: a.id });
    // Not before the idle timeout (1.2 s)…
    await samplesLater(1);
    expect(t.rec.of('agent.status').some((s) => s.agentId === idle && s.state === 'stopped')).toBe(false);
    // …then stopped.
    await advanceUntil(() => t.rec.of('agent.status').find((s) => s.agentId === idle && s.state === 'stopped'), 'the idle agent to be stopped', 1000);
    // Two more samples later the busy one still runs.
    await samplesLater(2);
    const busyStatus = (await t.call('agents.list', {})).agents.find((x) => x.id === busy)!.status;
    expect(busyStatus.state).toBe('running');
    expect(t.rec.of('agent.status').some((s) => s.agentId === busy && s.state === 'stopped')).toBe(false);
  }, 60_000);

  it('fails a request the agent leaves unanswered, tells the user, and the agent can be restarted', async () => {
    const t = await setup({ 'agents.requestTimeoutSeconds': 1.5 });
    const agentId = await t.addAgent({ SCENARIO_CAPS: 'resume' });
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const { promptId } = await t.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text: 'hang' }] });
    const ended = () => t.rec.updates().find((u) => u.sessionId === sessionId && u.event.type === 'turn_end' && u.event.promptId === promptId);
    await advanceUntil(ended, 'the hung turn to end');
    const end = await turnEnd(t, sessionId, promptId);
    expect(end.error?.message).toMatch(/did not answer session\/prompt within 1\.5 s/);
    expect(t.rec.of('session.warning').find((w) => w.kind === 'unresponsive' && w.agentId === agentId)?.message).toMatch(/may be stuck/);
    const m = await advanceUntil(() => metricsOf(t, agentId).find((x) => x.unresponsive !== null), 'the agent flagged unresponsive');
    expect(m.unresponsive).toMatch(/session\/prompt/);
    // The session is usable again after a restart.
    await t.call('agents.restart', { agentId });
    await t.rec.until(() => sessionStates(t, sessionId).at(-1)?.status === 'idle', 'the session back');
    expect((await promptAndWait(t, sessionId, 'hello')).stopReason).toBe('end_turn');
    expect((await t.call('agents.metrics', {})).agents.find((x) => x.agentId === agentId)?.unresponsive).toBeNull();
  }, 60_000);

  it("a host out of reach stops the hang clock: a drop longer than the timeout neither fails the turn nor cancels it", async () => {
    // The agent's host as an SSH host is while it reconnects: its process lives on, out of reach.
    class DroppingHost extends LocalHost {
      up = true;
      isConnected(): boolean {
        return this.up;
      }
    }
    const host = new DroppingHost();
    const t = await setup({ 'agents.requestTimeoutSeconds': 2 }, { hosts: new Hosts(host) });
    const agentId = await t.addAgent();
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const { promptId } = await t.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text: 'say-hang' }] });
    const ended = () => t.rec.updates().find((u) => u.sessionId === sessionId && u.event.type === 'turn_end' && u.event.promptId === promptId);
    await t.rec.until(() => agentText(t.rec, sessionId) === 'thinking', 'the turn under way');
    await clock.advance(1000);
    host.up = false;
    // Two minutes of the supervisor's clock with the host out of reach: well past the 2 s timeout.
    for (let i = 0; i < 120; i++) await clock.advance(1000);
    await new Promise((r) => setTimeout(r, 50));
    expect(ended()).toBeUndefined();
    expect(t.rec.of('session.warning').some((w) => w.kind === 'unresponsive')).toBe(false);
    host.up = true;
    // Back in reach, the second before the drop still counts: the rest of the timeout, not a fresh one.
    const back = clock.now();
    await advanceUntil(ended, 'the hung turn to end', 100);
    expect(clock.now() - back).toBeLessThan(2000);
    expect((await turnEnd(t, sessionId, promptId)).error?.message).toMatch(/did not answer session\/prompt within 2 s/);
  }, 60_000);

  it('a turn whose tool call runs quietly is not a hang', async () => {
    const t = await setup({ 'agents.requestTimeoutSeconds': 0.5 });
    const agentId = await t.addAgent();
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const from = clock.now();
    const { promptId } = await t.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text: 'quiet-tool 2500' }] });
    // The silence starts once the tool call is under way (before that, an agent that says nothing is hanging: on a
    // busy machine the clock below would otherwise pass the timeout before the agent got to its tool call).
    await t.rec.until(
      () => t.rec.updates().find((u) => u.sessionId === sessionId && u.event.type === 'update' && u.event.update.sessionUpdate === 'tool_call'),
      'the tool call to start',
    );
    // The tool call's 2.5 s of silence are tens of seconds of the supervisor's clock: well past the timeout.
    await advanceUntil(() => t.rec.updates().find((u) => u.sessionId === sessionId && u.event.type === 'turn_end' && u.event.promptId === promptId), 'the turn to end');
    const end = await turnEnd(t, sessionId, promptId);
    expect(clock.now() - from).toBeGreaterThan(10 * 500);
    expect(end.error).toBeNull();
    expect(end.stopReason).toBe('end_turn');
    expect(agentText(t.rec, sessionId)).toBe('built');
  }, 60_000);

  it('a turn waiting on a permission answer is not a hang', async () => {
    const t = await setup({ 'agents.requestTimeoutSeconds': 0.5 });
    const agentId = await t.addAgent();
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    const { promptId } = await t.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text: 'permission' }] });
    const ask = await t.rec.until(() => t.rec.of('session.permission').find((p) => p.sessionId === sessionId), 'the permission request');
    // Well past the timeout: the turn is still going.
    await clock.advance(5000);
    expect(sessionStates(t, sessionId).at(-1)?.status).toBe('awaiting_permission');
    await t.call('sessions.respondPermission', { sessionId, requestId: ask.requestId, outcome: 'selected', optionId: ask.options[0]!.optionId });
    const end = await turnEnd(t, sessionId, promptId);
    expect(end.error).toBeNull();
  }, 60_000);

  it('a flooding agent does not hold up another agent', async () => {
    const t = await setup({}, { realTime: true });
    const flooder = await t.addAgent({}, 'Flooder');
    const quiet = await t.addAgent({}, 'Quiet');
    const f = await t.call('sessions.create', { agentId: flooder, cwd: t.work, additionalDirectories: [] });
    const q = await t.call('sessions.create', { agentId: quiet, cwd: t.work, additionalDirectories: [] });
    const flood = await t.call('sessions.prompt', { sessionId: f.id, prompt: [{ type: 'text', text: 'flood 100000 100' }] });
    // The flood is under way before the other prompt goes out.
    await t.rec.until(() => t.rec.of('session.update').some((u) => u.sessionId === f.id && u.events.some((e) => e.event.type === 'update')), 'the flood to start');
    const hello = await t.call('sessions.prompt', { sessionId: q.id, prompt: [{ type: 'text', text: 'hello' }] });
    const helloEnd = await turnEnd(t, q.id, hello.promptId, 60_000);
    const floodDoneWhenHelloEnded = t.rec.updates().some((u) => u.sessionId === f.id && u.event.type === 'turn_end');
    expect(helloEnd.stopReason).toBe('end_turn');
    expect(floodDoneWhenHelloEnded).toBe(false);
    const floodEnd = await turnEnd(t, f.id, flood.promptId, 120_000);
    expect(floodEnd.stopReason).toBe('end_turn');
    // Every chunk arrived, in order.
    const text = agentText(t.rec, f.id);
    expect(text.indexOf('0000000 ')).toBe(0);
    expect(text.indexOf('0099999 ')).toBeGreaterThan(text.indexOf('0099998 '));
  }, 180_000);
  it('throttles an agent that keeps flooding, tells the user why, loses nothing, and leaves another agent unaffected', async () => {
    // Flooding: over 2,000 messages a second for 1 s; then read at 2,000 a second.
    const t = await setup({ 'agents.floodPerSecond': 2000, 'agents.floodSeconds': 1, 'agents.floodThrottlePerSecond': 2000 }, { realTime: true });
    const flooder = await t.addAgent({}, 'Flooder');
    const quiet = await t.addAgent({}, 'Quiet');
    const f = await t.call('sessions.create', { agentId: flooder, cwd: t.work, additionalDirectories: [] });
    const q = await t.call('sessions.create', { agentId: quiet, cwd: t.work, additionalDirectories: [] });
    // From the bus, as it happens: when the user was told, and how many chunks came after that.
    let toldAt = 0;
    let endAt = 0;
    let afterTold = 0;
    t.core.bus.connect((name, payload) => {
      if (name === 'session.warning') {
        const w = payload as { agentId: string; kind: string };
        if (w.agentId === flooder && w.kind === 'flooding' && !toldAt) toldAt = performance.now();
      }
      if (name !== 'session.update') return;
      const p = payload as { sessionId: string; events: Array<{ event: { type: string }; merged?: number }> };
      if (p.sessionId !== f.id) return;
      for (const e of p.events) {
        if (toldAt && e.event.type === 'update') afterTold += e.merged ?? 1;
        if (e.event.type === 'turn_end') endAt = performance.now();
      }
    });
    // 10,000 chunks a second for 3 s.
    const flood = await t.call('sessions.prompt', { sessionId: f.id, prompt: [{ type: 'text', text: 'stream 10000 3 40' }] });
    const warning = await t.rec.until(() => t.rec.of('session.warning').find((w) => w.agentId === flooder && w.kind === 'flooding'), 'the flood warning', 30_000);
    expect(warning.message).toMatch(/the agent wrote [\d,]+ messages a second for 1 s \(more than 2,000\); Switchboard reads its output at 2,000 a second .*Nothing is dropped/);
    await t.rec.until(() => metricsOf(t, flooder).some((m) => m.throttled?.includes('reads its output at 2,000 a second')), 'the throttled flag in the metrics', 10_000);
    // The other agent answers while the flood is held back.
    const hello = await t.call('sessions.prompt', { sessionId: q.id, prompt: [{ type: 'text', text: 'hello' }] });
    const helloEnd = await turnEnd(t, q.id, hello.promptId, 60_000);
    expect(helloEnd.stopReason).toBe('end_turn');
    expect(t.rec.updates().some((u) => u.sessionId === f.id && u.event.type === 'turn_end')).toBe(false);
    const floodEnd = await turnEnd(t, f.id, flood.promptId, 120_000);
    expect(floodEnd.stopReason).toBe('end_turn');
    // Read at the throttled rate from the warning on (a pipe's worth and a grouped commit of slack).
    const seconds = (endAt - toldAt) / 1000;
    expect(seconds).toBeGreaterThan(1);
    expect(afterTold).toBeLessThanOrEqual(2000 * seconds + 2000);
    // Every chunk arrived, once, in order.
    const text = agentText(t.rec, f.id);
    const stamps = [...text.matchAll(/\{t=\d+:(\d+)\}/g)].map((m) => Number(m[1]));
    expect(stamps).toHaveLength(30_000);
    expect(stamps.every((v, i) => v === i)).toBe(true);
    expect(text).toMatch(/\{end=\d+\}$/);
    // Calm again: the flag goes.
    await t.rec.until(() => metricsOf(t, flooder).at(-1)?.throttled === null, 'the throttle to be lifted', 15_000);
  }, 180_000);
});

describe('supervisor helpers', () => {
  it('backs off 1, 2, 4… seconds, capped at 30', async () => {
    const { backoffMs } = await import('../../../src/main/core/acp/supervisor/supervisor');
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(n, 1000))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });

  it('parses /proc stat lines with odd command names', async () => {
    const { parseProcStat } = await import('../../../src/main/core/acp/supervisor/process-metrics');
    const fields = ['S', '1', '4242', '4242', '0', '-1', '0', '0', '0', '0', '0', '150', '50', '0', '0', '20', '0', '1', '0', '100', '123456', '2500'];
    expect(parseProcStat(`4242 (we ird) (x) ${fields.join(' ')}`)).toEqual({ pgrp: 4242, ticks: 200, rssPages: 2500 });
    expect(parseProcStat('garbage')).toBeNull();
  });

  it('sends a sample only when the user would see a difference: memory by 1 MiB or 1 %, CPU by a point, anything else at all', async () => {
    const { showsNew } = await import('../../../src/main/core/acp/supervisor/supervisor');
    const MB = 1024 * 1024;
    const sent = { pid: 7, processes: 1, rssBytes: 50 * MB, cpuPercent: 0.2, throttled: null } as AgentMetrics;
    const now = { pid: 7, processes: 1, rssBytes: 50 * MB, cpuPercent: 0.2, throttled: null };
    expect(showsNew(null, now)).toBe(true);
    expect(showsNew(sent, now)).toBe(false);
    expect(showsNew(sent, { ...now, rssBytes: 50.5 * MB, cpuPercent: 0.9 })).toBe(false);
    expect(showsNew(sent, { ...now, rssBytes: 51 * MB })).toBe(true);
    expect(showsNew(sent, { ...now, rssBytes: 49 * MB })).toBe(true);
    expect(showsNew({ ...sent, rssBytes: 500 * MB }, { ...now, rssBytes: 504 * MB })).toBe(false);
    expect(showsNew({ ...sent, rssBytes: 500 * MB }, { ...now, rssBytes: 506 * MB })).toBe(true);
    expect(showsNew(sent, { ...now, cpuPercent: 1.2 })).toBe(true);
    expect(showsNew(sent, { ...now, cpuPercent: null })).toBe(true);
    expect(showsNew(sent, { ...now, pid: 8 })).toBe(true);
    expect(showsNew(sent, { ...now, processes: 2 })).toBe(true);
    expect(showsNew(sent, { ...now, throttled: 'flooding' })).toBe(true);
  });
});

