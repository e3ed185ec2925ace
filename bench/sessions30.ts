// `npm run bench -- sessions30 [--quick]` (issue 28 §3): thirty live sessions across six scenario agents, a tab
// each in one pane, in Chromium against the built app in browser mode. Twenty-five are idle with long threads
// (--entries=N each, default 2,000; --quick 300), five stream 200 agent_message_chunk updates/s each for 20 s
// (--quick 5 s); the visible tab is one of the five (the other 29 are hidden tabs).
// Prints, one per line:
//   sessions30.frame_p95: N ms                 the page's main-thread time per frame while the five stream, p95
//   sessions30.write_to_paint_p95: N ms        agent write → painted, every chunk of the visible tab, p95
//   sessions30.idle_cpu_percent: X %           the server's (with its git runs) and the page's renderer's CPU with nothing
//                                              streaming, once the stream's aftermath settled (the agents' own not counted),
//                                              over 30 s (--quick 10 s), % of one core
//   sessions30.server_kb_per_idle_session: N   the server's RSS growth from the agents defined to the thirty
//                                              sessions open and idle (threads filled), per session, each RSS
//                                              taken after a GC (support/heap-preload.mjs); '#': the JS heap's
//                                              share, and the RSS without the GC
//   sessions30.renderer_kb_per_tab: N          the renderer process's RSS growth from the page with no tab to the
//                                              thirty tabs open, per tab; '#': the JS heap's (after a GC)
//   …_throttled4x                              frame and write → paint again with Chromium's CPU throttled 4×
// '#' lines: each latency's floor from the same run (a bare page painting one 200/s stream over a WebSocket,
// support/floors.ts) and the ratio to it, also as figures (frame_floor_p95, frame_vs_floor, write_to_paint_floor_p95,
// write_to_paint_vs_floor, each pass); CPU and scheduling of the server and the renderer during the
// streams; the agents' own CPU and RSS. --no-throttle / --throttled-only run one of the two passes.
// SWITCHBOARD_BENCH_PROFILE / SWITCHBOARD_BENCH_SERVER_PROFILE: the page's / the server's CPU profile of the first stream pass
// (SWITCHBOARD_BENCH_SERVER_PROFILE_IDLE=1: the server's of the idle time instead; SWITCHBOARD_BENCH_PROFILE_IDLE=1: the page's).
// Goals: frame p95 ≤ 16 ms, write → paint p95 ≤ 50 ms, idle CPU ≤ 1 %, ≤ 5 MB per idle session, ≤ 10 MB per tab.
import { connectContract } from '../test/support/contract-client';
import { activateTab, addScenarioAgents, allIdle, prompt, startSessionInPage, whenIdle } from './support/app-session';
import { writeFileSync } from 'node:fs';
import { domCounters, heapBytes, loadAvg, log, numberFlag, serverMemoryAfterGc, serverProfileTo, settledRss, sleep, takeServerStamps, withAppPage, withBenchApp } from './support/bench-app';
import { paintFloor, throttle, throttledSuffix, throttleRates } from './support/floors';
import { recordFrames, takeArrivals, takeFrames, takePainted, waitForPainted } from './support/page-probes';
import { cmdline, cpuMs, descendants, reapedChildrenCpuMs, rendererRunning, rssBytes, schedstat, threadCpuMs } from './support/proc';
import { percentile, round1 } from './support/stats';

const quick = process.argv.includes('--quick');
/** SWITCHBOARD_BENCH_PROFILE=file.cpuprofile: the page's CPU profile of the first stream pass (and SWITCHBOARD_BENCH_SERVER_PROFILE the server's). */
const profileTo = process.env.SWITCHBOARD_BENCH_PROFILE ?? '';
/** SWITCHBOARD_BENCH_TRACE=file.json: Chromium's trace (devtools.timeline: style, layout, paint, tasks) of the first stream pass. */
const traceTo = process.env.SWITCHBOARD_BENCH_TRACE ?? '';
const serverProfileIdle = process.env.SWITCHBOARD_BENCH_SERVER_PROFILE_IDLE === '1';
const profileIdle = process.env.SWITCHBOARD_BENCH_PROFILE_IDLE === '1';
const ENTRIES = numberFlag('entries', quick ? 300 : 2_000);
const AGENTS = 6;
const SESSIONS = 30;
const STREAMING = 5;
const RATE = 200;
const SECONDS = quick ? 5 : 20;
const IDLE_SECONDS = quick ? 10 : 30;
const BYTES = 40;
const KB = 1024;
const MB = 1024 * 1024;

const sumCpu = (pids: number[]) => pids.reduce((s, p) => s + (Number.isNaN(cpuMs(p)) ? 0 : cpuMs(p)), 0);

log(`# load average at start: ${loadAvg()} (2 cores shared with other engineers' work: absolute figures are slower than on an idle machine; compare the ratios to the floors)`);
await withBenchApp(async (bench) => {
  const { browser, app, work } = bench;
  const pid = app.proc.pid!;
  const client = await connectContract(app);
  const agents = await addScenarioAgents(client, AGENTS, 'Agent');
  await withAppPage(browser, app.url, 'sessions30', async ({ page, context }) => {
    const renderer = await rendererRunning(() => page.evaluate('(() => { const end = performance.now() + 400; while (performance.now() < end); })()'));
    const server0 = await settledRss(pid);
    const gc0 = await serverMemoryAfterGc(bench);
    const renderer0 = await settledRss(renderer);
    const heap0 = await heapBytes(page);
    const dom0 = await domCounters(page);

    // Thirty tabs, five sessions per agent; the streaming ones are every sixth, the last of them opened last.
    const ids: string[] = [];
    const t0 = Date.now();
    for (let i = 0; i < SESSIONS; i++) ids.push(await startSessionInPage(page, agents[i % AGENTS]!.name, work));
    const streaming = ids.filter((_, i) => i % AGENTS === AGENTS - 1).slice(0, STREAMING);
    const idleIds = ids.filter((id) => !streaming.includes(id));
    log(`# open: ${SESSIONS} sessions of ${AGENTS} agents started through the page in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const t1 = Date.now();
    await Promise.all(
      idleIds.map(async (id, i) => {
        const idle = whenIdle(client, id, 900_000);
        await prompt(client, id, `long-thread ${ENTRIES} idle${i}-`);
        await idle;
      }),
    );
    log(`# fill: ${idleIds.length} threads of ${ENTRIES} entries each written by the agents in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
    // Every tab shown once (each thread rendered), then the last streaming one in view.
    for (let i = 0; i < ids.length; i++) await activateTab(page, ids[i]!, i);
    const visible = streaming.at(-1)!;
    await activateTab(page, visible, ids.indexOf(visible));
    await page.locator('.tab-panel:not([hidden]) [data-testid=session-tab][data-status=idle]').waitFor();

    const server1 = await settledRss(pid);
    const gc1 = await serverMemoryAfterGc(bench);
    const renderer1 = await settledRss(renderer);
    const heap1 = await heapBytes(page);
    const dom1 = await domCounters(page);
    const agentPids = descendants(pid).filter((p) => cmdline(p).includes('scenario-agent/agent.ts'));
    const agentRss = agentPids.reduce((s, p) => s + rssBytes(p), 0);
    log(`# memory: server RSS ${(server0 / MB).toFixed(1)} MB with ${AGENTS} agents defined → ${(server1 / MB).toFixed(1)} MB with ${SESSIONS} sessions open and idle (${idleIds.length} of ${ENTRIES} entries); the ${agentPids.length} agent processes' own RSS ${(agentRss / MB).toFixed(0)} MB (not counted)`);
    log(`# memory: the server after a GC: RSS ${(gc0.rss / MB).toFixed(1)} → ${(gc1.rss / MB).toFixed(1)} MB = ${Math.round((gc1.rss - gc0.rss) / SESSIONS / KB)} KB per session, of which JS heap ${(gc0.heapUsed / MB).toFixed(1)} → ${(gc1.heapUsed / MB).toFixed(1)} MB = ${Math.round((gc1.heapUsed - gc0.heapUsed) / SESSIONS / KB)} KB per session`);
    log(`# memory: renderer RSS ${(renderer0 / MB).toFixed(1)} MB with no tab → ${(renderer1 / MB).toFixed(1)} MB with ${SESSIONS} tabs, each shown once; JS heap after a GC ${(heap0 / MB).toFixed(1)} → ${(heap1 / MB).toFixed(1)} MB = ${Math.round((heap1 - heap0) / SESSIONS / KB)} KB per tab; DOM nodes ${dom0.nodes} → ${dom1.nodes} = ${Math.round((dom1.nodes - dom0.nodes) / SESSIONS)} per tab, JS event listeners ${dom0.jsEventListeners} → ${dom1.jsEventListeners}`);

    const c = await connectContract(app);
    const figures: string[] = [];
    for (const rate of throttleRates()) {
      const suffix = throttledSuffix(rate);
      const cpu = rate === 1 ? '' : ` (Chromium's CPU throttled ${rate}×)`;
      const undo = await throttle(page, rate);
      await takePainted(page);
      await takeArrivals(page);
      await takeServerStamps(bench);
      await recordFrames(page, true);
      const sched0 = [pid, renderer].map(schedstat);
      const cpu0 = [cpuMs(pid), cpuMs(renderer), sumCpu(agentPids)];
      const profiling = rate === throttleRates()[0];
      const profilingServer = profiling && serverProfileTo && !serverProfileIdle;
      const cdp = profiling && profileTo && !profileIdle ? await context.newCDPSession(page) : null;
      if (cdp) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.start');
      }
      if (profilingServer) process.kill(pid, 'SIGUSR2');
      if (profiling && traceTo) await browser.startTracing(page, { path: traceTo, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'cc', 'toplevel'] });
      const start = Date.now();
      await Promise.all(streaming.map((id) => prompt(c, id, `stream ${RATE} ${SECONDS} ${BYTES}`)));
      await waitForPainted(page, 'ends', (SECONDS + 120) * 1000);
      await allIdle(app, streaming, 120_000);
      const wall = (Date.now() - start) / 1000;
      if (profilingServer) {
        process.kill(pid, 'SIGUSR2');
        log(`# the server's CPU profile of the stream${cpu}: ${serverProfileTo}`);
      }
      if (profiling && traceTo) {
        await browser.stopTracing();
        log(`# Chromium's trace of the stream${cpu}: ${traceTo} (open in Chrome DevTools → Performance)`);
      }
      if (cdp) {
        const { profile } = await cdp.send('Profiler.stop');
        writeFileSync(profileTo, JSON.stringify(profile));
        await cdp.detach();
        log(`# the page's CPU profile of the stream${cpu}: ${profileTo} (open in Chrome DevTools → Performance)`);
      }
      const cpu1 = [cpuMs(pid), cpuMs(renderer), sumCpu(agentPids)];
      const sched1 = [pid, renderer].map(schedstat);
      await recordFrames(page, false);
      await undo();
      const frames = (await takeFrames(page)).busy;
      const painted = (await takePainted(page)).chunks.map((p) => p.painted - p.sent);
      const arrivals = await takeArrivals(page);
      const stamps = await takeServerStamps(bench);
      const floor = await paintFloor(browser, { chunks: 2_000, bytes: BYTES, runs: 0, streamRate: RATE, streamSeconds: Math.min(SECONDS, 10), rate });
      const pct = (ms: number) => `${((ms / 1000 / wall) * 100).toFixed(0)}% of a core`;
      const sched = (i: number) => `ran ${Math.round(sched1[i]!.runMs - sched0[i]!.runMs)} ms, waited ${Math.round(sched1[i]!.waitMs - sched0[i]!.waitMs)} ms for a CPU`;
      const frameP95 = percentile(frames, 95);
      const paintP95 = percentile(painted, 95);
      log(`# stream${cpu}: ${STREAMING} sessions × ${RATE} updates/s × ${SECONDS} s, ${SESSIONS - 1} tabs hidden, in ${wall.toFixed(1)} s; CPU: server ${pct(cpu1[0]! - cpu0[0]!)}, renderer ${pct(cpu1[1]! - cpu0[1]!)}, the agents ${pct(cpu1[2]! - cpu0[2]!)}; server main thread ${sched(0)}, renderer ${sched(1)}`);
      log(`# stream${cpu}: ${frames.length} frames, main-thread time per frame p50 ${round1(percentile(frames, 50))} ms, p95 ${round1(frameP95)} ms; ${painted.length} chunks of the visible tab, write → paint p50 ${round1(percentile(painted, 50))} ms, p95 ${round1(paintP95)} ms; write → handled by the page's JS, all ${STREAMING} sessions: p95 ${round1(percentile(arrivals, 95))} ms`);
      const p = (xs: number[]) => `p50 ${round1(percentile(xs, 50))} / p95 ${round1(percentile(xs, 95))}`;
      log(`# stream${cpu}: write → (ms after the agent's write, all ${STREAMING} sessions) read by the server ${p(stamps.recv)}; sent on the socket ${p(stamps.send)}; handled by the page's JS ${p(arrivals)}; painted (visible tab) ${p(painted)}`);
      log(`# floor${cpu}: a bare page painting one ${RATE}/s stream over a WebSocket: frame p95 ${round1(percentile(floor.frames, 95))} ms → ratio ${(frameP95 / percentile(floor.frames, 95)).toFixed(2)}; write → paint p95 ${round1(percentile(floor.steady, 95))} ms → ratio ${(paintP95 / percentile(floor.steady, 95)).toFixed(2)}`);
      figures.push(
        `sessions30.frame_p95${suffix}: ${round1(frameP95)} ms`,
        `sessions30.frame_floor_p95${suffix}: ${round1(percentile(floor.frames, 95))} ms`,
        `sessions30.frame_vs_floor${suffix}: ${(frameP95 / percentile(floor.frames, 95)).toFixed(2)} ratio`,
        `sessions30.write_to_paint_p95${suffix}: ${round1(paintP95)} ms`,
        `sessions30.write_to_paint_floor_p95${suffix}: ${round1(percentile(floor.steady, 95))} ms`,
        `sessions30.write_to_paint_vs_floor${suffix}: ${(paintP95 / percentile(floor.steady, 95)).toFixed(2)} ratio`,
      );
    }
    c.close();

    // Nothing streaming: what thirty open sessions cost, once the work the stream left is done (its turns'
    // snapshots; the store packs a session's log once it has been quiet for 30 s, checking every 30 s,
    // history/store-packer.ts; both processes' garbage collection of the stream): the server (with the git runs it
    // waited for, not its live agents) and the renderer quiet for 3 s in a row, at least 65 s after the stream,
    // at most 120 s. What that aftermath cost is printed beside.
    const serverCpu = () => cpuMs(pid) + reapedChildrenCpuMs(pid);
    const settle0 = [serverCpu(), cpuMs(renderer)];
    const s0 = Date.now();
    for (let quiet = 0; quiet < 3 && Date.now() - s0 < 120_000; ) {
      const before = serverCpu() + cpuMs(renderer);
      await sleep(1000);
      quiet = serverCpu() + cpuMs(renderer) - before <= 20 ? quiet + 1 : 0;
      if (Date.now() - s0 < 65_000) quiet = Math.min(quiet, 2);
    }
    const settled = [(Date.now() - s0) / 1000, serverCpu() - settle0[0]!, cpuMs(renderer) - settle0[1]!];
    log(`# idle: settled ${settled[0]!.toFixed(0)} s after the stream${settled[0]! >= 120 ? ' (not quiet yet: measured anyway)' : ''}; meanwhile the server used ${Math.round(settled[1]!)} ms of CPU, the renderer ${Math.round(settled[2]!)} ms`);
    const idle0 = [serverCpu(), cpuMs(renderer), sumCpu(agentPids), reapedChildrenCpuMs(pid)];
    const threads0 = threadCpuMs(pid);
    const i0 = Date.now();
    if (serverProfileTo && serverProfileIdle) process.kill(pid, 'SIGUSR2');
    const idleCdp = profileTo && profileIdle ? await context.newCDPSession(page) : null;
    const idleFrames = new Map<string, number>();
    if (idleCdp) {
      // What reaches the page while nothing streams: events by name, results of the page's own calls.
      idleCdp.on('Network.webSocketFrameReceived', ({ response }) => {
        try {
          const m = JSON.parse(response.payloadData) as { type: string; events?: Array<{ name: string }> };
          for (const name of m.type === 'events' ? (m.events ?? []).map((e) => e.name) : [m.type]) idleFrames.set(name, (idleFrames.get(name) ?? 0) + 1);
        } catch {
          idleFrames.set('(binary)', (idleFrames.get('(binary)') ?? 0) + 1);
        }
      });
      await idleCdp.send('Network.enable');
      await idleCdp.send('Profiler.enable');
      await idleCdp.send('Profiler.start');
    }
    await sleep(IDLE_SECONDS * 1000);
    if (idleCdp) {
      const { profile } = await idleCdp.send('Profiler.stop');
      writeFileSync(profileTo, JSON.stringify(profile));
      await idleCdp.detach();
      log(`# the page's CPU profile of the idle time: ${profileTo}; what reached it over the socket: ${[...idleFrames].map(([n, c]) => `${n} ×${c}`).join(', ') || 'nothing'}`);
    }
    if (serverProfileTo && serverProfileIdle) {
      process.kill(pid, 'SIGUSR2');
      log(`# the server's CPU profile of the idle time: ${serverProfileTo}`);
    }
    const idleWall = (Date.now() - i0) / 1000;
    const idle1 = [serverCpu(), cpuMs(renderer), sumCpu(agentPids), reapedChildrenCpuMs(pid)];
    const threads = [...threadCpuMs(pid)].map(([name, ms]) => [name, ms - (threads0.get(name) ?? 0)] as const).filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
    const idlePct = (k: number) => ((idle1[k]! - idle0[k]!) / 1000 / idleWall) * 100;
    log(`# idle: ${IDLE_SECONDS} s with nothing streaming: server ${idlePct(0).toFixed(2)} % (of which its git runs ${idlePct(3).toFixed(2)} %), renderer ${idlePct(1).toFixed(2)} % of a core; the ${agentPids.length} agents ${idlePct(2).toFixed(2)} % (not counted)`);
    const animations = (await page.evaluate(
      "document.getAnimations().filter((a) => a.playState === 'running').map((a) => { const t = a.effect && a.effect.target; return (t ? t.tagName.toLowerCase() + '.' + [...t.classList].join('.') + (t.checkVisibility() ? '' : ' (not rendered)') : '?') + ' ' + (a.animationName || a.constructor.name); })",
    )) as string[];
    log(`# idle: animations running in the page: ${animations.join(', ') || 'none'}`);
    log(`# idle: the server's threads, CPU ms in those ${IDLE_SECONDS} s: ${threads.map(([name, ms]) => `${name} ${Math.round(ms)}`).join(', ') || 'none'}`);
    for (const f of figures) log(f);
    log(`sessions30.idle_cpu_percent: ${(idlePct(0) + idlePct(1)).toFixed(2)} %`);
    log(`sessions30.server_kb_per_idle_session: ${Math.round((gc1.rss - gc0.rss) / SESSIONS / KB)} KB`);
    log(`sessions30.renderer_kb_per_tab: ${Math.round((renderer1 - renderer0) / SESSIONS / KB)} KB`);
  }, { probes: true });
  client.close();
});
log(`# load average at end: ${loadAvg()}`);
process.exit(0);
