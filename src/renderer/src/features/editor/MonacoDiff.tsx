import { useEffect, useRef, useState } from 'react';
import type * as Monaco from 'monaco-editor/editor/editor.api';
import { useSetting } from '../../app/settings';
import { monacoTheme, useColorScheme } from '../../app/theme';
import { afterTypingPause } from '../../app/typing-pause';
import { languageForPath, loadMonaco } from './monaco';

export interface MonacoDiffProps {
  path: string;
  oldText: string | null;
  newText: string;
  /** Side by side (default) or inline. */
  inline?: boolean;
  height?: number;
}

/** How long a diff is in view before its editor is built. */
const BUILD_DELAY_MS = 100;

/** A read-only Monaco diff of one file's change; a new file (no old text) is shown as added content. */
export function MonacoDiff({ path, oldText, newText, inline = false, height = 320 }: MonacoDiffProps) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<Monaco.editor.IStandaloneDiffEditor | null>(null);
  const single = useRef<Monaco.editor.IStandaloneCodeEditor | null>(null);
  const scheme = useColorScheme();
  const fontSize = useSetting('appearance.editorFontSize');
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let disposed = false;
    let models: Monaco.editor.ITextModel[] = [];
    let viewModel: Monaco.editor.IDiffEditorViewModel | null = null;
    // Built a moment after it comes into view: the diffs a fast wheel carries past in a long thread never
    // build an editor; and not while the user types (30–50 ms each). Monaco's first load takes a while: the
    // pause is checked again once it has loaded.
    let cancelBuild = afterTypingPause(
      () =>
        void loadMonaco().then((monaco) => {
          if (!disposed) cancelBuild = afterTypingPause(() => build(monaco), 0);
        }),
      BUILD_DELAY_MS,
    );
    const build = (monaco: typeof Monaco) => {
      if (disposed || !host.current) return;
      monaco.editor.setTheme(monacoTheme(scheme));
      const lang = languageForPath(path);
      if (oldText === null) {
        // A new file: all of it is added content (a diff against "" would show a deleted empty line 1).
        const model = monaco.editor.createModel(newText, lang);
        models = [model];
        const e = monaco.editor.create(host.current, {
          model,
          readOnly: true,
          automaticLayout: true,
          minimap: { enabled: false },
          scrollBeyondLastLine: false,
          // A wheel over it scrolls the page (the thread) when it has nothing to scroll itself.
          scrollbar: { alwaysConsumeMouseWheel: false },
          fontSize,
        });
        e.createDecorationsCollection([
          {
            range: model.getFullModelRange(),
            options: { isWholeLine: true, className: 'new-file-line', linesDecorationsClassName: 'new-file-gutter' },
          },
        ]);
        single.current = e;
        setReady(true);
        return;
      }
      const original = monaco.editor.createModel(oldText, lang);
      const modified = monaco.editor.createModel(newText, lang);
      models = [original, modified];
      const e = monaco.editor.createDiffEditor(host.current, {
        readOnly: true,
        originalEditable: false,
        renderSideBySide: !inline,
        // The user's choice holds at any width (Monaco would silently go inline below ~900 px).
        useInlineViewWhenSpaceIsLimited: false,
        automaticLayout: true,
        minimap: { enabled: false },
        scrollBeyondLastLine: false,
        // A wheel over it scrolls the page (the thread) when it has nothing to scroll itself.
        scrollbar: { alwaysConsumeMouseWheel: false },
        fontSize,
      });
      // The view model is ours to dispose: the editor never disposes one it made itself (Monaco 0.57), so
      // a diff request still waiting for the worker would outlive the models and fail ("no diff result
      // available"). Disposing it cancels that request.
      viewModel = e.createViewModel({ original, modified });
      e.setModel(viewModel);
      editor.current = e;
      setReady(true);
    };
    return () => {
      cancelBuild();
      disposed = true;
      // Editor first, then its view model (cancelling a diff in flight), then the models it showed.
      editor.current?.setModel(null);
      editor.current?.dispose();
      editor.current = null;
      viewModel?.dispose();
      single.current?.dispose();
      single.current = null;
      for (const m of models) m.dispose();
    };
  }, [path, oldText, newText]);

  useEffect(() => {
    editor.current?.updateOptions({ renderSideBySide: !inline });
  }, [inline]);

  useEffect(() => {
    editor.current?.updateOptions({ fontSize });
    single.current?.updateOptions({ fontSize });
  }, [fontSize, ready]);

  useEffect(() => {
    if (ready) void loadMonaco().then((m) => m.editor.setTheme(monacoTheme(scheme)));
  }, [scheme, ready]);

  // Monaco is fetched on the first diff shown: until the editor is built, the host says so.
  return (
    <div className="monaco-host" data-testid="monaco-diff" data-new-file={oldText === null || undefined} data-ready={ready} ref={host} style={{ height }}>
      {!ready && <div className="monaco-loading" role="status">Loading the diff…</div>}
    </div>
  );
}
