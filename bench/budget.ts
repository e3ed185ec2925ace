// `npm run bench -- budget [--sessions=N]` (issue 39, section 2): what real-agent sessions cost, and what idle
// agents give back. The shared real agents (test/support/real-agents: those installed, round robin) against the fake
// LLM, one session each in its own folder (so one agent process each), driven through the core in this process.
// Main only: the bench runs the core without the browser build, so no renderer is measured; "main" is this process.
// Phases: N sessions opened and idle; all streaming a turn at once; idle again; the idle time passes (set to a few
// seconds here) and the agents are put to sleep; then one session is woken, against a plain stop + reopen
// (session/resume, else session/load) of another of the same agent.
// Prints, one per line:
//   budget.main_mb_per_idle_session: X MB      (main's heap + external after a GC with N more idle sessions − before) ÷ N (goal ≤ 2)
//   budget.idle_agents_mb_after_sleep_ratio: R  agents' RSS after the idle time ÷ before (goal ≤ 0.10)
//   budget.wake_vs_resume: R                    waking a session ÷ a plain reopen of that agent in the same run (goal ≤ 1.5)
// and '#' lines: per session the agent's process tree (RSS, CPU) idle and streaming, main, the machine's total.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { cpus, freemem, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { AppCore } from '../src/main/app-core';
import type { SessionInfo } from '../src/shared/contract/sessions';
import type { AgentMetrics } from '../src/shared/contract/supervisor';
import { startFakeLlm } from '../test/support/fake-llm/index';
import { agentLaunch, createAgentHome, isAgentInstalled, type AgentHome, type RealAgentId } from '../test/support/real-agents/index';
import { loadAvg, log, numberFlag, sleep } from './support/bench-app';
import { cpuMs } from './support/proc';
import { round1 } from './support/stats';

const N = numberFlag('sessions', 3);
// Main's memory is read after a full GC (the bench runs without --expose-gc: it is switched on here).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const IDLE_SECONDS = 6;
const MB = 1024 * 1024;
const mb = (b: number) => round1(b / MB);

const candidates: RealAgentId[] = ['qwen', 'gemini', 'claude-code'];
const installed = candidates.filter((id) => isAgentInstalled(id));
if (installed.length === 0) {
  console.error('budget: no real agent installed; run node scripts/install-test-agents.mjs qwen gemini claude-code');
  process.exit(1);
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-bench-budget-')));
const llm = await startFakeLlm();
const homes: AgentHome[] = [];
const core = new AppCore({ dataDir: join(root, 'data'), transport: 'browser', version: '0.0.0-bench', checkpoints: false });
const call = async <T>(method: string, params: unknown): Promise<T> => {
  const r = await core.router.invoke(method, params);
  if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
  return r.value as T;
};
const live = async () => (await call<{ sessions: SessionInfo[] }>('sessions.live', {})).sessions;
const metrics = async () => (await call<{ agents: AgentMetrics[] }>('agents.metrics', {})).agents;
async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
const turnsEnded = new Map<string, number>();
core.bus.connect((name, payload) => {
  if (name !== 'session.update') return;
  const p = payload as { sessionId: string; events: Array<{ event: { type: string } }> };
  for (const e of p.events) if (e.event.type === 'turn_end') turnsEnded.set(p.sessionId, (turnsEnded.get(p.sessionId) ?? 0) + 1);
});
async function promptAll(ids: string[], text: string): Promise<void> {
  const before = new Map(ids.map((id) => [id, turnsEnded.get(id) ?? 0]));
  for (const id of ids) await call('sessions.prompt', { sessionId: id, prompt: [{ type: 'text', text }] });
  await until('the turns to end', async () => ids.every((id) => (turnsEnded.get(id) ?? 0) > before.get(id)!));
}
const metricOf = (all: AgentMetrics[], s: SessionInfo) => all.find((m) => m.agentId === s.agentId && m.folder === s.cwd) ?? all.find((m) => m.agentId === s.agentId && !m.folder);
const machine = () => `${mb(totalmem() - freemem())} MB used of ${mb(totalmem())} MB, ${cpus().length} cores, load ${loadAvg()}`;

try {
  await call('settings.set', { key: 'agents.sleepIdleMinutes', value: 0 });
  const agents: Array<{ id: string; real: RealAgentId }> = [];
  for (const real of installed) {
    const home = createAgentHome(real);
    homes.push(home);
    const launch = agentLaunch(real, { llmUrl: llm.url, home: home.home });
    agents.push({ real, id: (await call<{ id: string }>('agents.addCustom', { name: real, command: launch.command, args: launch.args, env: launch.env })).id });
  }
  llm.when('budget-idle', [{ kind: 'text', text: 'Idle answer.' }]);
  llm.when('budget-stream', [{ kind: 'text', text: 'A longer answer, streamed. '.repeat(200) }]);
  const open = async (name: string, agentId: string): Promise<string> => {
    const cwd = join(root, name);
    mkdirSync(cwd);
    return (await call<SessionInfo>('sessions.create', { agentId, cwd })).id;
  };
  // A first session of each agent, not counted in main's figure: what main loads once (the agents' first start,
  // the code of a first session and turn) is not a cost per session.
  const warm: string[] = [];
  for (const a of agents) warm.push(await open(`warm-${a.real}`, a.id));
  await promptAll(warm, 'budget-idle: say hello');
  await sleep(3000);
  gc();
  // The JS heap and what it holds outside (buffers) after a full GC: RSS alone moves with what the allocator hands back.
  const held = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const mainBefore = process.memoryUsage().rss;
  const heldBefore = held();

  // N sessions, one turn each, then idle.
  const ids: string[] = [];
  for (let i = 0; i < N; i++) ids.push(await open(`project-${i}`, agents[i % agents.length]!.id));
  await promptAll(ids, 'budget-idle: say hello');
  await sleep(5000);
  gc();
  const mainIdle = process.memoryUsage().rss;
  const heldIdle = held();
  const sessions = await live();
  const idleMetrics = await until('a sample of every agent', async () => {
    const m = await metrics();
    return sessions.every((s) => metricOf(m, s)?.rssBytes != null) && m;
  });
  const agentsIdleBytes = sessions.reduce((n, s) => n + (metricOf(idleMetrics, s)?.rssBytes ?? 0), 0);

  // All streaming at once: the peak of each agent's tree and main, CPU over the phase.
  const cpu0 = cpuMs(process.pid);
  const t0 = performance.now();
  const peak = new Map<string, { rss: number; cpu: number }>();
  let mainPeak = 0;
  const streaming = { done: false };
  const sampling = (async () => {
    for (let done = false; !done; ) {
      const m = await metrics();
      for (const s of sessions) {
        const x = metricOf(m, s);
        const p = peak.get(s.id) ?? { rss: 0, cpu: 0 };
        peak.set(s.id, { rss: Math.max(p.rss, x?.rssBytes ?? 0), cpu: Math.max(p.cpu, x?.cpuPercent ?? 0) });
      }
      mainPeak = Math.max(mainPeak, process.memoryUsage().rss);
      done = streaming.done;
      await sleep(250);
    }
  })();
  await promptAll([...warm, ...ids], 'budget-stream: tell a long story');
  streaming.done = true;
  await sampling;
  const mainCpuStreaming = (cpuMs(process.pid) - cpu0) / (performance.now() - t0);

  log(`# ${N} sessions (and a first one of each agent) of ${installed.join(', ')} (real agents, fake LLM); main only (no renderer: the bench runs the core in-process)`);
  log(`# machine: ${machine()}`);
  log(`# main (after a GC): heap + external ${mb(heldBefore)} MB with a first session of each agent, ${mb(heldIdle)} MB with ${N} more idle; RSS ${mb(mainBefore)} → ${mb(mainIdle)} MB, ${mb(mainPeak)} MB peak streaming, CPU ${round1(mainCpuStreaming * 100)} % of a core streaming`);
  for (const s of sessions) {
    const x = metricOf(idleMetrics, s);
    const p = peak.get(s.id);
    log(`# session ${s.id.slice(0, 8)} (${agents.find((a) => a.id === s.agentId)?.real}): agent tree idle ${mb(x?.rssBytes ?? 0)} MB, ${x?.processes ?? 0} processes, ${round1(x?.cpuPercent ?? 0)} % CPU; streaming peak ${mb(p?.rss ?? 0)} MB, ${round1(p?.cpu ?? 0)} % CPU`);
  }
  log(`# agents idle: ${mb(agentsIdleBytes)} MB in all`);

  // The idle time passes: the agents that can come back are stopped.
  await call('settings.set', { key: 'agents.sleepIdleMinutes', value: IDLE_SECONDS / 60 });
  await until('the idle agents to sleep', async () => (await live()).filter((s) => s.asleep === 'asleep').length === sessions.length || false, IDLE_SECONDS * 1000 + 30_000).catch(() => null);
  await sleep(2000);
  const afterMetrics = await metrics();
  const after = await live();
  const agentsAfterBytes = after.reduce((n, s) => n + (metricOf(afterMetrics, s)?.pid != null ? (metricOf(afterMetrics, s)?.rssBytes ?? 0) : 0), 0);
  await call('settings.set', { key: 'agents.sleepIdleMinutes', value: 0 });
  const asleep = after.filter((s) => s.asleep === 'asleep');
  log(`# after ${IDLE_SECONDS} s idle: ${asleep.length} of ${sessions.length} asleep (${after.filter((s) => !s.asleep).map((s) => agents.find((a) => a.id === s.agentId)?.real).join(', ') || 'none'} awake); agents ${mb(agentsAfterBytes)} MB; machine ${machine()}`);

  // Waking one against a plain stop + reopen of another session of the same agent (its process started, then resumed or loaded).
  const woken = asleep[0];
  let wakeMs = NaN;
  let plainMs = NaN;
  if (woken) {
    const t1 = performance.now();
    await call('sessions.wake', { sessionId: woken.id });
    wakeMs = performance.now() - t1;
    await call('sessions.close', { sessionId: woken.id });
    const other = asleep.find((s) => s.agentId === woken.agentId && s.id !== woken.id);
    let plainId = other?.id;
    if (!plainId) {
      plainId = (await call<SessionInfo>('sessions.create', { agentId: woken.agentId, cwd: woken.cwd })).id;
      await promptAll([plainId], 'budget-idle: say hello');
    } else {
      await call('sessions.wake', { sessionId: plainId });
    }
    await call('agents.stop', { agentId: woken.agentId });
    await until('the session to fail with its agent stopped', async () => (await live()).find((s) => s.id === plainId)?.status === 'failed');
    const t2 = performance.now();
    await call('sessions.reopen', { sessionId: plainId });
    plainMs = performance.now() - t2;
    log(`# wake of a ${agents.find((a) => a.id === woken.agentId)?.real} session: ${Math.round(wakeMs)} ms; plain stop + reopen of one: ${Math.round(plainMs)} ms`);
  }

  log(`budget.main_mb_per_idle_session: ${round1((heldIdle - heldBefore) / MB / N)} MB`);
  log(`budget.idle_agents_mb_after_sleep_ratio: ${agentsIdleBytes > 0 ? Math.round((agentsAfterBytes / agentsIdleBytes) * 100) / 100 : 'n/a'}`);
  log(`budget.wake_vs_resume: ${Number.isFinite(wakeMs / plainMs) ? Math.round((wakeMs / plainMs) * 100) / 100 : 'n/a'}`);
} finally {
  await core.dispose();
  await llm.close();
  for (const h of homes) h.dispose();
  rmSync(root, { recursive: true, force: true });
}

// A folder watch holds the event loop (the process keeps one watch of its own: core/host/local/local-watch.ts): the bench ends here.
process.exit(0);
