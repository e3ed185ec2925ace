import { useEffect, useRef, useState } from 'react';
import type * as Monaco from 'monaco-editor/editor/editor.api';
import { useSetting } from '../../app/settings';
import { monacoTheme, useColorScheme } from '../../app/theme';
import { languageForPath, loadMonaco } from './monaco';

/** A read-only Monaco view of a file, revealing and highlighting `line` (1-based) when given. */
export function MonacoViewer({ path, text, line, height = '100%' }: { path: string; text: string; line?: number; height?: number | string }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<Monaco.editor.IStandaloneCodeEditor | null>(null);
  const scheme = useColorScheme();
  const fontSize = useSetting('appearance.editorFontSize');
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let disposed = false;
    let model: Monaco.editor.ITextModel | null = null;
    void loadMonaco().then((monaco) => {
      if (disposed || !host.current) return;
      monaco.editor.setTheme(monacoTheme(scheme));
      model = monaco.editor.createModel(text, languageForPath(path));
      const e = monaco.editor.create(host.current, { model, readOnly: true, automaticLayout: true, minimap: { enabled: false }, fontSize });
      if (line && line > 0) {
        e.revealLineInCenter(line);
        e.setSelection({ startLineNumber: line, startColumn: 1, endLineNumber: line, endColumn: model.getLineMaxColumn(line) });
      }
      editor.current = e;
      setReady(true);
    });
    return () => {
      disposed = true;
      editor.current?.dispose();
      editor.current = null;
      model?.dispose();
    };
  }, [path, text, line]);

  useEffect(() => {
    editor.current?.updateOptions({ fontSize });
  }, [fontSize, ready]);

  useEffect(() => {
    if (ready) void loadMonaco().then((m) => m.editor.setTheme(monacoTheme(scheme)));
  }, [scheme, ready]);

  return (
    <div className="monaco-host" data-testid="monaco-viewer" data-ready={ready} ref={host} style={{ height }}>
      {!ready && <div className="monaco-loading" role="status">Loading the file…</div>}
    </div>
  );
}
