import { useEffect, useState } from 'react';
import { useApi } from '../../app/api-context';
import type { TabViewProps } from '../../app/contributions';
import { MonacoViewer } from '../editor';
import { readSessionFile, type FileContent } from './files';
import { VisibleText } from '../../ui/VisibleText';

/** A file a tool call pointed at, opened at the line. */
export function FileViewTab({ tab }: TabViewProps) {
  const api = useApi();
  const sessionId = String(tab.props.sessionId);
  const path = String(tab.props.path);
  const line = typeof tab.props.line === 'number' ? tab.props.line : undefined;
  const agentRules = tab.props.agentRules === true;
  const [content, setContent] = useState<FileContent | { error: string } | null>(null);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    let stale = false;
    void readSessionFile(api, sessionId, path, agentRules).then((c) => !stale && setContent(c));
    return () => {
      stale = true;
    };
  }, [api, sessionId, path, agentRules, reloads]);

  return (
    <div className="file-view-tab" data-testid="file-view">
      <div className="file-view-bar">
        <code title={path}>
          <VisibleText text={path} />
          {line ? `:${line}` : ''}
        </code>
        <button onClick={() => setReloads((n) => n + 1)} title="Read the file again">
          Reload
        </button>
      </div>
      {content === null && <div className="muted file-view-msg">Loading…</div>}
      {content && 'error' in content && (
        <div className="file-view-msg" role="alert">
          <p>{content.error}</p>
        </div>
      )}
      {content && 'text' in content && (
        <>
          <div className="file-view-editor">
            <MonacoViewer path={path} text={content.text} line={line} />
          </div>
        </>
      )}
    </div>
  );
}
