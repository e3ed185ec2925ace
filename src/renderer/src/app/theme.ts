import { useEffect, useSyncExternalStore } from 'react';
import type { ThemeSetting } from '@shared/contract/settings';
import { useSetting } from './settings';

const query = () => window.matchMedia('(prefers-color-scheme: dark)');

function useOsScheme(): 'light' | 'dark' {
  return useSyncExternalStore(
    (cb) => {
      const mq = query();
      mq.addEventListener('change', cb);
      return () => mq.removeEventListener('change', cb);
    },
    () => (query().matches ? 'dark' : 'light'),
  );
}

export const resolveScheme = (theme: ThemeSetting, os: 'light' | 'dark'): 'light' | 'dark' => (theme === 'system' ? os : theme);

/** The color scheme in force: the theme setting, or the OS's when it is "system". Monaco and xterm follow it through this hook. */
export function useColorScheme(): 'light' | 'dark' {
  return resolveScheme(useSetting('appearance.theme'), useOsScheme());
}

/** Applies the scheme and font sizes to the document (CSS reads data-theme and the --*-font-size variables). */
export function useDocumentTheme(): void {
  const scheme = useColorScheme();
  const threadFont = useSetting('appearance.threadFontSize');
  useEffect(() => {
    document.documentElement.dataset.theme = scheme;
  }, [scheme]);
  useEffect(() => {
    document.documentElement.style.setProperty('--thread-font-size', `${threadFont}px`);
  }, [threadFont]);
}

// Before the settings arrive: the OS's scheme, so nothing flashes.
if (typeof document !== 'undefined' && !document.documentElement.dataset.theme) document.documentElement.dataset.theme = query().matches ? 'dark' : 'light';

const XTERM_THEMES = {
  dark: { background: '#1e1f22', foreground: '#d4d4d4', cursor: '#d4d4d4', selectionBackground: '#264f78' },
  light: { background: '#ffffff', foreground: '#1f2328', cursor: '#1f2328', selectionBackground: '#add6ff' },
} as const;

/** One object per scheme (stable, so effects that depend on it run only when the scheme changes). */
export const xtermTheme = (scheme: 'light' | 'dark') => XTERM_THEMES[scheme];

/** What an xterm terminal takes from the settings: its theme and font size, live. */
export function useTerminalAppearance(): { theme: ReturnType<typeof xtermTheme>; fontSize: number } {
  const scheme = useColorScheme();
  const fontSize = useSetting('appearance.terminalFontSize');
  return { theme: xtermTheme(scheme), fontSize };
}

export const monacoTheme = (scheme: 'light' | 'dark') => (scheme === 'dark' ? 'vs-dark' : 'vs');
