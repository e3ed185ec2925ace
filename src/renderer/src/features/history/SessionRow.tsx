import { sessionTitle } from '@shared/session-title';
import { Archive, ArchiveRestore, Pencil, Star, Trash2 } from 'lucide-react';
import { memo, useEffect, useRef, useState } from 'react';
import type { HistorySession } from '@shared/contract/history';
import { hostLabel, LOCAL_HOST_ID } from '@shared/contract/hosts';
import { useApi } from '../../app/api-context';
import { archiveSession, deleteSessions, exportSession, openTranscript, pinSession, renameSession } from './actions';
import { reopenAsTab } from './continue';
import { ForkLinks, openLiveSessionTab } from '../session';
import { plural, relativeTime, SESSION_STATUS_TEXT, shortPath, STOP_TEXT } from './format';
import { VisibleText, visibleText } from '../../ui/VisibleText';
import { HistorySubagents } from './HistorySubagents';
import type { HeldAtAgent } from './hooks';

/** The session's title by the one rule (shared/session-title). */
export const displayTitle = (s: HistorySession, agentName: string): string => sessionTitle(s.title, agentName, s.forkedFrom?.title);

/** The session's title, editable in place: Enter saves, Esc cancels, an empty title goes back to the automatic one. */
export function InlineRename({ session, onDone }: { session: HistorySession; onDone(): void }) {
  const api = useApi();
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const finish = (save: boolean) => {
    if (done.current) return;
    done.current = true;
    const value = input.current?.value.trim() ?? '';
    if (save && value !== session.title) void renameSession(api, session.id, value === '' ? null : value);
    onDone();
  };
  return (
    <input
      ref={input}
      className="history-rename"
      defaultValue={session.title}
      maxLength={500}
      aria-label="Session name"
      data-testid="history-rename-input"
      placeholder="Empty: the automatic title"
      onClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Enter') finish(true);
        else if (e.key === 'Escape') finish(false);
      }}
      onBlur={() => finish(true)}
    />
  );
}

function statusOf(s: HistorySession, live: boolean): { text: string; tone: string } {
  if (live) return { text: 'Live', tone: 'live' };
  if (s.status === 'failed') return { text: 'Failed', tone: 'failed' };
  if (s.lastStopReason && s.lastStopReason !== 'end_turn' && STOP_TEXT[s.lastStopReason]) return { text: STOP_TEXT[s.lastStopReason]!, tone: 'warn' };
  if (s.lastStopReason === 'error') return { text: 'Last turn failed', tone: 'failed' };
  return { text: SESSION_STATUS_TEXT[s.status] ?? s.status, tone: s.status };
}

interface RowProps {
  session: HistorySession;
  agentName: string;
  live: boolean;
  /** The sidebar's one-line form. */
  compact?: boolean;
  showProject?: string | null;
  /** What its running agent says of it (session/status), when it offers that. */
  held?: HeldAtAgent | null;
}

const HELD_TEXT: Record<HeldAtAgent, { text: string; title: string }> = {
  open: { text: 'open at the agent', title: 'Its agent still holds it in memory (session/status): reopening resumes it without replaying it' },
  saved: { text: 'saved', title: 'Its agent has it saved (session/status): reopening loads it' },
  gone: { text: 'not at the agent', title: 'Its agent does not know this session any more (session/status): the transcript is kept here' },
};

/** One past session: open, rename, pin, export, delete. */
export const SessionRow = memo(function SessionRow({ session: s, agentName, live, compact, showProject, held }: RowProps) {
  const api = useApi();
  const [renaming, setRenaming] = useState(false);
  const title = displayTitle(s, agentName);
  const status = statusOf(s, live);
  const open = () => openTranscript({ id: s.id, title, agentId: s.agentId, cwd: s.cwd });
  const label = `“${visibleText(title.length > 60 ? `${title.slice(0, 57)}…` : title)}”`;
  const [reopening, setReopening] = useState(false);
  const reopen = async () => {
    if (live) return void openLiveSessionTab(s.id, title);
    setReopening(true);
    try {
      await reopenAsTab(api, s.id, title);
    } finally {
      setReopening(false);
    }
  };

  return (
    <li className={`history-row${compact ? ' compact' : ''}${s.pinned ? ' pinned' : ''}`} data-testid="history-row" data-session-id={s.id} data-pinned={s.pinned || undefined}>
      <div className="history-row-main">
        {s.pinned && (
          <span className="history-pin-mark" aria-label="Pinned" title="Pinned">
            <Star size={12} />
          </span>
        )}
        {renaming ? (
          <InlineRename session={s} onDone={() => setRenaming(false)} />
        ) : (
          <button
            className={`history-title${s.title ? '' : ' untitled'}`}
            onClick={open}
            title={compact ? `${visibleText(title)}\n${agentName} · ${s.cwd}` : `Open “${visibleText(title)}”`}
            data-testid="history-open"
          >
            <VisibleText text={title} />
          </button>
        )}
        <span className="history-time" title={new Date(s.lastActivityAt).toLocaleString()}>
          {relativeTime(s.lastActivityAt)}
        </span>
      </div>
      {compact && (
        // Which agent, in which folder: rows of the same first prompt ("Say hello") tell apart at a glance.
        <div className="history-row-where muted small" data-testid="history-row-where">
          <span className="history-row-agent"><VisibleText text={agentName} /></span>
          {s.hostId !== LOCAL_HOST_ID && (
            <span className="history-row-host" data-testid="history-row-host" title={`On ${hostLabel(s.hostId)}`}>
              <VisibleText text={hostLabel(s.hostId)} />
            </span>
          )}
          <span className="history-row-folder" title={s.cwd}>
            <VisibleText text={shortPath(s.cwd)} />
          </span>
        </div>
      )}
      {!compact && (
        <div className="history-row-meta">
          <span className={`history-status tone-${status.tone}`} data-testid="history-status">
            {status.text}
          </span>
          {held && !live && (
            <span className={`history-held ${held}`} data-testid="history-held" data-held={held} title={HELD_TEXT[held].title}>
              {HELD_TEXT[held].text}
            </span>
          )}
          {showProject && <span className="history-project-inline">{showProject}</span>}
          {s.hostId !== LOCAL_HOST_ID && (
            <span className="history-row-host" data-testid="history-row-host" title={`On ${hostLabel(s.hostId)}`}>
              <VisibleText text={hostLabel(s.hostId)} />
            </span>
          )}
          <span>{plural(s.messageCount, 'message')}</span>
          <span>{plural(s.toolCallCount, 'tool call')}</span>
          <span title={s.filesEdited ? `${s.filesEdited} edited` : undefined}>{plural(s.filesTouched, 'file')} touched</span>
          {s.failedTurns > 0 && <span className="history-failed">{plural(s.failedTurns, 'failed turn')}</span>}
          <ForkLinks forkedFrom={s.forkedFrom} forks={s.forks} agentId={s.agentId} cwd={s.cwd} />
          <span className="history-actions">
            <button
              onClick={() => void reopen()}
              disabled={reopening}
              aria-label={`${live ? 'Go to the live session' : 'Reopen live'} ${label}`}
              title={live ? 'Go to the live session' : 'Reopen as a live session (when its agent can resume or load it)'}
              data-testid="history-reopen"
            >
              {reopening ? 'Reopening…' : live ? 'Live' : 'Reopen'}
            </button>
            <button onClick={() => setRenaming(true)} aria-label={`Rename ${label}`} title="Rename" data-testid="history-rename">
              <Pencil size={13} />
            </button>
            <button onClick={() => void pinSession(api, s.id, !s.pinned)} aria-label={`${s.pinned ? 'Unpin' : 'Pin'} ${label}`} aria-pressed={s.pinned} title={s.pinned ? 'Unpin' : 'Pin to the top'} data-testid="history-pin">
              <Star size={13} fill={s.pinned ? 'currentColor' : 'none'} />
            </button>
            <button onClick={() => void exportSession(api, s.id, 'markdown')} aria-label={`Export ${label} as Markdown`} title="Export as Markdown" data-testid="history-export-md">
              MD
            </button>
            <button onClick={() => void exportSession(api, s.id, 'json')} aria-label={`Export ${label} as JSON`} title="Export as JSON" data-testid="history-export-json">
              JSON
            </button>
            <button
              onClick={() => void archiveSession(api, s.id, !s.archivedAt, label)}
              aria-label={`${s.archivedAt ? 'Unarchive' : 'Archive'} ${label}`}
              title={s.archivedAt ? 'Unarchive (back in the list, and at its agent when it archives)' : 'Archive (hidden from the list, still searchable; at its agent too when it archives)'}
              data-testid="history-archive"
            >
              {s.archivedAt ? <ArchiveRestore size={13} /> : <Archive size={13} />}
            </button>
            <button className="danger" onClick={() => void deleteSessions(api, [s.id], label)} aria-label={`Delete ${label}`} title="Delete (you can undo)" data-testid="history-delete">
              <Trash2 size={13} />
            </button>
          </span>
        </div>
      )}
      <HistorySubagents session={s} />
    </li>
  );
});
