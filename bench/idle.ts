// `npm run bench -- idle [--quick]` (issue 16, goal 2): what an idle app costs. Two phases, each measured for
// 60 s (--quick: 15 s) after a settling pause:
//   baseline  the server with the page open and no agent;
//   idle      ten scenario agents, one open session each (a tab each, the last one visible), every thread
//             seeded with 1,000 entries, nothing streaming.
// Prints, one per line:
//   idle.baseline_cpu_percent: X %   the baseline's server + renderer CPU, of one core
//   idle.cpu_percent: X %            the idle phase's server + renderer CPU, of one core (goal ≤ 1)
//   idle.wakeups_per_s: N            timer, interval, idle and animation-frame callbacks the page ran, per second
// '#' lines split them: server and renderer apart, the browser's other processes, the agents, which callbacks,
// and what the page received over the WebSocket (events by name).
// CPU: utime + stime from /proc/<pid>/stat of the server process and of the page's renderer process (the
// Chromium child with --type=renderer; one page is open, so one renderer).
// SWITCHBOARD_BENCH_SERVER_PROFILE=/tmp/idle-server.cpuprofile also saves the server's CPU profile of the idle phase;
// SWITCHBOARD_BENCH_TRACE=/tmp/idle-trace.json a Chromium performance trace of it.
import type { Page } from 'playwright-core';
import { type AppServer } from '../test/support/app-server';
import { connectContract } from '../test/support/contract-client';
import { addScenarioAgents, readyWorkspace, startSessionInPage, whenIdle, prompt } from './support/app-session';
import { cmdline, cpuMs, descendants } from './support/proc';
import { round1 } from './support/stats';
import { loadAvg, log, serverProfileTo, sleep, withAppPage, withBenchApp } from './support/bench-app';
import { onSocketText } from './support/page-probes';

const quick = process.argv.includes('--quick');
const traceTo = process.env.SWITCHBOARD_BENCH_TRACE ?? '';
const AGENTS = 10;
const ENTRIES = 1000;
const SECONDS = quick ? 15 : 60;
const SETTLE_MS = 5000;

// Init script: counts the callbacks the page's timers, intervals, idle callbacks and animation frames run
// (by kind), and the WebSocket frames the page receives (by event name).
const WAKEUPS = `(() => {
  const w = window.__wakeups = { timeout: 0, interval: 0, raf: 0, idle: 0, frames: 0, bytes: 0, events: {} };
  const st = window.setTimeout, si = window.setInterval, raf = window.requestAnimationFrame, ric = window.requestIdleCallback;
  window.setTimeout = function (fn, ...rest) { return st.call(window, typeof fn === 'function' ? function (...a) { w.timeout++; return fn.apply(this, a); } : fn, ...rest); };
  window.setInterval = function (fn, ...rest) { return si.call(window, typeof fn === 'function' ? function (...a) { w.interval++; return fn.apply(this, a); } : fn, ...rest); };
  window.requestAnimationFrame = function (fn) { return raf.call(window, (t) => { w.raf++; fn(t); }); };
  if (ric) window.requestIdleCallback = function (fn, o) { return ric.call(window, (d) => { w.idle++; fn(d); }, o); };
  ${onSocketText(`(data) => {
    w.frames++;
    w.bytes += data.length;
    const re = /"name":"([\\w.]+)"/g;
    let m;
    while ((m = re.exec(data))) w.events[m[1]] = (w.events[m[1]] || 0) + 1;
  }`)}
})()`;

interface Wakeups {
  timeout: number;
  interval: number;
  raf: number;
  idle: number;
  frames: number;
  bytes: number;
  events: Record<string, number>;
}

const takeWakeups = async (page: Page): Promise<Wakeups> =>
  (await page.evaluate(`(() => { const w = window.__wakeups; const r = JSON.parse(JSON.stringify(w)); w.timeout = w.interval = w.raf = w.idle = w.frames = w.bytes = 0; w.events = {}; return r; })()`)) as Wakeups;

/** The page's renderer and the browser's other processes (browser, GPU, utility…). */
function chromiumProcesses(): { renderers: number[]; others: number[] } {
  // The browser playwright launched is a child of this process (its helpers are its descendants).
  const all = descendants(process.pid).filter((p) => /chrom/i.test(cmdline(p).split(' ')[0] ?? ''));
  if (all.length === 0) throw new Error('no browser process');
  const renderers = all.filter((p) => cmdline(p).includes('--type=renderer'));
  return { renderers, others: all.filter((p) => !renderers.includes(p)) };
}

const sumCpu = (pids: number[]): number => pids.reduce((s, p) => s + (Number.isFinite(cpuMs(p)) ? cpuMs(p) : 0), 0);

interface Phase {
  serverPct: number;
  rendererPct: number;
  othersPct: number;
  agentsPct: number;
  wakeups: Wakeups;
  seconds: number;
}

async function measure(app: AppServer, page: Page, agentPids: number[], seconds: number): Promise<Phase> {
  await sleep(SETTLE_MS);
  const pid = app.proc.pid!;
  const { renderers, others } = chromiumProcesses();
  if (renderers.length !== 1) log(`# note: ${renderers.length} renderer processes (all counted)`);
  await takeWakeups(page);
  const s0 = cpuMs(pid);
  const r0 = sumCpu(renderers);
  const o0 = sumCpu(others);
  const a0 = sumCpu(agentPids);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const wall = (performance.now() - t0) / 1000;
  const pct = (ms: number) => (ms / 1000 / wall) * 100;
  // Read the counters after the CPU figures: the evaluate itself wakes the page.
  const serverPct = pct(cpuMs(pid) - s0);
  const rendererPct = pct(sumCpu(renderers) - r0);
  const othersPct = pct(sumCpu(others) - o0);
  const agentsPct = pct(sumCpu(agentPids) - a0);
  const wakeups = await takeWakeups(page);
  return { serverPct, rendererPct, othersPct, agentsPct, wakeups, seconds: wall };
}

function describe(label: string, p: Phase): void {
  const w = p.wakeups;
  const per = (n: number) => round1(n / p.seconds);
  const events = Object.entries(w.events)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${per(v)}/s`)
    .join(', ');
  log(`# ${label}: server ${p.serverPct.toFixed(2)}%, renderer ${p.rendererPct.toFixed(2)}% of a core over ${p.seconds.toFixed(0)} s; the browser's other processes ${p.othersPct.toFixed(2)}%, the agents ${p.agentsPct.toFixed(2)}%`);
  log(`# ${label}: page callbacks/s: setTimeout ${per(w.timeout)}, setInterval ${per(w.interval)}, rAF ${per(w.raf)}, idle ${per(w.idle)}; WebSocket frames ${per(w.frames)}/s (${Math.round(w.bytes / p.seconds)} B/s)${events ? `: ${events}` : ''}`);
}

const wakeupsPerS = (p: Phase) => round1((p.wakeups.timeout + p.wakeups.interval + p.wakeups.raf + p.wakeups.idle) / p.seconds);

log(`# load average at start: ${loadAvg()} (2 cores; other work on the machine slows every figure)`);
await withBenchApp(async ({ browser, app, work }) => {
  const pid = app.proc.pid!;
  await withAppPage(browser, app.url, 'idle', async ({ page }) => {
    await page.addInitScript(WAKEUPS);
    await page.reload();
    await readyWorkspace(page);

    // ── baseline: no agent
    const base = await measure(app, page, [], SECONDS);
    describe('baseline (no agent)', base);

    // ── ten agents, ten sessions of 1,000 entries each, then nothing
    const client = await connectContract(app);
    const agents = await addScenarioAgents(client, AGENTS, 'Agent');
    await page.reload();
    await readyWorkspace(page);
    const sessionIds: string[] = [];
    for (const a of agents) sessionIds.push(await startSessionInPage(page, a.name, work));
    // One message per chunk (a new messageId each): ENTRIES thread entries per session.
    for (const id of sessionIds) {
      const done = whenIdle(client, id);
      await prompt(client, id, `stream ${ENTRIES * 2} 0.5 60 1`);
      await done;
    }
    const snap = await client.call<{ thread: { entries: unknown[] } }>('sessions.state', { sessionId: sessionIds[0]! });
    log(`# the first session's thread holds ${snap.thread.entries.length} entries`);
    client.close();
    const seeding = await takeWakeups(page);
    log(`# while seeding (the probe at work): setTimeout ${seeding.timeout}, rAF ${seeding.raf}, idle ${seeding.idle} callbacks, ${seeding.frames} WebSocket frames`);
    const entries = await page.locator('.tab-panel:not([hidden]) [data-testid=agent-message]').count();
    log(`# ${AGENTS} sessions seeded; the visible tab shows ${entries} agent messages (virtualized lists show fewer)`);
    const agentPids = descendants(pid).filter((p) => cmdline(p).includes('scenario-agent/agent.ts'));
    if (serverProfileTo) process.kill(pid, 'SIGUSR2');
    if (traceTo) await browser.startTracing(page, { path: traceTo, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel'] });
    const idle = await measure(app, page, agentPids, SECONDS);
    if (traceTo) {
      await browser.stopTracing();
      log(`# the page's performance trace: ${traceTo}`);
    }
    if (serverProfileTo) {
      process.kill(pid, 'SIGUSR2');
      await sleep(2000);
      log(`# the server's CPU profile: ${serverProfileTo}`);
    }
    describe(`idle (${AGENTS} agents, ${AGENTS} sessions of ${ENTRIES} entries)`, idle);
    log(`idle.baseline_cpu_percent: ${(base.serverPct + base.rendererPct).toFixed(2)} %`);
    log(`idle.baseline_wakeups_per_s: ${wakeupsPerS(base)}`);
    log(`idle.cpu_percent: ${(idle.serverPct + idle.rendererPct).toFixed(2)} %`);
    log(`idle.wakeups_per_s: ${wakeupsPerS(idle)}`);
  });
});
log(`# load average at end: ${loadAvg()}`);
process.exit(0);
