/**
 * Monaco, loaded on first use (it is large) with its editor worker bundled by Vite, themed to the OS
 * color scheme. Only the core editor and the Monarch grammars are included: no language servers.
 */
import type * as Monaco from 'monaco-editor/editor/editor.api';

let loading: Promise<typeof Monaco> | null = null;

export function loadMonaco(): Promise<typeof Monaco> {
  loading ??= (async () => {
    const [{ default: EditorWorker }, monaco] = await Promise.all([
      import('monaco-editor/editor/editor.worker?worker'),
      import('monaco-editor/editor/editor.api'),
      import('./languages'),
      // The codicon font (the diff gutter's +/− and the widgets' icons): bundled, never fetched.
      import('monaco-editor/features/codicon/register'),
    ]);
    (self as unknown as { MonacoEnvironment: unknown }).MonacoEnvironment = { getWorker: () => new EditorWorker() };
    return monaco;
  })();
  return loading;
}

const byExtension: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  py: 'python', rs: 'rust', go: 'go', java: 'java', kt: 'kotlin', c: 'c', h: 'c', cpp: 'cpp', cc: 'cpp', hpp: 'cpp',
  cs: 'csharp', rb: 'ruby', php: 'php', swift: 'swift', sh: 'shell', bash: 'shell', zsh: 'shell', md: 'markdown',
  json: 'json', yaml: 'yaml', yml: 'yaml', toml: 'ini', ini: 'ini', html: 'html', css: 'css', scss: 'scss',
  sql: 'sql', xml: 'xml', dockerfile: 'dockerfile', lua: 'lua',
};

export function languageForPath(path: string): string {
  const base = path.split(/[\\/]/).pop()?.toLowerCase() ?? '';
  if (base === 'dockerfile') return 'dockerfile';
  return byExtension[base.split('.').pop() ?? ''] ?? 'plaintext';
}
