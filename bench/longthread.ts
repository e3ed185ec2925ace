// `npm run bench -- longthread [--quick]` (issue 16): one live session of 100,000 thread entries (--quick:
// 20,000), opened in Chromium against the built app in browser mode.
//
// The thread comes from the real path: a scenario agent (test/fixtures/scenario-agent, `long-thread`) writes
// it over stdio in ten turns of 10,000 entries (messages, thoughts, reads, edits with diffs, commands with
// terminal output; ~10 MB of text), the app ingests and stores it as it would a real agent's. The session
// stays live; "reload with a 100k-entry live thread" is the page reloaded with its tab open: the tab
// attaches to the live session (sessions.state) as it does after every reload.
// Prints, one per line:
//   longthread.open_first_paint: N ms        page reload → the first thread row painted (navigation start →
//                                             the first task after the frame that shows it), median of 3;
//                                             '#': the same for a 100-entry session (baseline), and for a
//                                             session of one 11 MB agent message (a variant)
//   longthread.scroll_frame_p95: N ms        the wheel from the bottom to the top (the first entry shown)
//                                             and back, ~400 wheel events each way (each a flick of 1/400 of
//                                             the list, at least 2,000 px): the page's main-thread time per
//                                             frame, p95; '#': the same over the 100-entry thread
//   longthread.keypress_to_paint_p95: N ms   typing in the composer while the agent streams 200 updates/s
//                                             into that thread: keydown → the frame that shows the character
//                                             painted (event timestamp → first task after that frame), at the
//                                             60 Hz Chromium draws at here; '#': its parts (handlers, the wait
//                                             for the next frame, that frame), the same with nothing streaming,
//                                             and both again in a Chromium that draws each frame as soon as it
//                                             is ready (--disable-frame-rate-limit: no wait for a refresh); and the
//                                             floor: a bare textarea, alone and beside a line changed every frame
//   longthread.renderer_heap: N MB           the page's JS heap after a GC, once scrolled to the top and
//                                             back; '#': after opening, and the renderer process's RSS
//   longthread.open_100k_vs_100: X            open_first_paint over the 100-entry thread's, same run
//   longthread.scroll_floor_p95 / scroll_vs_floor   the same wheel over a plain page of 5,000 rows (the floor of
//                                             scrolling in this Chromium), and scroll_frame_p95 over it
//   longthread.keypress_floor_p95 / keypress_vs_floor   the bare textarea beside a line changed every frame
//                                             (the floor while streaming), and keypress_to_paint_p95 over it
//   …_throttled4x                             first paint, its ratio, scrolling, typing and their ratios again with
//                                             Chromium's CPU throttled 4× (floors throttled alike, each printed
//                                             beside its ratio); --no-throttle skips that pass, --throttled-only
//                                             runs only it (SWITCHBOARD_BENCH_TRACE=/tmp/t.json: a performance
//                                             trace of its typing while the agent streams)
// SWITCHBOARD_BENCH_PROFILE=/tmp/page.cpuprofile also saves the page's CPU profile of the wheel trip;
// --entries=N sets the thread's length.
// Goals: first paint ≤ 300 ms, scroll frame p95 ≤ 16 ms, keypress → paint p95 ≤ 16 ms.
import { writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openApp } from '../test/support/browser';
import { connectContract, type ContractClient } from '../test/support/contract-client';
import { addScenarioAgents, prompt, readyWorkspace, startSessionInPage, whenIdle } from './support/app-session';
import { installProbes, recordFrames, takeFrames } from './support/page-probes';
import { cmdline, descendants, rssBytes } from './support/proc';
import { median, percentile, round1 } from './support/stats';
import { loadAvg, log, numberFlag, sleep, withAppPage, withBenchApp } from './support/bench-app';
import { scrollFloor, throttle, throttledSuffix, throttleRates } from './support/floors';

const quick = process.argv.includes('--quick');
const ENTRIES = numberFlag('entries', quick ? 20_000 : 100_000);
const TURNS = 10;
const BASELINE_ENTRIES = 100;
const RUNS = 3;
const MB = 1024 * 1024;
/** The scrolling floor: a plain page of rows, wheeled as the thread is (2,000 px a flick), every flick scrolling. */
const SCROLL_FLOOR = { rows: 5_000, events: 70, delta: 2_000 };
const THROTTLED_WHEEL = 200;
const ACTIVE = '.tab-panel:not([hidden]) [data-testid=session-tab]';

// Before the app's scripts: resolves when the visible session tab's first thread row has been painted.
const FIRST_ROW = `(() => {
  window.__firstRow = new Promise((resolve) => {
    const mo = new MutationObserver(() => {
      if (!document.querySelector('${ACTIVE} .thread-row [data-testid]')) return;
      mo.disconnect();
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0));
    });
    mo.observe(document, { childList: true, subtree: true });
  });
})()`;

// keydown (its event timestamp) → the first task after the frame that follows its input event; with its
// parts: keydown → handled (the app's input handlers done, the last listener on the way back up), → the
// frame's start (its animation frame callbacks), → the frame done.
const KEY_PROBE = `(() => {
  const k = window.__keys = { lat: [], handled: [], wait: [], frame: [], down: [] };
  document.addEventListener('keydown', (e) => { k.down.push(e.timeStamp); }, { capture: true });
  window.addEventListener('input', () => {
    const t0 = k.down.shift();
    if (t0 === undefined) return;
    const handled = performance.now();
    requestAnimationFrame(() => {
      const frameStart = performance.now();
      setTimeout(() => {
        const end = performance.now();
        k.lat.push(end - t0);
        k.handled.push(handled - t0);
        k.wait.push(frameStart - handled);
        k.frame.push(end - frameStart);
      }, 0);
    });
  });
})()`;

interface KeyTimes {
  lat: number[];
  handled: number[];
  wait: number[];
  frame: number[];
}

/** Fills a new session with `entries` entries over `turns` turns of the scenario agent. */
async function fill(client: ContractClient, sessionId: string, entries: number, turns: number, tag: string): Promise<void> {
  const per = Math.ceil(entries / turns);
  for (let t = 0; t < turns; t++) {
    const idle = whenIdle(client, sessionId, 600_000);
    await prompt(client, sessionId, `long-thread ${Math.min(per, entries - t * per)} ${tag}${t}`);
    await idle;
  }
}

/** Activates the tab of `sessionId` in the focused pane. */
async function activate(page: Page, sessionId: string): Promise<void> {
  const tabs = page.locator('[role=tab]');
  for (let i = 0; i < (await tabs.count()); i++) {
    await tabs.nth(i).click();
    if ((await page.locator(ACTIVE).getAttribute('data-session-id')) === sessionId) return;
  }
  throw new Error(`no tab for ${sessionId}`);
}

/** Reloads the page with `sessionId`'s tab active; the time to its first row painted. */
async function reloadToFirstRow(page: Page, sessionId: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    await activate(page, sessionId);
    // The workspace (which tab is active) is saved shortly after it changes.
    await sleep(1500);
    await page.reload();
    const ms = (await page.evaluate('window.__firstRow')) as number;
    await page.getByTestId('workspace').waitFor();
    if ((await page.locator(ACTIVE).getAttribute('data-session-id')) === sessionId) return ms;
    if (attempt === 3) throw new Error(`the reloaded page does not show ${sessionId}`);
  }
}

/** Wheel from the bottom to the top (the first entry on screen) and back; returns main-thread time per frame. */
async function wheelTrip(page: Page, firstText: string, lastText: string, maxEvents = Infinity): Promise<{ busy: number[]; events: number }> {
  const thread = page.locator(`${ACTIVE} [data-testid=thread]`);
  const box = (await thread.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const metrics = () => thread.evaluate((el) => ({ top: el.scrollTop, height: el.scrollHeight, client: el.clientHeight }));
  const shows = (text: string) => page.locator(`${ACTIVE} .thread-row`).filter({ hasText: text }).count();
  await installProbes(page);
  await recordFrames(page, true);
  let events = 0;
  for (const dir of [-1, 1] as const) {
    const t0 = Date.now();
    const start = events;
    for (let step = 0; events - start < maxEvents; step++) {
      const m = await metrics();
      const delta = Math.max(2000, Math.round(m.height / 400));
      const done = dir < 0 ? m.top <= 0 : m.top + m.client >= m.height - 2;
      if (done && (await shows(dir < 0 ? firstText : lastText)) > 0) break;
      // A bounded trip (maxEvents) measures the frames it got in 5 minutes; a full one must reach the end.
      if (Date.now() - t0 > 300_000 && maxEvents < Infinity) break;
      if (Date.now() - t0 > 300_000) throw new Error(`the wheel did not reach the ${dir < 0 ? 'top' : 'bottom'} of the thread in 5 minutes (${events} events, at ${m.top} of ${m.height} px)`);
      if (step % 20 === 0) console.error(`# wheel ${dir < 0 ? 'up' : 'down'}: ${events} events, at ${m.top} of ${m.height} px, ${Math.round((Date.now() - t0) / 1000)} s`);
      for (let i = 0; i < 10; i++) await page.mouse.wheel(0, dir * delta);
      events += 10;
    }
  }
  await recordFrames(page, false);
  return { busy: (await takeFrames(page)).busy, events };
}

/** Chromium flags: a frame is drawn as soon as it is ready, not at the display's next refresh. */
const UNLIMITED_FRAMES = ['--disable-frame-rate-limit', '--disable-gpu-vsync'];

/**
 * Types a sentence into the composer of `sessionId`'s tab (the view at the thread's bottom, as when
 * following it), once with nothing streaming and once while the agent streams 200 updates/s into it.
 */
async function typing(page: Page, client: ContractClient, sessionId: string): Promise<{ quiet: KeyTimes; streaming: KeyTimes }> {
  await page.locator(`${ACTIVE} [data-testid=thread]`).evaluate((el) => (el.scrollTop = el.scrollHeight));
  await page.evaluate(KEY_PROBE);
  await page.locator(`${ACTIVE} [data-testid=prompt-input]`).click();
  const type = async () => {
    for (const ch of 'the quick brown fox jumps over the lazy dog while the agent keeps writing '.repeat(quick ? 1 : 2)) {
      await page.keyboard.press(ch === ' ' ? 'Space' : ch);
      await sleep(40);
    }
    await sleep(300);
    return (await page.evaluate(
      '(() => { const k = window.__keys; const r = { lat: k.lat, handled: k.handled, wait: k.wait, frame: k.frame }; k.lat = []; k.handled = []; k.wait = []; k.frame = []; return r; })()',
    )) as KeyTimes;
  };
  const quiet = await type();
  const idle = whenIdle(client, sessionId);
  await prompt(client, sessionId, `stream 200 ${quick ? 8 : 15} 40 100`);
  await page.locator(`${ACTIVE} [data-testid=agent-message]`).filter({ hasText: '{t=' }).first().waitFor();
  const streaming = await type();
  await idle;
  await page.locator(`${ACTIVE} [data-testid=prompt-input]`).fill('');
  return { quiet, streaming };
}

/**
 * The same typing into a bare textarea in a page of its own: the floor of this measure in this Chromium.
 * `drawing`: beside a line of text changed every frame, as a streamed message is (each key then waits for the
 * display's next refresh: no frame of that refresh is left to it).
 */
async function bareTyping(browser: Browser, drawing = false, rate = 1): Promise<KeyTimes> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await throttle(page, rate);
    await page.setContent('<textarea style="width: 600px; height: 100px"></textarea><div id="line"></div>');
    if (drawing) await page.evaluate(`(() => { const line = document.getElementById('line'); let n = 0; const draw = () => { line.textContent = 'frame ' + n++; requestAnimationFrame(draw); }; requestAnimationFrame(draw); })()`);
    await page.evaluate(KEY_PROBE);
    await page.locator('textarea').click();
    for (const ch of 'the quick brown fox jumps over the lazy dog while the agent keeps writing '.repeat(quick ? 1 : 2)) {
      await page.keyboard.press(ch === ' ' ? 'Space' : ch);
      await sleep(40);
    }
    await sleep(300);
    return (await page.evaluate('(() => { const k = window.__keys; return { lat: k.lat, handled: k.handled, wait: k.wait, frame: k.frame }; })()')) as KeyTimes;
  } finally {
    await context.close();
  }
}

const describeKeys = (k: KeyTimes) =>
  `${k.lat.length} keys, keydown → painted p50 ${round1(percentile(k.lat, 50))} ms, p95 ${round1(percentile(k.lat, 95))} ms, max ${round1(Math.max(...k.lat))} ms; ` +
  `keydown → handled p50 ${round1(percentile(k.handled, 50))} / p95 ${round1(percentile(k.handled, 95))} ms, → the next frame's start p50 ${round1(percentile(k.wait, 50))} / p95 ${round1(percentile(k.wait, 95))} ms, that frame p50 ${round1(percentile(k.frame, 50))} / p95 ${round1(percentile(k.frame, 95))} ms`;

async function heapMB(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    return usedSize / MB;
  } finally {
    await cdp.detach();
  }
}

function rendererRssMB(): number {
  const pids = descendants(process.pid).filter((p) => /chrom/i.test(cmdline(p).split(' ')[0] ?? '') && cmdline(p).includes('--type=renderer'));
  return Math.max(0, ...pids.map((p) => rssBytes(p) / MB));
}

log(`# load average at start: ${loadAvg()} (2 cores; other work on the machine slows every figure)`);
await withBenchApp(async ({ browser, app, work }) => {
  const client = await connectContract(app);
  const [agent] = await addScenarioAgents(client, 1, 'Long');
  await withAppPage(browser, app.url, 'longthread', async ({ page, context }) => {
    await readyWorkspace(page);
    const shortId = await startSessionInPage(page, agent!.name, work);
    const longId = await startSessionInPage(page, agent!.name, work);
    const t0 = Date.now();
    await fill(client, shortId, BASELINE_ENTRIES, 1, 'short');
    await fill(client, longId, ENTRIES, TURNS, 'long');
    const snap = await client.call<{ thread: { entries: unknown[] } }>('sessions.state', { sessionId: longId });
    const snapChars = JSON.stringify(snap).length;
    log(`# fill: ${ENTRIES} entries in ${TURNS} turns written by the scenario agent in ${((Date.now() - t0) / 1000).toFixed(1)} s; sessions.state of the session: ${(snapChars / 1e6).toFixed(1)} M characters`);

    await page.addInitScript(FIRST_ROW);
    const firstLong: number[] = [];
    const firstShort: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      firstShort.push(await reloadToFirstRow(page, shortId));
      firstLong.push(await reloadToFirstRow(page, longId));
    }
    await page.locator(`${ACTIVE} .thread-row`).filter({ hasText: `long${TURNS - 1}/` }).first().waitFor();
    await sleep(1000);
    const heapOpen = await heapMB(page);
    log(`# first paint: ${ENTRIES}-entry thread runs ${firstLong.map(round1).join(', ')} ms; ${BASELINE_ENTRIES}-entry thread (baseline) ${firstShort.map(round1).join(', ')} ms, median ${round1(median(firstShort))} ms`);

    const emit = (...lines: string[]) => {
      for (const l of lines) log(l);
    };
    const unthrottled = throttleRates().includes(1);
    let heapAfter = 0;
    if (unthrottled) {
    const profileTo = process.env.SWITCHBOARD_BENCH_PROFILE ?? '';
    const cdp = profileTo ? await context.newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.start');
    }
    const tripLong = await wheelTrip(page, 'long0/0: first message', `long${TURNS - 1}/`);
    if (cdp) {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(profileTo, JSON.stringify(profile));
      log(`# the page's CPU profile of the wheel trip: ${profileTo}`);
    }
    heapAfter = await heapMB(page);
    await activate(page, shortId);
    const tripShort = await wheelTrip(page, 'short0/0: first message', 'short0/');
    const long50 = tripLong.busy.filter((b) => b > 50).length / Math.max(1, tripLong.busy.length);
    log(`# scroll: ${tripLong.events} wheel events, ${tripLong.busy.length} frames; main-thread time per frame p50 ${round1(percentile(tripLong.busy, 50))} ms, p95 ${round1(percentile(tripLong.busy, 95))} ms, ${(long50 * 100).toFixed(1)}% over 50 ms; baseline (${BASELINE_ENTRIES} entries, ${tripShort.events} wheel events): p50 ${round1(percentile(tripShort.busy, 50))} ms, p95 ${round1(percentile(tripShort.busy, 95))} ms`);

    // Typing while the agent streams into the long thread, at 60 Hz as Chromium draws here.
    await activate(page, longId);
    const at60 = await typing(page, client, longId);
    log(`# keypress at 60 Hz, nothing streaming: ${describeKeys(at60.quiet)}`);
    log(`# keypress at 60 Hz, the agent streaming 200 updates/s: ${describeKeys(at60.streaming)}`);
    log(`# keypress at 60 Hz into a bare textarea, no app (this measure's floor here): ${describeKeys(await bareTyping(browser))}`);
    const keyFloor = await bareTyping(browser, true);
    log(`# keypress at 60 Hz into a bare textarea beside a line changed every frame, no app (the floor while something streams): ${describeKeys(keyFloor)}`);
    const scrollFloorBusy = await scrollFloor(browser, SCROLL_FLOOR);
    log(`# scroll floor: the same wheel (${SCROLL_FLOOR.events} events of ${SCROLL_FLOOR.delta} px each way) over a plain page of ${SCROLL_FLOOR.rows} rows: main-thread time per frame p50 ${round1(percentile(scrollFloorBusy, 50))} ms, p95 ${round1(percentile(scrollFloorBusy, 95))} ms`);
    emit(
      `longthread.open_first_paint: ${round1(median(firstLong))} ms`,
      `longthread.open_100k_vs_100: ${(median(firstLong) / median(firstShort)).toFixed(2)} ratio`,
      `longthread.scroll_frame_p95: ${round1(percentile(tripLong.busy, 95))} ms`,
      `longthread.scroll_floor_p95: ${round1(percentile(scrollFloorBusy, 95))} ms`,
      `longthread.scroll_vs_floor: ${(percentile(tripLong.busy, 95) / percentile(scrollFloorBusy, 95)).toFixed(2)} ratio`,
      `longthread.keypress_to_paint_p95: ${round1(percentile(at60.streaming.lat, 95))} ms`,
      `longthread.keypress_floor_p95: ${round1(percentile(keyFloor.lat, 95))} ms`,
      `longthread.keypress_vs_floor: ${(percentile(at60.streaming.lat, 95) / percentile(keyFloor.lat, 95)).toFixed(2)} ratio`,
    );
    }

    // The same again with Chromium's CPU throttled 4× (a slow laptop): the app's page and the floors' pages alike.
    for (const rate of throttleRates().filter((r) => r !== 1)) {
      let undo = async (): Promise<void> => {};
      try {
        const note = `(Chromium's CPU throttled ${rate}×)`;
        const suffix = throttledSuffix(rate);
        undo = await throttle(page, rate);
        const fl: number[] = [];
        const fs: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          fs.push(await reloadToFirstRow(page, shortId));
          fl.push(await reloadToFirstRow(page, longId));
        }
        log(`# first paint ${note}: ${ENTRIES}-entry thread runs ${fl.map(round1).join(', ')} ms; ${BASELINE_ENTRIES}-entry thread ${fs.map(round1).join(', ')} ms`);
        // The thread now ends with the stream typed beside at 60 Hz (unless that pass was skipped).
        const lastText = unthrottled ? '{end=' : `long${TURNS - 1}/`;
        await page.locator(`${ACTIVE} .thread-row`).filter({ hasText: lastText }).first().waitFor();
        // At most THROTTLED_WHEEL events each way: a wheel from end to end of a long thread at 4× takes minutes on a loaded machine.
        const trip = await wheelTrip(page, 'long0/0: first message', lastText, THROTTLED_WHEEL);
        const traceTo = process.env.SWITCHBOARD_BENCH_TRACE ?? '';
        if (traceTo) await browser.startTracing(page, { path: traceTo, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink.user_timing', 'disabled-by-default-v8.cpu_profiler'] });
        const keys = await typing(page, client, longId);
        if (traceTo) {
          await browser.stopTracing();
          log(`# the page's performance trace of typing while streaming ${note}: ${traceTo}`);
        }
        await undo();
        const floorKeys = await bareTyping(browser, true, rate);
        const floorScroll = await scrollFloor(browser, { ...SCROLL_FLOOR, rate });
        log(`# scroll ${note}: ${trip.events} wheel events, ${trip.busy.length} frames, main-thread time per frame p50 ${round1(percentile(trip.busy, 50))} ms, p95 ${round1(percentile(trip.busy, 95))} ms; the floor's p95 ${round1(percentile(floorScroll, 95))} ms`);
        log(`# keypress ${note}, the agent streaming 200 updates/s: ${describeKeys(keys.streaming)}`);
        log(`# keypress ${note}, nothing streaming: ${describeKeys(keys.quiet)}`);
        log(`# keypress ${note} into a bare textarea beside a line changed every frame (the floor): ${describeKeys(floorKeys)}`);
        emit(
          `longthread.open_first_paint${suffix}: ${round1(median(fl))} ms`,
          `longthread.open_100k_vs_100${suffix}: ${(median(fl) / median(fs)).toFixed(2)} ratio`,
          `longthread.scroll_frame_p95${suffix}: ${round1(percentile(trip.busy, 95))} ms`,
          `longthread.scroll_floor_p95${suffix}: ${round1(percentile(floorScroll, 95))} ms`,
          `longthread.scroll_vs_floor${suffix}: ${(percentile(trip.busy, 95) / percentile(floorScroll, 95)).toFixed(2)} ratio`,
          `longthread.keypress_to_paint_p95${suffix}: ${round1(percentile(keys.streaming.lat, 95))} ms`,
          `longthread.keypress_floor_p95${suffix}: ${round1(percentile(floorKeys.lat, 95))} ms`,
          `longthread.keypress_vs_floor${suffix}: ${(percentile(keys.streaming.lat, 95) / percentile(floorKeys.lat, 95)).toFixed(2)} ratio`,
        );
      } catch (e) {
        // The unthrottled figures stand; say why these are missing.
        await undo();
        log(`# the pass with Chromium's CPU throttled ${rate}× failed: ${String(e).split('\n')[0]}`);
      }
    }
    const rss = rendererRssMB();
    if (!unthrottled) {
      log(`# --throttled-only: the 11 MB message, frames unlimited and the heap are measured without it`);
      return;
    }

    // A variant: a session of one agent message of ≈ 11 MB (20,000 chunks of ≈ 550 characters, no paragraph breaks).
    const bigId = await startSessionInPage(page, agent!.name, work);
    const bigIdle = whenIdle(client, bigId, 600_000);
    await prompt(client, bigId, `flood ${quick ? 5000 : 20_000} 700`);
    await bigIdle;
    const firstBig: number[] = [];
    for (let i = 0; i < RUNS; i++) firstBig.push(await reloadToFirstRow(page, bigId));
    log(`# first paint: a session of one ${quick ? '2.8' : '11'} MB agent message, runs ${firstBig.map(round1).join(', ')} ms, median ${round1(median(firstBig))} ms`);
    // The same in a Chromium that draws a frame as soon as it is ready (no wait for the display's next refresh),
    // this page closed (it would draw the same stream).
    await context.close();
    const unlimited = await launchBrowser(UNLIMITED_FRAMES);
    try {
      const opened = await openApp(unlimited, app.url);
      await opened.page.getByTestId('workspace').waitFor();
      await activate(opened.page, longId);
      const free = await typing(opened.page, client, longId);
      log(`# keypress, frames unlimited, nothing streaming: ${describeKeys(free.quiet)}`);
      log(`# keypress, frames unlimited, the agent streaming 200 updates/s: ${describeKeys(free.streaming)}`);
      log(`# keypress, frames unlimited, into a bare textarea, no app: ${describeKeys(await bareTyping(unlimited))}`);
      if (opened.errors.length) log(`# page errors (frames unlimited): ${opened.errors.slice(0, 3).join(' | ')}`);
    } finally {
      await unlimited.close();
    }
    log(`# heap: ${round1(heapOpen)} MB after opening the thread, ${round1(heapAfter)} MB after the trip to its top and back; renderer RSS then ${Math.round(rss)} MB`);
    log(`longthread.renderer_heap: ${Math.round(heapAfter)} MB`);
  });
  client.close();
});
log(`# load average at end: ${loadAvg()}`);
process.exit(0);
