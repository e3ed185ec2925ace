// Probes installed in the app's page (as script text: a compiled function could carry the bundler's
// helpers, which the page lacks). Clocks: the agent stamps chunks with Date.now(); the page reads
// performance.timeOrigin + performance.now(); both are this machine's wall clock.
//
// "Painted": a MutationObserver sees the text in the DOM (React commits in the animation frame the
// session controller folds its batch in), then a task posted from there runs after that frame's style,
// layout and paint. Frames: a requestAnimationFrame loop records the delta between frames and the main
// thread's busy time per frame (the frame's rAF callback → the first task after its paint).
import type { Page } from 'playwright-core';

export interface Painted {
  /** the agent's write time (ms since the epoch) */
  sent: number;
  /** painted (ms since the epoch, page clock) */
  painted: number;
}

export interface FrameStats {
  /** requestAnimationFrame deltas, ms */
  deltas: number[];
  /** main-thread busy time per frame, ms */
  busy: number[];
}

const PROBE = `(() => {
  if (window.__bench) return;
  const now = () => performance.timeOrigin + performance.now();
  const b = window.__bench = { painted: [], marks: [], ends: [], seen: new Set(), frames: { deltas: [], busy: [] }, recording: false, selector: '' };
  const panelOf = () => document.querySelector(b.selector || '.tab-panel:not([hidden]) [data-testid=session-tab]');
  // Only the text that changed is read (a streaming message of 200 KB is not read again on every change).
  const changedTexts = (records, panel) => {
    const out = [];
    const inMessage = (node) => {
      const el = node.nodeType === 1 ? node : node.parentElement;
      const msg = el && el.closest('[data-testid=agent-message]');
      return msg !== null && msg !== undefined && panel.contains(msg);
    };
    for (const r of records) {
      if (r.type === 'characterData') {
        if (inMessage(r.target)) out.push(r.target.data);
      } else {
        for (const n of r.addedNodes) {
          if (n.nodeType !== 3 && n.nodeType !== 1) continue;
          if (inMessage(n)) out.push(n.textContent || '');
          else if (n.nodeType === 1) for (const msg of n.querySelectorAll('[data-testid=agent-message]')) if (panel.contains(msg)) out.push(msg.textContent || '');
        }
      }
    }
    return out;
  };
  const tokenRe = /\\{t=(\\d+):(\\d+)\\}/g;
  const scan = (records) => {
    const panel = panelOf();
    if (!panel) return;
    const fresh = [];
    const marks = [];
    const ends = [];
    for (const text of changedTexts(records, panel)) {
      let m;
      tokenRe.lastIndex = 0;
      while ((m = tokenRe.exec(text))) {
        const key = m[2] + '@' + m[1];
        if (b.seen.has(key)) continue;
        b.seen.add(key);
        fresh.push(Number(m[1]));
      }
      const mk = text.lastIndexOf('{mark=');
      if (mk >= 0) { const v = Number(text.slice(mk + 6, text.indexOf('}', mk))); if (!b.seen.has('mark' + v)) { b.seen.add('mark' + v); marks.push(v); } }
      const en = text.lastIndexOf('{end=');
      if (en >= 0) { const v = Number(text.slice(en + 5, text.indexOf('}', en))); if (!b.seen.has('end' + v)) { b.seen.add('end' + v); ends.push(v); } }
    }
    if (fresh.length === 0 && marks.length === 0 && ends.length === 0) return;
    setTimeout(() => {
      const t = now();
      for (const s of fresh) b.painted.push({ sent: s, painted: t });
      for (const s of marks) b.marks.push({ sent: s, painted: t });
      for (const s of ends) b.ends.push({ sent: s, painted: t });
    }, 0);
  };
  new MutationObserver(scan).observe(document.body, { childList: true, subtree: true, characterData: true });
  // Frames are recorded by a requestAnimationFrame loop that runs only while recording: a loop left running
  // would make the page draw every frame, which changes what it measures (a key would always wait for the
  // next frame instead of starting one).
  let last = 0;
  b.looping = false;
  const loop = (ts) => {
    if (!b.recording) {
      b.looping = false;
      last = 0;
      return;
    }
    if (last) b.frames.deltas.push(ts - last);
    const start = performance.now();
    setTimeout(() => b.frames.busy.push(performance.now() - start), 0);
    last = ts;
    requestAnimationFrame(loop);
  };
  b.startLoop = () => {
    if (b.looping) return;
    b.looping = true;
    requestAnimationFrame(loop);
  };
})()`;

/** Installs the probes (idempotent; again after a reload). */
export async function installProbes(page: Page): Promise<void> {
  await page.evaluate(PROBE);
}

/** Starts or stops recording frames; clears what was recorded when starting. */
export async function recordFrames(page: Page, on: boolean): Promise<void> {
  await page.evaluate(`(() => { const b = window.__bench; b.recording = ${on ? 'true' : 'false'}; if (${on ? 'true' : 'false'}) { b.frames = { deltas: [], busy: [] }; b.startLoop(); } })()`);
}

export async function takeFrames(page: Page): Promise<FrameStats> {
  return (await page.evaluate('window.__bench.frames')) as FrameStats;
}

/** Write → paint records so far (and clears them). */
export async function takePainted(page: Page): Promise<{ chunks: Painted[]; marks: Painted[]; ends: Painted[] }> {
  return (await page.evaluate(`(() => { const b = window.__bench; const r = { chunks: b.painted, marks: b.marks, ends: b.ends }; b.painted = []; b.marks = []; b.ends = []; return r; })()`)) as {
    chunks: Painted[];
    marks: Painted[];
    ends: Painted[];
  };
}

/** Waits until a `{mark=…}` (or `{end=…}`) has been painted; returns it. */
export async function waitForPainted(page: Page, kind: 'marks' | 'ends', timeoutMs = 120_000): Promise<Painted> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = (await page.evaluate(`window.__bench.${kind}.shift() ?? null`)) as Painted | null;
    if (r) return r;
    if (Date.now() > deadline) throw new Error(`no ${kind} painted after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Init-script text (a statement) that hands the text of every WebSocket frame the page receives to `handler`
 * (the source of a function of it), before the app's own listeners see the frame.
 */
export const onSocketText = (handler: string): string => `{
  const onText = ${handler};
  const Base = window.WebSocket;
  window.WebSocket = class extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (ev) => {
        if (typeof ev.data === 'string') onText(ev.data);
      });
    }
  };
}`;

// Runs before the app's scripts (an init script): every WebSocket frame the page receives is scanned for
// `{t=<ms>:<i>}` stamps on arrival, before the app handles it (write → arrival = the agent's pipe, the main
// process and the socket; arrival → paint = the renderer).
const ARRIVALS = `(() => {
  const now = () => performance.timeOrigin + performance.now();
  window.__arrivals = [];
  window.__markArrivals = [];
  ${onSocketText(`(data) => {
    const t = now();
    const mk = data.lastIndexOf('{mark=');
    if (mk >= 0) window.__markArrivals.push(t - Number(data.slice(mk + 6, data.indexOf('}', mk))));
    if (data.indexOf('{t=') < 0) return;
    const re = /\\{t=(\\d+):\\d+\\}/g;
    let m;
    while ((m = re.exec(data))) window.__arrivals.push(t - Number(m[1]));
  }`)}
})()`;

/** Adds the arrival probe and reloads the page so that it is in place before the app connects. */
export async function installArrivalProbe(page: Page): Promise<void> {
  await page.addInitScript(ARRIVALS);
  await page.reload();
}

/** write → arrival in the page (ms) of every `{mark=…}` so far (and clears them). */
export async function takeMarkArrivals(page: Page): Promise<number[]> {
  return (await page.evaluate('(() => { const a = window.__markArrivals || []; window.__markArrivals = []; return a; })()')) as number[];
}

/** write → arrival in the page (ms) of every stamped chunk so far, all sessions (and clears them). */
export async function takeArrivals(page: Page): Promise<number[]> {
  return (await page.evaluate('(() => { const a = window.__arrivals || []; window.__arrivals = []; return a; })()')) as number[];
}
