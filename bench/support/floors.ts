// The floors of the renderer benches' latencies, measured in the same Chromium and the same run as the app's
// figures: what a bare page does with the same text over a WebSocket (paint latency), the same wheel over a
// plain list (scrolling), and Chromium's CPU throttling that stands in for a slower laptop.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { WebSocketServer, type WebSocket } from 'ws';
import { installProbes, recordFrames, takeFrames } from './page-probes';
import { sleep } from './bench-app';

/** The suffix of a figure measured with Chromium's CPU throttled `rate`×. */
export const throttledSuffix = (rate: number): string => (rate === 1 ? '' : `_throttled${rate}x`);

/** Throttles the page's CPU `rate`× (DevTools Emulation.setCPUThrottlingRate); resolves with the undo. */
export async function throttle(page: Page, rate: number): Promise<() => Promise<void>> {
  if (rate === 1) return async () => {};
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  return async () => {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 }).catch(() => {});
    await cdp.detach().catch(() => {});
  };
}

// A bare page: WebSocket frames of JSON arrays of text chunks; each frame's chunks are appended to a buffer and
// shown in the next animation frame (the tail, as a thread at its bottom shows it), then marked painted in
// the first task after that frame, as page-probes.ts marks the app's.
const FLOOR_PAGE = `<!doctype html><meta charset="utf-8"><body style="font: 13px system-ui; margin: 0">
<div id="text" style="white-space: pre-wrap; height: 600px; overflow: hidden; display: flex; flex-direction: column-reverse"></div>
<script>
  const now = () => performance.timeOrigin + performance.now();
  const b = window.__floor = { painted: [], marks: [], ends: [] };
  const node = document.getElementById('text');
  let text = '';
  let fresh = [];
  let frame = 0;
  const draw = () => {
    frame = 0;
    node.textContent = text.slice(-4000);
    const stamps = [], marks = [], ends = [];
    for (const t of fresh) {
      const re = /\\{t=(\\d+):\\d+\\}/g;
      let m;
      while ((m = re.exec(t))) stamps.push(Number(m[1]));
      const mk = t.lastIndexOf('{mark=');
      if (mk >= 0) marks.push(Number(t.slice(mk + 6, t.indexOf('}', mk))));
      const en = t.lastIndexOf('{end=');
      if (en >= 0) ends.push(Number(t.slice(en + 5, t.indexOf('}', en))));
    }
    fresh = [];
    setTimeout(() => {
      const at = now();
      for (const s of stamps) b.painted.push(at - s);
      for (const s of marks) b.marks.push(at - s);
      for (const s of ends) b.ends.push(at - s);
    }, 0);
  };
  const ws = new WebSocket('ws://' + location.host + '/ws');
  window.__floorReady = new Promise((r) => ws.addEventListener('open', r));
  ws.addEventListener('message', (ev) => {
    const chunks = JSON.parse(ev.data);
    for (const c of chunks) { text += c; fresh.push(c); }
    if (text.length > 1e6) text = text.slice(-4000);
    if (!frame) frame = requestAnimationFrame(draw);
  });
</script>`;

export interface PaintFloor {
  /** The last of `chunks` chunks written → painted, ms, per run. */
  flood: number[];
  /** Chunks at a steady rate: each one's write → painted, ms. */
  steady: number[];
  /** The main thread's time per frame during the steady stream, ms. */
  frames: number[];
}

async function floorServer(): Promise<{ url: string; socket: () => Promise<WebSocket>; close: () => Promise<void> }> {
  const http: Server = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(FLOOR_PAGE);
  });
  const wss = new WebSocketServer({ server: http, path: '/ws' });
  const next: Array<(ws: WebSocket) => void> = [];
  wss.on('connection', (ws) => next.shift()?.(ws));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    socket: () => new Promise((r) => next.push(r)),
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise((r) => wss.close(r));
      await new Promise((r) => http.close(r));
    },
  };
}

const send = (ws: WebSocket, chunks: string[]): Promise<void> => new Promise((resolve, reject) => ws.send(JSON.stringify(chunks), (e) => (e ? reject(e) : resolve())));

/**
 * The paint latency's floor: a bare page in this Chromium (its CPU throttled `rate`×) painting the same text
 * over a WebSocket from this process. The flood: `chunks` chunks of ~`bytes` characters sent in frames of
 * ~256 KB as fast as the socket takes them, then `{mark=<ms>}`; `runs` of it after a warm-up. Then a steady
 * stream of `streamRate` chunks/s for `streamSeconds`, each stamped `{t=<ms>:<i>}`.
 */
export async function paintFloor(
  browser: Browser,
  o: { chunks: number; bytes: number; runs: number; streamRate: number; streamSeconds: number; rate?: number },
): Promise<PaintFloor> {
  const server = await floorServer();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const socket = server.socket();
    await page.goto(server.url);
    const ws = await socket;
    await page.evaluate('window.__floorReady');
    const undo = await throttle(page, o.rate ?? 1);
    const pad = 'y'.repeat(Math.max(1, o.bytes - 8));
    const take = async (kind: 'painted' | 'marks' | 'ends'): Promise<number[]> =>
      (await page.evaluate(`(() => { const a = window.__floor.${kind}; window.__floor.${kind} = []; return a; })()`)) as number[];
    const flood = async (n: number): Promise<number> => {
      let frame: string[] = [];
      let size = 0;
      for (let i = 0; i < n; i++) {
        const c = `${String(i).padStart(7, '0')} ${pad}`;
        frame.push(c);
        size += c.length;
        if (size > 256 * 1024) {
          await send(ws, frame);
          frame = [];
          size = 0;
        }
      }
      if (frame.length) await send(ws, frame);
      await send(ws, [` {mark=${Date.now()}}`]);
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(50)) {
        const m = await take('marks');
        if (m.length) return m[0]!;
      }
      throw new Error('the floor page did not paint its mark in 2 minutes');
    };
    await flood(2_000);
    const runs: number[] = [];
    for (let i = 0; i < o.runs; i++) runs.push(await flood(o.chunks));

    await take('painted');
    await installProbes(page);
    await recordFrames(page, true);
    const total = Math.round(o.streamRate * o.streamSeconds);
    const t0 = Date.now();
    for (let sent = 0; sent < total; ) {
      const due = Math.min(total, Math.floor(((Date.now() - t0) * o.streamRate) / 1000) + 1);
      const out: string[] = [];
      for (; sent < due; sent++) out.push(`{t=${Date.now()}:${sent}} lorem ipsum dolor sit amet ` + (sent % 20 === 19 ? '\n\n' : ' '));
      if (out.length) await send(ws, out);
      await sleep(Math.max(1, t0 + Math.ceil((sent * 1000) / o.streamRate) - Date.now()));
    }
    await sleep(500);
    await recordFrames(page, false);
    const steady = await take('painted');
    const { busy } = await takeFrames(page);
    await undo();
    return { flood: runs, steady, frames: busy };
  } finally {
    await context.close();
    await server.close();
  }
}

/**
 * The scrolling floor: the same wheel (`events` events of `delta` px each way) over a plain page of `rows`
 * rows of text in this Chromium (its CPU throttled `rate`×); the main thread's time per frame.
 */
export async function scrollFloor(browser: Browser, o: { rows: number; events: number; delta: number; rate?: number }): Promise<number[]> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.setContent(
      `<div id="list" style="height: 700px; overflow-y: auto; font: 13px system-ui">${Array.from(
        { length: o.rows },
        (_, i) => `<div style="padding: 6px 12px; border-bottom: 1px solid #ddd"><b>row ${i}</b> <span>lorem ipsum dolor sit amet consectetur adipiscing elit ${i}</span></div>`,
      ).join('')}</div>`,
    );
    const undo = await throttle(page, o.rate ?? 1);
    const box = (await page.locator('#list').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await installProbes(page);
    await recordFrames(page, true);
    for (const dir of [1, -1]) for (let i = 0; i < o.events; i++) await page.mouse.wheel(0, dir * o.delta);
    await sleep(200);
    await recordFrames(page, false);
    const { busy } = await takeFrames(page);
    await undo();
    return busy;
  } finally {
    await context.close();
  }
}


/**
 * The CPU throttling rates a renderer bench runs at: 1 and 4 (every renderer figure again with `_throttled4x`);
 * `--no-throttle` only 1, `--throttled-only` only 4.
 */
export function throttleRates(): number[] {
  if (process.argv.includes('--no-throttle')) return [1];
  if (process.argv.includes('--throttled-only')) return [4];
  return [1, 4];
}
