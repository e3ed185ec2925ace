import type { FitAddon } from '@xterm/addon-fit';
import type { Terminal } from '@xterm/xterm';
import { useEffect, useRef, useState } from 'react';
import { useApi } from '../../app/api-context';
import type { TabViewProps } from '../../app/contributions';
import { useTerminalAppearance } from '../../app/theme';
import { loadXterm, type Xterm } from '../../app/xterm';
import { useTabs } from '../../state/tabs';
import { describeExit } from '../../app/TerminalView';

/** A login shell in a real pseudo-terminal, rendered by xterm. */
export function ShellTab({ tab, active }: TabViewProps) {
  const api = useApi();
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const fit = useRef<FitAddon | null>(null);
  const look = useTerminalAppearance();
  const [error, setError] = useState<string | null>(null);
  const [exited, setExited] = useState<string | null>(null);
  const lookRef = useRef(look);
  lookRef.current = look;
  const activeRef = useRef(active);
  activeRef.current = active;

  useEffect(() => {
    let gone = false;
    let dispose = () => {};
    // xterm is fetched with the first terminal; the shell is started once it is here.
    loadXterm().then(
      (x) => {
        if (gone) return;
        dispose = build(x, host.current!);
        if (activeRef.current) term.current?.focus();
      },
      (e: unknown) => !gone && setError(`the terminal could not load (${e instanceof Error ? e.message : String(e)})`),
    );
    return () => {
      gone = true;
      dispose();
    };
    // The terminal lives as long as the tab; theme changes are applied below.
  }, []);

  /** Builds the terminal and starts (or reattaches to) the shell; returns its disposal. */
  const build = (x: Xterm, el: HTMLDivElement): (() => void) => {
    const look = lookRef.current;
    // The user's own shell keeps its palette changes (theme scripts); numbers are capped as everywhere.
    const t = new x.SafeTerminal({ fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, monospace', fontSize: look.fontSize, cursorBlink: true, scrollback: 10_000, theme: look.theme }, { palette: 'allow' });
    const f = new x.FitAddon();
    t.loadAddon(f);
    t.open(el);
    term.current = t;
    fit.current = f;
    try {
      f.fit();
    } catch {
      /* not laid out yet */
    }
    let ptyId = typeof tab.props.ptyId === 'string' ? tab.props.ptyId : null;
    let disposed = false;
    const offData = api.on('pty.data', (p) => p.id === ptyId && t.write(p.data));
    const offExit = api.on('pty.exit', (p) => {
      if (p.id !== ptyId) return;
      // In words, also when no exit code came ("exited with code null" said nothing).
      const how = describeExit({ exitCode: p.exitCode, signal: p.signal !== null ? `signal ${p.signal}` : null });
      setExited(how);
      t.write(`\r\n\x1b[2m[the shell ${how}]\x1b[0m\r\n`);
    });
    // Keys typed before the shell exists are kept and sent once it does.
    let early = '';
    const input = t.onData((data) => {
      if (ptyId) void api.call('pty.write', { id: ptyId, data });
      else early += data;
    });
    const resize = t.onResize(({ cols, rows }) => ptyId && void api.call('pty.resize', { id: ptyId, cols, rows }));

    (async () => {
      if (ptyId) {
        const snap = await api.call('pty.snapshot', { id: ptyId });
        if (snap.ok) t.write(snap.value.data);
        return;
      }
      const { cols, rows } = t;
      const hostId = typeof tab.props.hostId === 'string' ? tab.props.hostId : undefined;
      const r = await api.call('pty.createShell', { cols, rows, ...(typeof tab.props.cwd === 'string' ? { cwd: tab.props.cwd } : {}), ...(hostId ? { hostId } : {}) });
      if (disposed) {
        if (r.ok) void api.call('pty.kill', { id: r.value.id });
        return;
      }
      if (!r.ok) return setError(r.error.message);
      ptyId = r.value.id;
      if (early) void api.call('pty.write', { id: ptyId, data: early });
      if (t.cols !== cols || t.rows !== rows) void api.call('pty.resize', { id: ptyId, cols: t.cols, rows: t.rows });
      const on = typeof tab.props.hostLabel === 'string' ? tab.props.hostLabel : hostId;
      useTabs.getState().update(tab.id, { title: hostId ? `Shell on ${on}` : (r.value.shell.split('/').pop() ?? 'shell'), props: { ...tab.props, ptyId } });
    })();

    const ro = new ResizeObserver(() => {
      if (el.offsetParent !== null) {
        try {
          f.fit();
        } catch {
          /* hidden */
        }
      }
    });
    ro.observe(el);
    return () => {
      disposed = true;
      ro.disconnect();
      offData();
      offExit();
      input.dispose();
      resize.dispose();
      t.dispose();
    };
  };

  useEffect(() => {
    if (!term.current) return;
    term.current.options = { theme: look.theme, fontSize: look.fontSize };
    try {
      fit.current?.fit();
    } catch {
      /* hidden */
    }
  }, [look.theme, look.fontSize]);

  useEffect(() => {
    if (active) {
      requestAnimationFrame(() => {
        try {
          fit.current?.fit();
        } catch {
          /* hidden */
        }
        term.current?.focus();
      });
    }
  }, [active]);

  return (
    <div className="shell-tab" data-testid="shell-tab" data-exited={exited ?? undefined}>
      {error && <div className="banner error">Could not start a shell: {error}</div>}
      <div className="xterm-host" ref={host} />
    </div>
  );
}
