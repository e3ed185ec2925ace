import { useSyncExternalStore } from 'react';

const query = () => window.matchMedia('(prefers-color-scheme: dark)');

/** The OS color scheme, live. CSS follows it through a media query; Monaco and xterm through this hook. */
export function useColorScheme(): 'light' | 'dark' {
  return useSyncExternalStore(
    (cb) => {
      const mq = query();
      mq.addEventListener('change', cb);
      return () => mq.removeEventListener('change', cb);
    },
    () => (query().matches ? 'dark' : 'light'),
  );
}

export const xtermTheme = (scheme: 'light' | 'dark') =>
  scheme === 'dark'
    ? { background: '#1e1f22', foreground: '#d4d4d4', cursor: '#d4d4d4', selectionBackground: '#264f78' }
    : { background: '#ffffff', foreground: '#1f2328', cursor: '#1f2328', selectionBackground: '#add6ff' };

export const monacoTheme = (scheme: 'light' | 'dark') => (scheme === 'dark' ? 'vs-dark' : 'vs');
