import { ChevronDown, ChevronRight } from 'lucide-react';
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import { memo } from 'react';
import type { ToolCallEntry } from '@shared/acp-thread';
import { isFinished } from '@shared/acp-thread';
import { mcpToolName } from '@shared/mcp-tool-name';
import { MonacoDiff } from '../editor';
import { openFileTab } from './files';
import { ContentBlockView } from './Blocks';
import { PermissionCard } from './PermissionCard';
import { RuleAnswerLine } from './RuleAnswerLine';
import { AgentTerminalView, MetaTerminalView } from '../../app/TerminalView';
import { useDiffMode, useToggle } from './ui-state';
import { prettyJson, relativeTo, TOOL_ICON, TOOL_STATUS_TEXT } from '../../ui/format';
import { VisibleText } from '../../ui/VisibleText';

function diffHeight(oldText: string | null | undefined, newText: string, inline: boolean): number {
  const count = (s: string | null | undefined) => (s ? s.split('\n').length : 0);
  const lines = inline ? count(oldText) + count(newText) : Math.max(count(oldText), count(newText));
  return Math.min(520, Math.max(90, lines * 19 + 16));
}

export function DiffBlock({ path, oldText, newText, cwd }: { path: string; oldText: string | null; newText: string; cwd: string | null }) {
  const inline = useDiffMode((s) => s.inline);
  const setInline = useDiffMode((s) => s.setInline);
  return (
    <div className="diff-block" data-testid="tool-diff">
      <div className="diff-head">
        <span className="diff-path" title={path}>
          {oldText === null ? <span className="tag new">new</span> : null} <VisibleText text={relativeTo(path, cwd)} />
        </span>
        <span className="seg" role="group" aria-label="Diff layout">
          <button className={!inline ? 'on' : ''} aria-pressed={!inline} onClick={() => setInline(false)}>
            Side by side
          </button>
          <button className={inline ? 'on' : ''} aria-pressed={inline} onClick={() => setInline(true)}>
            Inline
          </button>
        </span>
      </div>
      <MonacoDiff path={path} oldText={oldText} newText={newText} inline={inline} height={diffHeight(oldText, newText, inline)} />
    </div>
  );
}

function ToolContent({ content, cwd, metaIds, stored }: { content: ToolCallContent; cwd: string | null; metaIds: ReadonlySet<string>; stored: ToolCallEntry['storedTerminals'] }) {
  switch (content.type) {
    case 'diff':
      return <DiffBlock path={content.path} oldText={content.oldText ?? null} newText={content.newText} cwd={cwd} />;
    case 'terminal':
      // A terminal the agent runs itself is shown from its _meta output below, not from the client's terminals.
      return metaIds.has(content.terminalId) ? null : <AgentTerminalView terminalId={content.terminalId} stored={stored?.[content.terminalId]} />;
    case 'content':
      // Tool output (command output, file listings) is text as the tool printed it, not Markdown.
      return content.content.type === 'text' ? (
        <pre className="tool-text tool-output" data-testid="tool-output">
          {content.content.text}
        </pre>
      ) : (
        <ContentBlockView block={content.content} />
      );
    default:
      return null;
  }
}

function ToolIcon({ kind }: { kind: ToolCallEntry['toolKind'] }) {
  const Icon = TOOL_ICON[kind] ?? TOOL_ICON.other;
  return <Icon size={14} />;
}

/** The tool call's title; an MCP tool's raw name (`mcp__server__tool`) reads as "Server · tool", the raw name its tooltip. */
function ToolTitle({ text }: { text: string }) {
  const mcp = mcpToolName(text);
  if (!mcp) return <span className="tool-title"><VisibleText text={text} /></span>;
  return (
    <span className="tool-title" title={mcp.raw} data-testid="tool-title-mcp" data-raw-name={mcp.raw}>
      <VisibleText text={mcp.title} />
    </span>
  );
}

export const ToolCallView = memo(function ToolCallView({ entry, sessionId, cwd }: { entry: ToolCallEntry; sessionId: string; cwd: string | null }) {
  const hasRich = entry.content.some((c) => c.type === 'diff' || c.type === 'terminal') || entry.metaTerminals !== null || (entry.replacedDiffs?.length ?? 0) > 0;
  const [open, toggle] = useToggle(`tool:${sessionId}:${entry.id}`, hasRich || entry.status === 'failed');
  const [raw, toggleRaw] = useToggle(`raw:${sessionId}:${entry.id}`, false);
  const showBody = open || entry.permission !== null;
  const metaIds = new Set(entry.metaTerminals ? Object.keys(entry.metaTerminals) : []);
  const running = !isFinished(entry.status);
  const status = entry.permission ? 'Waiting for you' : TOOL_STATUS_TEXT[entry.status];
  return (
    <div className={`tool-call status-${entry.status}${entry.permission ? ' needs-permission' : ''}`} data-testid="tool-call" data-tool-call-id={entry.toolCallId} data-status={entry.status} data-kind={entry.toolKind}>
      <button className="tool-head" onClick={() => toggle()} aria-expanded={showBody}>
        <span className="tool-icon" aria-hidden>
          <ToolIcon kind={entry.toolKind} />
        </span>
        <ToolTitle text={entry.title || entry.name || 'Tool call'} />
        <span className={`tool-status ${entry.permission ? 'attention' : entry.status}`} data-testid="tool-status">
          {running && !entry.permission && <span className="spinner" aria-hidden />}
          {status}
        </span>
        <span className="chevron" aria-hidden>
          {showBody ? <ChevronDown size={14} /> : <ChevronRight size={14} />}
        </span>
      </button>
      {entry.locations.length > 0 && (
        <div className="tool-locations">
          {entry.locations.map((l, i) => (
            <button key={`${l.path}:${l.line ?? ''}:${i}`} className="location" onClick={() => openFileTab(sessionId, l.path, l.line ?? null)} title={`Open ${l.path}`} data-testid="tool-location">
              <VisibleText text={relativeTo(l.path, cwd)} />
              {l.line ? `:${l.line}` : ''}
            </button>
          ))}
        </div>
      )}
      {entry.ruled && <RuleAnswerLine answer={entry.ruled} />}
      {showBody && (
        <div className="tool-body">
          {entry.content.map((c, i) => (
            <ToolContent key={i} content={c} cwd={cwd} metaIds={metaIds} stored={entry.storedTerminals} />
          ))}
          {entry.replacedDiffs && entry.replacedDiffs.length > 0 && (
            <div className="replaced-diffs" data-testid="tool-last-diff">
              <div className="raw-label">Last diff (the agent has since replaced this tool call’s content)</div>
              {entry.replacedDiffs.map((d, i) => (
                <DiffBlock key={i} path={d.path} oldText={d.oldText ?? null} newText={d.newText} cwd={cwd} />
              ))}
            </div>
          )}
          {entry.metaTerminals &&
            Object.entries(entry.metaTerminals).map(([id, t]) => <MetaTerminalView key={id} id={id} output={t.output} exit={t.exit} />)}
          {(entry.rawInput !== undefined || entry.rawOutput !== undefined) && (
            <div className="tool-raw">
              <button className="link-button" onClick={() => toggleRaw()} aria-expanded={raw}>
                {raw ? <ChevronDown size={12} /> : <ChevronRight size={12} />} Raw input and output
              </button>
              {raw && (
                <>
                  {entry.rawInput !== undefined && (
                    <>
                      <div className="raw-label">Input</div>
                      <pre className="raw-json" data-testid="tool-raw-input">{prettyJson(entry.rawInput)}</pre>
                    </>
                  )}
                  {entry.rawOutput !== undefined && (
                    <>
                      <div className="raw-label">Output</div>
                      <pre className="raw-json" data-testid="tool-raw-output">{prettyJson(entry.rawOutput)}</pre>
                    </>
                  )}
                </>
              )}
            </div>
          )}
          {entry.content.length === 0 && !entry.metaTerminals && entry.rawInput === undefined && entry.rawOutput === undefined && !entry.permission && (
            <div className="muted small">No details.</div>
          )}
        </div>
      )}
      {entry.permission && <PermissionCard sessionId={sessionId} requestId={entry.permission.requestId} options={entry.permission.options} note={entry.permission.note} rules={entry.permission.rules} />}
    </div>
  );
});
