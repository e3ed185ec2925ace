// `npm run bench -- stream [--quick]` (issue 3). Prints, one per line:
//   stream.ingest_rate: N updates/s      20,000 agent_message_chunk updates (~2 MB) from the scenario agent
//                                        through the app's core: line split, JSON parse, MessageLog (SQLite)
//                                        with the history indexer attached, validation, thread, bus events
//                                        serialized as the WebSocket server does. Median of 5, each after a
//                                        warm-up, and a first pair of runs not counted. Timed from the first
//                                        chunk received to the turn's end; the turn's start (its checkpoint
//                                        before the turn, a git snapshot of the folder) is printed on its own
//                                        '#' line.
//   stream.ingest_vs_parse: X ratio      its time over a bare loop that only splits and JSON.parses the same
//                                        agent's same flood, in the same run (runs alternate with the app's).
//                                        Both include the agent's own time to write the flood; '#' gives the
//                                        CPU-time ratio too (less sensitive to other load on the machine).
//   stream.paint_latency: N ms           in Chromium against the built app: the agent floods 20,000 chunks,
//                                        then writes a last chunk `{mark=<Date.now()>}`; the page records
//                                        when that text is painted. Median of 3 after a warm-up. '#': when
//                                        the mark reached a WebSocket client and the page's socket.
//   stream.main_cpu_vs_parse: X ratio    the server's CPU per update over the parse-only loop's (the CPU-time
//                                        ratio of the ingest runs above)
//   stream.paint_floor: N ms             the same flood and mark sent by the bench over a WebSocket to a bare
//                                        page in the same Chromium (support/floors.ts): this measure's floor
//   stream.paint_vs_floor: X ratio       paint_latency / paint_floor
//   …_throttled4x                        the three paint figures again with Chromium's CPU throttled 4×
//                                        (Emulation.setCPUThrottlingRate), app and floor alike: a slow laptop.
//                                        --no-throttle / --throttled-only run one of the two.
// --ingest-only / --paint-only run one half. SWITCHBOARD_BENCH_SERVER_PROFILE=file.cpuprofile: the server's CPU
// profile of the measured floods.
// '#' lines: runs, the ACP-services-only path (bench/support/client-path.ts, no history indexer), write → paint of
// chunks streamed at a steady 200/s, and the page's main-thread CPU per 1,000 of those updates.
// Goals: ≥ 50,000 updates/s, ≤ 3×, ≤ 100 ms.
import { writeFileSync } from 'node:fs';
import { runClientPath } from './support/client-path';
import { addScenarioAgents, prompt, startSessionInPage, whenIdle } from './support/app-session';
import { runAppIngest, runParseBaseline, type AppIngestRun, type IngestRun } from './support/ingest';
import { takeArrivals, takeMarkArrivals, takePainted, waitForPainted } from './support/page-probes';
import { median, percentile, round1 } from './support/stats';
import { connectContract } from '../test/support/contract-client';
import type { PayloadOf } from '../src/shared/contract';
import { loadAvg, log, serverProfileTo, withAppPage, withBenchApp } from './support/bench-app';
import { paintFloor, throttle, throttledSuffix, throttleRates } from './support/floors';

type SessionUpdatePayload = PayloadOf<'session.update'>;

const quick = process.argv.includes('--quick');
/** SWITCHBOARD_BENCH_PROFILE=file.cpuprofile: also records the page's CPU profile during the measured floods. */
const profileTo = process.env.SWITCHBOARD_BENCH_PROFILE ?? '';
const CHUNKS = 20_000;
const BYTES = 100;
const RUNS = quick ? 1 : 3;
/** Ingest runs are short (≈ 0.1 s): more of them steady the ratio. */
const INGEST_RUNS = quick ? 1 : 5;
/** Seconds of the steady 200 chunks/s stream. */
const STEADY_SECONDS = quick ? 3 : 10;

/** The page's Performance.getMetrics, by name (durations in seconds). */
async function pageMetrics(cdp: { send(method: 'Performance.getMetrics'): Promise<{ metrics: Array<{ name: string; value: number }> }> }): Promise<Record<string, number>> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
}

async function ingest(): Promise<void> {
  // Baseline and app runs alternate (each after its own warm-up), so both see the same machine load. The first
  // pair is not counted: in a fresh process it ran 1.3–1.6 times slower than the rest (the heap still growing to
  // its working size), which a long-running app is past.
  const base: IngestRun[] = [];
  const app: AppIngestRun[] = [];
  await runParseBaseline({ chunks: CHUNKS, chunkBytes: BYTES, runs: 1 });
  await runAppIngest({ chunks: CHUNKS, chunkBytes: BYTES, runs: 1 });
  for (let i = 0; i < INGEST_RUNS; i++) {
    base.push(await runParseBaseline({ chunks: CHUNKS, chunkBytes: BYTES, runs: 1 }));
    app.push(await runAppIngest({ chunks: CHUNKS, chunkBytes: BYTES, runs: 1 }));
  }
  const acpOnly = await runClientPath({ chunks: CHUNKS, chunkBytes: BYTES, runs: INGEST_RUNS });
  const updates = app[0]!.updates;
  const appS = median(app.map((r) => r.seconds));
  const baseS = median(base.map((r) => r.seconds));
  const appCpu = median(app.map((r) => r.cpuMs));
  const baseCpu = median(base.map((r) => r.cpuMs));
  const secs = (rs: IngestRun[]) => rs.map((r) => r.seconds.toFixed(3)).join(', ');
  log(`# ingest: ${updates} updates of ~${BYTES} B per run, ${INGEST_RUNS} runs each after a warm-up (and a first pair not counted); app core ${secs(app)} s, parse-only baseline ${secs(base)} s (alternating)`);
  log(`# ingest: CPU of this process per run (the agent excluded): app core ${Math.round(appCpu)} ms = ${(appCpu / (updates / 1000)).toFixed(1)} ms per 1k updates (${Math.round(updates / (appCpu / 1000))} updates/s on a core of its own), parse-only ${Math.round(baseCpu)} ms → CPU ratio ${(appCpu / baseCpu).toFixed(2)}; ${(app[0]!.frameBytes / 1e6).toFixed(1)} MB of event frames`);
  log(`# ingest: the ACP services without the history indexer or event serialization (bench/support/client-path.ts): ${acpOnly.seconds.toFixed(3)} s = ${Math.round(acpOnly.updates / acpOnly.seconds)} updates/s`);
  const appTurn = median(app.map((r) => r.turnSeconds));
  const baseTurn = median(base.map((r) => r.turnSeconds));
  log(`# ingest: whole turns (prompt sent → turn end, incl. the turn's start with its checkpoint): app ${appTurn.toFixed(3)} s, parse-only ${baseTurn.toFixed(3)} s → ratio ${(appTurn / baseTurn).toFixed(2)}; the app's turn start ≈ ${Math.round((appTurn - appS) * 1000)} ms`);
  log(`stream.ingest_rate: ${Math.round(updates / appS)} updates/s`);
  log(`stream.ingest_vs_parse: ${(appS / baseS).toFixed(2)} ratio`);
  log(`stream.main_cpu_vs_parse: ${(appCpu / baseCpu).toFixed(2)} ratio`);
}

async function paint(): Promise<void> {
  await withBenchApp(async ({ browser, app, work }) => {
    const client = await connectContract(app);
    const [agent] = await addScenarioAgents(client, 1);
    await withAppPage(browser, app.url, 'stream', async ({ page, context }) => {
      const sessionId = await startSessionInPage(page, agent!.name, work);
      // When the mark reaches a WebSocket client (the main process's share of the latency).
      let markAtSocket = 0;
      const off = client.on((name, payload) => {
        if (name !== 'session.update') return;
        for (const { event } of (payload as SessionUpdatePayload).events) {
          const text = event.type === 'update' && event.update.sessionUpdate === 'agent_message_chunk' && event.update.content.type === 'text' ? event.update.content.text : '';
          // The mark may arrive joined to the chunks before it (merged): look for it at the end.
          const at = text.lastIndexOf(' {mark=');
          if (at >= 0) markAtSocket = Date.now() - Number(text.slice(at + 7, -1));
        }
      });
      const flood = async (n: number): Promise<[number, number, number]> => {
        const idle = whenIdle(client, sessionId);
        await takeMarkArrivals(page);
        await prompt(client, sessionId, `flood-mark ${n} ${BYTES}`);
        const mark = await waitForPainted(page, 'marks', 300_000);
        await idle;
        return [mark.painted - mark.sent, markAtSocket, (await takeMarkArrivals(page))[0] ?? Number.NaN];
      };
      await flood(2_000); // warm-up
      for (const rate of throttleRates()) {
        const suffix = throttledSuffix(rate);
        const cpu = rate === 1 ? '' : ` (Chromium's CPU throttled ${rate}×)`;
        const undo = await throttle(page, rate);
        const cdp = profileTo && rate === throttleRates()[0] ? await context.newCDPSession(page) : null;
        if (cdp) {
          await cdp.send('Profiler.enable');
          await cdp.send('Profiler.start');
        }
        if (serverProfileTo && rate === throttleRates()[0]) app.proc.kill('SIGUSR2');
        const runs: number[] = [];
        const socket: number[] = [];
        const atPage: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          const [painted, atSocket, arrived] = await flood(CHUNKS);
          runs.push(round1(painted));
          socket.push(atSocket);
          atPage.push(round1(arrived));
        }
        if (serverProfileTo && rate === throttleRates()[0]) {
          app.proc.kill('SIGUSR2');
          await new Promise((r) => setTimeout(r, 1000));
          log(`# the server's CPU profile of the floods: ${serverProfileTo}`);
        }
        log(`# paint${cpu}: last of ${CHUNKS} chunks written → painted, runs ${runs.join(', ')} ms; → at a WebSocket client (main process share) ${socket.join(', ')} ms, → at the page's socket ${atPage.join(', ')} ms`);

        // Steady streaming: every chunk's write → paint.
        await takePainted(page);
        await takeArrivals(page);
        const metrics = await context.newCDPSession(page);
        await metrics.send('Performance.enable');
        const before = await pageMetrics(metrics);
        const idle = whenIdle(client, sessionId);
        await prompt(client, sessionId, `stream 200 ${STEADY_SECONDS} 40`);
        await waitForPainted(page, 'ends', 120_000);
        await idle;
        const after = await pageMetrics(metrics);
        await metrics.detach();
        const per1k = (name: string) => round1((((after[name] ?? 0) - (before[name] ?? 0)) * 1000 * 1000) / (200 * STEADY_SECONDS));
        // Performance.getMetrics: ThreadTime is the page's main thread's CPU time (not the time it waited for a
        // CPU, so it travels across loads); the others are the wall time of its tasks, scripts and style + layout.
        log(`# page${cpu}: steady 200 chunks/s, per 1,000 updates: main-thread CPU ${per1k('ThreadTime')} ms; tasks ${per1k('TaskDuration')} ms, of which script ${per1k('ScriptDuration')} ms, style + layout ${round1(per1k('RecalcStyleDuration') + per1k('LayoutDuration'))} ms`);
        if (cdp) {
          const { profile } = await cdp.send('Profiler.stop');
          writeFileSync(profileTo, JSON.stringify(profile));
          log(`# the page's CPU profile of the floods and the steady stream: ${profileTo}`);
        }
        await undo();
        const chunks = (await takePainted(page)).chunks.map((c) => c.painted - c.sent);
        const arrivals = await takeArrivals(page);

        // The floor, in the same Chromium at the same throttling: a bare page painting the same text over a WebSocket.
        const floor = await paintFloor(browser, { chunks: CHUNKS, bytes: BYTES, runs: RUNS, streamRate: 200, streamSeconds: STEADY_SECONDS, rate });
        log(`# paint${cpu}: steady 200 chunks/s, ${chunks.length} chunks: write → paint p50 ${round1(percentile(chunks, 50))} ms, p95 ${round1(percentile(chunks, 95))} ms, max ${round1(Math.max(...chunks))} ms; write → handled by the page's JS (incl. waiting for its main thread) p50 ${round1(percentile(arrivals, 50))} ms, p95 ${round1(percentile(arrivals, 95))} ms`);
        log(`# floor${cpu}: a bare page painting the same text over a WebSocket from the bench: last of ${CHUNKS} chunks → painted, runs ${floor.flood.map(round1).join(', ')} ms; steady 200 chunks/s: write → paint p50 ${round1(percentile(floor.steady, 50))} ms, p95 ${round1(percentile(floor.steady, 95))} ms → the app's steady p95 is ${(percentile(chunks, 95) / percentile(floor.steady, 95)).toFixed(2)}× it`);
        log(`stream.paint_latency${suffix}: ${round1(median(runs))} ms`);
        log(`stream.paint_floor${suffix}: ${round1(median(floor.flood))} ms`);
        log(`stream.paint_vs_floor${suffix}: ${(median(runs) / median(floor.flood)).toFixed(2)} ratio`);
      }
      off();
    }, { probes: true });
    client.close();
  });
}

log(`# load average at start: ${loadAvg()} (2 cores; other work on the machine slows every figure)`);
if (!process.argv.includes('--paint-only')) await ingest();
if (!process.argv.includes('--ingest-only')) await paint();
log(`# load average at end: ${loadAvg()}`);
process.exit(0);
