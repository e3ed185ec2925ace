// `npm run bench -- stream [--quick]` (issue 3). Prints, one per line:
//   stream.ingest_rate: N updates/s      20,000 agent_message_chunk updates (~2 MB) from the scenario agent
//                                        through the app's core: line split, JSON parse, MessageLog (SQLite)
//                                        with the history indexer attached, validation, thread, bus events
//                                        serialized as the WebSocket server does. Median of 3 after a warm-up.
//   stream.ingest_vs_parse: X ratio      its time over a bare loop that only splits and JSON.parses the same
//                                        agent's same flood, in the same run.
//   stream.paint_latency: N ms           in Chromium against the built app: the agent floods 20,000 chunks,
//                                        then writes a last chunk `{mark=<Date.now()>}`; the page records
//                                        when that text is painted. Median of 3 after a warm-up.
// '#' lines: runs, the AcpService-only path (test/bench/stream.ts, no history indexer), and write → paint of
// chunks streamed at a steady 200/s.
// Goals: ≥ 50,000 updates/s, ≤ 3×, ≤ 100 ms.
import { rmSync } from 'node:fs';
import { runBaseline, runClientPath } from '../test/bench/stream';
import { startAppServer, type AppServer } from '../test/support/app-server';
import { launchBrowser, openApp } from '../test/support/browser';
import { addScenarioAgents, benchWorkDir, prompt, readyWorkspace, startSessionInPage, whenIdle } from './support/app-session';
import { runAppIngest } from './support/ingest';
import { installProbes, takePainted, waitForPainted } from './support/page-probes';
import { median, percentile, round1 } from './support/stats';
import { connectContract } from './support/ws-client';

const quick = process.argv.includes('--quick');
const CHUNKS = 20_000;
const BYTES = 100;
const RUNS = quick ? 1 : 3;
const log = (line: string) => console.log(line);

async function ingest(): Promise<void> {
  const baseline = await runBaseline({ chunks: CHUNKS, chunkBytes: BYTES, runs: RUNS });
  const app = await runAppIngest({ chunks: CHUNKS, chunkBytes: BYTES, runs: RUNS });
  const acpOnly = await runClientPath({ chunks: CHUNKS, chunkBytes: BYTES, runs: RUNS });
  const rate = app.updates / app.seconds;
  log(`# ingest: ${app.updates} updates of ~${BYTES} B, ${RUNS} runs after a warm-up; app core runs ${app.runs.map((s) => s.toFixed(3)).join(', ')} s (median ${app.seconds.toFixed(3)} s); ${(app.frameBytes / 1e6).toFixed(1)} MB of event frames`);
  log(`# ingest: parse-only baseline ${baseline.seconds.toFixed(3)} s (${Math.round(baseline.updates / baseline.seconds)} updates/s)`);
  log(`# ingest: AcpService without the history indexer or event serialization (test/bench/stream.ts): ${acpOnly.seconds.toFixed(3)} s = ${Math.round(acpOnly.updates / acpOnly.seconds)} updates/s`);
  log(`stream.ingest_rate: ${Math.round(rate)} updates/s`);
  log(`stream.ingest_vs_parse: ${(app.seconds / baseline.seconds).toFixed(2)} ratio`);
}

async function paint(): Promise<void> {
  const work = benchWorkDir();
  let app: AppServer | null = null;
  const browser = await launchBrowser();
  try {
    app = await startAppServer();
    const client = await connectContract(app);
    const [agent] = await addScenarioAgents(client, 1);
    const { page, context, errors } = await openApp(browser, app.url);
    try {
      await readyWorkspace(page);
      await installProbes(page);
      const sessionId = await startSessionInPage(page, agent!.name, work);
      const flood = async (n: number): Promise<number> => {
        const idle = whenIdle(client, sessionId);
        await prompt(client, sessionId, `flood-mark ${n} ${BYTES}`);
        const mark = await waitForPainted(page, 'marks', 300_000);
        await idle;
        return mark.painted - mark.sent;
      };
      await flood(2_000); // warm-up
      const runs: number[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(round1(await flood(CHUNKS)));
      log(`# paint: last of ${CHUNKS} chunks written → painted, runs ${runs.join(', ')} ms`);

      // Steady streaming: every chunk's write → paint.
      await takePainted(page);
      const idle = whenIdle(client, sessionId);
      await prompt(client, sessionId, `stream 200 ${quick ? 3 : 10} 40`);
      await waitForPainted(page, 'ends', 120_000);
      await idle;
      const chunks = (await takePainted(page)).chunks.map((c) => c.painted - c.sent);
      log(`# paint: steady 200 chunks/s, ${chunks.length} chunks: write → paint p50 ${round1(percentile(chunks, 50))} ms, p95 ${round1(percentile(chunks, 95))} ms, max ${round1(Math.max(...chunks))} ms`);
      if (errors.length) log(`# page errors: ${errors.slice(0, 3).join(' | ')}`);
      log(`stream.paint_latency: ${round1(median(runs))} ms`);
    } finally {
      await context.close();
      client.close();
    }
  } finally {
    await browser.close();
    await app?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await ingest();
await paint();
process.exit(0);
