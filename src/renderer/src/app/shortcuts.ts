import { useEffect } from 'react';
import type { Api } from '../ipc/client';
import { useTabs } from '../state/tabs';
import { focusNextNeedingYou } from '../features/workspace/attention';
import { closeTab, openLauncher } from './PaneView';

export interface Shortcut {
  /** e.g. 'Mod+T', 'Mod+Shift+Tab', 'Mod+K'. Mod is Cmd on macOS, Ctrl elsewhere. */
  keys: string;
  description: string;
  /** Also fire while focus is in a terminal (where the plain Ctrl key belongs to the shell). */
  inTerminal?: boolean;
  run(api: Api): void;
}

const isMac = navigator.platform.toLowerCase().includes('mac');

export const shortcuts: Shortcut[] = [
  { keys: 'Mod+T', description: 'New tab', run: () => openLauncher() },
  { keys: 'Mod+Shift+T', description: 'New tab (also in terminals)', inTerminal: true, run: () => openLauncher() },
  {
    keys: 'Mod+W',
    description: 'Close tab',
    run: (api) => closeActive(api),
  },
  { keys: 'Mod+Shift+W', description: 'Close tab (also in terminals)', inTerminal: true, run: (api) => closeActive(api) },
  { keys: 'Ctrl+Tab', description: 'Next tab', inTerminal: true, run: () => useTabs.getState().cycle(1) },
  { keys: 'Ctrl+Shift+Tab', description: 'Previous tab', inTerminal: true, run: () => useTabs.getState().cycle(-1) },
  { keys: 'Ctrl+PageDown', description: 'Next tab', inTerminal: true, run: () => useTabs.getState().cycle(1) },
  { keys: 'Ctrl+PageUp', description: 'Previous tab', inTerminal: true, run: () => useTabs.getState().cycle(-1) },
  { keys: 'Mod+\\', description: 'Split right', inTerminal: true, run: () => void useTabs.getState().split('row') },
  { keys: 'Mod+Shift+|', description: 'Split down', inTerminal: true, run: () => void useTabs.getState().split('column') },
  { keys: 'Mod+J', description: 'Next session that needs you', inTerminal: true, run: () => void focusNextNeedingYou() },
  ...[1, 2, 3, 4].map((n) => ({
    keys: `Mod+${n}`,
    description: `Focus pane ${n}`,
    inTerminal: true,
    run: () => {
      const pane = useTabs.getState().panes[n - 1];
      if (pane) useTabs.getState().focusPane(pane.id);
    },
  })),
];

function closeActive(api: Api): void {
  const s = useTabs.getState();
  const pane = s.panes.find((p) => p.id === s.focusedPaneId);
  if (pane?.activeTabId) closeTab(pane.activeTabId, api);
}

export function registerShortcut(s: Shortcut): void {
  shortcuts.push(s);
}

function matches(e: KeyboardEvent, keys: string): boolean {
  const parts = keys.split('+');
  const key = parts.pop()!.toLowerCase();
  const want = new Set(parts.map((p) => p.toLowerCase()));
  const ctrl = want.has('ctrl') || (want.has('mod') && !isMac);
  const meta = want.has('meta') || (want.has('mod') && isMac);
  return (
    e.ctrlKey === ctrl && e.metaKey === meta && e.shiftKey === want.has('shift') && e.altKey === want.has('alt') && e.key.toLowerCase() === key
  );
}

export function useShortcuts(api: Api): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const inTerminal = e.target instanceof Element && e.target.closest('.xterm') !== null;
      for (const s of shortcuts) {
        if (matches(e, s.keys) && (!inTerminal || s.inTerminal)) {
          e.preventDefault();
          e.stopPropagation();
          s.run(api);
          return;
        }
      }
    };
    // Capture phase: before the terminal or an editor swallows the key.
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [api]);
}
