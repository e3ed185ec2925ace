import type { FitAddon } from '@xterm/addon-fit';
import type { SafeTerminal } from './safe-terminal';

/** xterm, fetched with the first terminal shown rather than with the page (its code is a sixth of the page's). */
export interface Xterm {
  SafeTerminal: typeof SafeTerminal;
  FitAddon: typeof FitAddon;
}

let loading: Promise<Xterm> | null = null;

export function loadXterm(): Promise<Xterm> {
  loading ??= Promise.all([import('./safe-terminal'), import('@xterm/addon-fit')]).then(([s, f]) => ({ SafeTerminal: s.SafeTerminal, FitAddon: f.FitAddon }));
  // A failed fetch (the server went away) is tried again by the next terminal.
  loading.catch(() => (loading = null));
  return loading;
}
