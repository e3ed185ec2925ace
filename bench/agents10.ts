// `npm run bench -- agents10 [--quick]` (issue 6): ten scenario-agent processes, one session each, each in
// its own tab of one pane (all tabs live: the visible one folds and paints every frame, the hidden ones keep
// their updates raw and fold them when shown — session/controller.ts HIDDEN_MAX_PENDING),
// every agent streaming 200 agent_message_chunk updates/s for 30 s (--quick: 5 s) at the same time.
// Prints, one per line:
//   agents10.main_cpu_per_1k_updates: N ms   the server process's utime+stime (/proc/<pid>/stat) during the
//                                            run, per 1,000 updates
//   agents10.frame_p95: N ms                 the page's main-thread time per frame (from each animation
//                                            frame's rAF callback to the first task after that frame's
//                                            paint), p95 over the run; '#': the rAF deltas themselves
//   agents10.write_to_paint_p95: N ms        agent write (Date.now() in the chunk) → painted, for every
//                                            chunk of the visible tab
//   agents10.idle_agent_rss: N MB            the server's RSS growth per started idle agent with an open
//                                            session, averaged over the ten; '#': the agents' own RSS
// Goals: frame p95 < 16 ms, write-to-paint p95 < 50 ms.
// SWITCHBOARD_BENCH_PROFILE=/tmp/page.cpuprofile also saves the page's CPU profile of the run;
// SWITCHBOARD_BENCH_SERVER_PROFILE=/tmp/server.cpuprofile the server's (support/cpu-prof-preload.mjs);
// SWITCHBOARD_BENCH_TRACE=/tmp/trace.json a Chromium performance trace (style, layout, paint per frame).
import { readdirSync, writeFileSync } from 'node:fs';
import { type AppServer } from '../test/support/app-server';
import { openApp } from '../test/support/browser';
import { addScenarioAgents, prompt, readyWorkspace, startSessionInPage } from './support/app-session';
import { installArrivalProbe, installProbes, recordFrames, takeArrivals, takeFrames, takePainted, waitForPainted } from './support/page-probes';
import { cmdline, cpuMs, descendants, rssBytes, schedstat } from './support/proc';
import { setPriority } from 'node:os';
import { median, percentile, round1 } from './support/stats';
import { connectContract } from '../test/support/contract-client';
import { loadAvg, log, serverProfileTo, sleep, withBenchApp } from './support/bench-app';

const quick = process.argv.includes('--quick');
/** The figures' prefix (agents10_busy.ts runs this bench on loaded cores under its own name). */
const NAME = process.env.SWITCHBOARD_BENCH_NAME ?? 'agents10';
/** SWITCHBOARD_BENCH_PROFILE=file.cpuprofile: also records the page's CPU profile during the run. */
const profileTo = process.env.SWITCHBOARD_BENCH_PROFILE ?? '';
/** SWITCHBOARD_BENCH_TRACE=file.json: also records a Chromium performance trace of the run (DevTools → Performance). */
const traceTo = process.env.SWITCHBOARD_BENCH_TRACE ?? '';
const AGENTS = 10;
const RATE = 200;
const SECONDS = quick ? 5 : 30;
const BYTES = 40;
const MB = 1024 * 1024;

/** The server's RSS after a pause, the median of a few samples (GC makes single samples jumpy). */
async function settledRss(pid: number): Promise<number> {
  await sleep(2000);
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    xs.push(rssBytes(pid));
    await sleep(200);
  }
  return median(xs);
}

/** The page's renderer processes (Chromium children of this process with --type=renderer). */
function rendererPids(): number[] {
  return descendants(process.pid).filter((p) => /chrom/i.test(cmdline(p).split(' ')[0] ?? '') && cmdline(p).includes('--type=renderer'));
}

function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
}

async function allIdle(app: AppServer, sessionIds: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A short-lived connection: a socket left open during the run would double the server's sending.
    const c = await connectContract(app);
    const { sessions } = await c.call<{ sessions: Array<{ id: string; status: string }> }>('sessions.live', {});
    c.close();
    const busy = sessions.filter((s) => sessionIds.includes(s.id) && s.status !== 'idle');
    if (busy.length === 0) return;
    if (Date.now() > deadline) throw new Error(`${busy.length} sessions still busy`);
    await sleep(1000);
  }
}

log(`# load average at start: ${loadAvg()} (2 cores; other work on the machine slows every figure)`);
await withBenchApp(async ({ browser, app, work }) => {
  const pid = app.proc.pid!;
  const client = await connectContract(app);
  const agents = await addScenarioAgents(client, AGENTS, 'Agent');
  client.close();
  const { page, context, errors } = await openApp(browser, app.url);
  try {
    await installArrivalProbe(page);
    await readyWorkspace(page);
    await installProbes(page);
    const rss0 = await settledRss(pid);
    const sessionIds: string[] = [];
    for (const a of agents) sessionIds.push(await startSessionInPage(page, a.name, work));
    const rss1 = await settledRss(pid);
    const agentPids = descendants(pid).filter((p) => cmdline(p).includes('scenario-agent/agent.ts'));
    // Experiments on a loaded machine: SWITCHBOARD_BENCH_AGENT_NICE=N runs the agents at niceness N (their
    // threads too); SWITCHBOARD_BENCH_APP_NICE=N the server and the page's renderer (negative needs privileges).
    const niceOf = (name: string) => (process.env[name] ? Number(process.env[name]) : null);
    const renice = (pids: number[], n: number | null) => {
      if (n === null) return;
      for (const p of pids) for (const tid of threadsOf(p)) setPriority(tid, n);
      log(`# niceness ${n} for ${pids.length} processes`);
    };
    renice(agentPids, niceOf('SWITCHBOARD_BENCH_AGENT_NICE'));
    renice([pid, ...rendererPids()], niceOf('SWITCHBOARD_BENCH_APP_NICE'));
    const agentRss = agentPids.map((p) => rssBytes(p) / MB);
    log(`# idle: server RSS ${(rss0 / MB).toFixed(1)} MB with the page open and ${AGENTS} agents defined → ${(rss1 / MB).toFixed(1)} MB with ${AGENTS} agents running, one idle session each`);
    log(`# idle: the agent processes' own RSS (node + tsx + the ACP SDK): ${agentPids.length} processes, median ${agentRss.length ? median(agentRss).toFixed(1) : '?'} MB, total ${agentRss.reduce((a, b) => a + b, 0).toFixed(0)} MB`);

    // The run: every agent streams at once; the last opened tab is the visible one.
    const c = await connectContract(app);
    await takePainted(page);
    await takeArrivals(page);
    const cdp = profileTo ? await context.newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.start');
    }
    await recordFrames(page, true);
    if (traceTo) await browser.startTracing(page, { path: traceTo, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    if (serverProfileTo) process.kill(pid, 'SIGUSR2');
    const agentCpu0 = agentPids.reduce((sum, p) => sum + cpuMs(p), 0);
    const renderers = rendererPids();
    const sched0 = [pid, ...renderers].map(schedstat);
    const cpu0 = cpuMs(pid);
    const t0 = Date.now();
    await Promise.all(sessionIds.map((id) => prompt(c, id, `stream ${RATE} ${SECONDS} ${BYTES}`)));
    c.close();
    await waitForPainted(page, 'ends', (SECONDS + 120) * 1000);
    await allIdle(app, sessionIds, 120_000);
    const cpu1 = cpuMs(pid);
    const sched1 = [pid, ...renderers].map(schedstat);
    if (serverProfileTo) {
      process.kill(pid, 'SIGUSR2');
      await sleep(3000);
      log(`# the server's CPU profile: ${serverProfileTo}`);
    }
    const agentCpu = agentPids.reduce((sum, p) => sum + cpuMs(p), 0) - agentCpu0;
    const wall = (Date.now() - t0) / 1000;
    await recordFrames(page, false);
    if (traceTo) {
      await browser.stopTracing();
      log(`# the page's performance trace: ${traceTo}`);
    }
    if (cdp && profileTo) {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(profileTo, JSON.stringify(profile));
      log(`# the page's CPU profile: ${profileTo} (open in Chrome DevTools → Performance)`);
    }
    const frames = await takeFrames(page);
    const painted = (await takePainted(page)).chunks.map((p) => p.painted - p.sent);
    const arrivals = await takeArrivals(page);
    const updates = AGENTS * (Math.round(RATE * SECONDS) + 1);
    const cpu = cpu1 - cpu0;
    const long = frames.deltas.filter((d) => d > 25).length;
    log(`# run: ${AGENTS} agents × ${RATE} updates/s × ${SECONDS} s = ${updates} updates in ${wall.toFixed(1)} s; server CPU ${Math.round(cpu)} ms (${((cpu / 1000 / wall) * 100).toFixed(0)}% of a core); the agents' CPU ${Math.round(agentCpu)} ms (${((agentCpu / 1000 / wall) * 100).toFixed(0)}%)`);
    log(`# frames: ${frames.busy.length} frames; main-thread time per frame p50 ${round1(percentile(frames.busy, 50))} ms, p95 ${round1(percentile(frames.busy, 95))} ms; rAF delta p50 ${round1(percentile(frames.deltas, 50))} ms, p95 ${round1(percentile(frames.deltas, 95))} ms, ${((long / Math.max(1, frames.deltas.length)) * 100).toFixed(1)}% over 25 ms`);
    log(`# paint: ${painted.length} chunks of the visible tab; write → paint p50 ${round1(percentile(painted, 50))} ms, p95 ${round1(percentile(painted, 95))} ms, max ${round1(Math.max(...painted))} ms`);
    log(`# where: write → handled by the page's JS (agent pipe + main process + socket + waiting for the page's busy main thread), all ${AGENTS} sessions, ${arrivals.length} chunks: p50 ${round1(percentile(arrivals, 50))} ms, p95 ${round1(percentile(arrivals, 95))} ms; the rest of write → paint is the renderer`);
    const sched = (i: number) => `ran ${Math.round(sched1[i]!.runMs - sched0[i]!.runMs)} ms, waited ${Math.round(sched1[i]!.waitMs - sched0[i]!.waitMs)} ms for a CPU`;
    log(`# scheduling (main threads, /proc/<pid>/schedstat): server ${sched(0)}; renderer ${renderers.map((_, i) => sched(i + 1)).join(' / ')}`);
    if (errors.length) log(`# page errors: ${errors.slice(0, 3).join(' | ')}`);
    log(`${NAME}.main_cpu_per_1k_updates: ${round1(cpu / (updates / 1000))} ms`);
    log(`${NAME}.frame_p95: ${round1(percentile(frames.busy, 95))} ms`);
    log(`${NAME}.write_to_paint_p95: ${round1(percentile(painted, 95))} ms`);
    log(`${NAME}.idle_agent_rss: ${round1((rss1 - rss0) / AGENTS / MB)} MB`);
  } finally {
    await context.close();
  }
});
log(`# load average at end: ${loadAvg()}`);
process.exit(0);
