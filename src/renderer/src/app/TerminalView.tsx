import type { FitAddon } from '@xterm/addon-fit';
import type { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import { useApi } from './api-context';
import type { StoredTerminal } from '@shared/acp-thread';
import { useTerminalAppearance } from './theme';
import { afterTypingPause } from './typing-pause';
import { loadXterm, type Xterm } from './xterm';

const FONT = 'ui-monospace, "DejaVu Sans Mono", Menlo, monospace';

function makeTerminal(x: Xterm, look: ReturnType<typeof useTerminalAppearance>, rows: number, interactive: boolean, convertEol: boolean): { t: Terminal; fit: FitAddon } {
  // Agent output: palette changes are dropped.
  const t = new x.SafeTerminal({
    fontFamily: FONT,
    fontSize: look.fontSize,
    rows: interactive ? rows : 3,
    cols: 100,
    scrollback: 5000,
    disableStdin: !interactive,
    cursorBlink: interactive,
    cursorStyle: interactive ? 'block' : 'underline',
    convertEol,
    theme: look.theme,
  }, { palette: 'drop' });
  const fit = new x.FitAddon();
  t.loadAddon(fit);
  return { t, fit };
}

/** Columns follow the width of the view; rows are set by the caller (grown to the output, or fixed). */
function fitCols(t: Terminal, fit: FitAddon): void {
  try {
    const dims = fit.proposeDimensions();
    if (dims && Number.isFinite(dims.cols) && dims.cols > 0 && dims.cols !== t.cols) t.resize(dims.cols, t.rows);
  } catch {
    /* not laid out */
  }
}

/** Grows a read-only terminal to the lines its output uses (between 3 and `max`). */
function growRows(t: Terminal, max: number): void {
  const buf = t.buffer.active;
  // Every line written so far, the cursor's included.
  const used = buf.baseY + buf.cursorY + 1;
  const want = Math.max(3, Math.min(max, used));
  if (want > t.rows) t.resize(t.cols, want);
}

function useFit(host: React.RefObject<HTMLDivElement | null>, term: React.RefObject<Terminal | null>, fit: React.RefObject<FitAddon | null>): void {
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const ro = new ResizeObserver(() => {
      if (el.offsetParent === null || !term.current || !fit.current) return;
      fitCols(term.current, fit.current);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [host, term, fit]);
}

/** About the height a read-only terminal takes for `output` (the lines it uses, between 3 and `max`). */
function approxHeight(output: string, max: number, fontSize: number): number {
  let lines = 1;
  for (let i = output.indexOf('\n'); i >= 0 && lines <= max; i = output.indexOf('\n', i + 1)) lines++;
  if (output.endsWith('\n')) lines--;
  return Math.max(3, Math.min(max, lines)) * Math.ceil(fontSize * 1.2) + 8;
}

export type ExitInfo = { exitCode: number | null; signal: string | null };

/** How a process ended, in words: "exited with code 2", "killed by SIGTERM", "ended without reporting an exit code". */
export const describeExit = (e: ExitInfo): string =>
  e.signal ? `killed by ${e.signal}` : e.exitCode !== null ? `exited with code ${e.exitCode}` : 'ended without reporting an exit code';

/**
 * A terminal the core runs (an agent's terminal/create, or an authentication command): its output so far
 * (agentTerminal.snapshot), then live agentTerminal.data. Interactive terminals send keys with
 * agentTerminal.write (only authentication terminals take input).
 */
export function AgentTerminalView({
  terminalId,
  rows = 16,
  interactive = false,
  onExit,
  stored,
}: {
  terminalId: string;
  rows?: number;
  interactive?: boolean;
  onExit?: (e: ExitInfo) => void;
  /** What the store kept of its output, shown when the terminal itself is gone (a reopened session). */
  stored?: StoredTerminal | undefined;
}) {
  const api = useApi();
  const look = useTerminalAppearance();
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const fit = useRef<FitAddon | null>(null);
  const [exit, setExit] = useState<ExitInfo | null>(null);
  const [missing, setMissing] = useState<string | null>(null);
  const onExitRef = useRef(onExit);
  onExitRef.current = onExit;
  const storedRef = useRef(stored);
  storedRef.current = stored;
  const [fromStore, setFromStore] = useState(false);
  const [hasOutput, setHasOutput] = useState(false);
  const lookRef = useRef(look);
  lookRef.current = look;
  useFit(host, term, fit);

  /** Builds the terminal and attaches it to the agent's; returns its disposal. */
  const build = (x: Xterm, el: HTMLDivElement): (() => void) => {
    const { t, fit: f } = makeTerminal(x, lookRef.current, rows, interactive, false);
    t.open(el);
    term.current = t;
    fit.current = f;
    fitCols(t, f);
    const write = (data: string) => {
      if (data) setHasOutput(true);
      t.write(data, () => !interactive && growRows(t, rows));
    };
    let attached = false;
    let disposed = false;
    // Data that arrives before the snapshot answer is part of the snapshot (same ordered channel): dropped.
    const offData = api.on('agentTerminal.data', (p) => {
      if (p.terminalId === terminalId && attached) write(p.data);
    });
    const offExit = api.on('agentTerminal.exit', (p) => {
      if (p.terminalId !== terminalId) return;
      const e = { exitCode: p.exitCode, signal: p.signal };
      setExit(e);
      onExitRef.current?.(e);
    });
    const input = interactive ? t.onData((data) => void api.call('agentTerminal.write', { terminalId, data })) : null;
    const resize = interactive ? t.onResize(({ cols, rows: r }) => void api.call('agentTerminal.resize', { terminalId, cols, rows: r })) : null;
    void api.call('agentTerminal.snapshot', { terminalId }).then((r) => {
      if (disposed) return;
      attached = true;
      if (!r.ok) {
        const kept = storedRef.current;
        if (!kept) {
          setMissing(r.error.message);
          return;
        }
        setFromStore(true);
        if (kept.truncated) write('\x1b[2m[earlier output was cut]\x1b[0m\r\n');
        write(kept.output.replace(/\r?\n/g, '\r\n'));
        if (kept.exit) setExit(kept.exit);
        return;
      }
      if (r.value.truncated) write('\x1b[2m[earlier output was cut]\x1b[0m\r\n');
      write(r.value.output);
      if (r.value.exit) setExit(r.value.exit);
      if (interactive) {
        void api.call('agentTerminal.resize', { terminalId, cols: t.cols, rows: t.rows });
        t.focus();
      }
    });
    return () => {
      disposed = true;
      offData();
      offExit();
      input?.dispose();
      resize?.dispose();
      t.dispose();
      term.current = null;
      fit.current = null;
    };
  };

  useEffect(() => {
    let disposed = false;
    let dispose = () => {};
    // xterm is fetched with the first terminal: until then (a moment) the view waits, subscribed to nothing.
    loadXterm().then(
      (x) => {
        if (disposed || !host.current) return;
        dispose = build(x, host.current);
      },
      (e: unknown) => !disposed && setMissing(`the terminal could not load (${e instanceof Error ? e.message : String(e)})`),
    );
    return () => {
      disposed = true;
      dispose();
    };
  }, [api, terminalId, interactive]);

  useEffect(() => {
    if (term.current) term.current.options = { theme: look.theme, fontSize: look.fontSize };
  }, [look.theme, look.fontSize]);

  return (
    <div className="agent-terminal" data-testid="agent-terminal" data-terminal-id={terminalId} data-exited={exit ? 'true' : undefined} data-stored={fromStore || undefined}>
      {fromStore && <div className="muted small">Stored output (the terminal has ended)</div>}
      {/* A command that ended without output shows no empty terminal box. */}
      <div className="agent-terminal-host" ref={host} hidden={!!exit && !hasOutput && !interactive} />
      {missing && <div className="muted small">Output not available: {missing}</div>}
      {exit && !hasOutput && !interactive && !missing && (
        <div className="muted small" data-testid="terminal-no-output">
          No output.
        </div>
      )}
      {exit && <div className={`terminal-exit ${exit.exitCode === 0 && !exit.signal ? 'ok' : 'bad'}`}>Process {describeExit(exit)}</div>}
    </div>
  );
}

/** How long a stored terminal is in view before it is built (see MetaTerminalView). */
const BUILD_DELAY_MS = 100;

/**
 * Output of a terminal the agent ran itself and reported in the tool call's `_meta` (the client never created it).
 * The terminal is built a moment after it comes into view (building one lays out and measures a canvas, a
 * few ms): those a fast wheel carries past in a long thread are never built, and none is built while the user
 * types. Until then its place is kept.
 */
export function MetaTerminalView({ id, output, exit, rows = 16 }: { id: string; output: string; exit: ExitInfo | null; rows?: number }) {
  const look = useTerminalAppearance();
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const fit = useRef<FitAddon | null>(null);
  const written = useRef('');
  const [built, setBuilt] = useState(false);
  useFit(host, term, fit);

  const lookRef = useRef(look);
  lookRef.current = look;

  useEffect(() => {
    let made: Terminal | null = null;
    let disposed = false;
    const build = (x: Xterm) => {
      // The view may be gone already: React detaches its element before this effect's cleanup cancels the build.
      const el = host.current;
      if (disposed || !el?.isConnected) return;
      const { t, fit: f } = makeTerminal(x, lookRef.current, rows, false, true);
      t.open(el);
      made = t;
      term.current = t;
      fit.current = f;
      fitCols(t, f);
      written.current = '';
      setBuilt(true);
    };
    // xterm is fetched with the first terminal shown; a failed fetch leaves the kept place (the next view tries again).
    const cancelBuild = afterTypingPause(() => void loadXterm().then(build, () => undefined), BUILD_DELAY_MS);
    return () => {
      disposed = true;
      cancelBuild();
      made?.dispose();
      term.current = null;
    };
  }, []);

  useEffect(() => {
    const t = term.current;
    if (!t) return;
    const grow = () => growRows(t, rows);
    if (output.startsWith(written.current)) t.write(output.slice(written.current.length), grow);
    else {
      t.reset();
      t.write(output, grow);
    }
    written.current = output;
  }, [output, built]);

  useEffect(() => {
    if (term.current) term.current.options = { theme: look.theme, fontSize: look.fontSize };
  }, [look.theme, look.fontSize]);

  const empty = exit !== null && output === '';
  return (
    <div className="agent-terminal" data-testid="meta-terminal" data-terminal-id={id}>
      <div className="agent-terminal-host" ref={host} hidden={empty} style={built ? undefined : { minHeight: approxHeight(output, rows, look.fontSize) }} />
      {empty && (
        <div className="muted small" data-testid="terminal-no-output">
          No output.
        </div>
      )}
      {exit && <div className={`terminal-exit ${exit.exitCode === 0 && !exit.signal ? 'ok' : 'bad'}`}>Process {describeExit(exit)}</div>}
    </div>
  );
}
