import { ChevronDown, ChevronRight, Circle, CircleCheck, CircleDashed } from 'lucide-react';
import type { StopReason } from '@agentclientprotocol/sdk';
import { memo } from 'react';
import type { SessionMessageEntry, AgentMessageEntry, CompactionEntry, NoticeEntry, PlanThreadEntry, ThoughtEntry, ThreadEntry, TurnErrorEntry, UserMessageEntry } from '@shared/acp-thread';
import { messageText } from '@shared/acp-thread';
import { exhaustive } from '@shared/exhaustive';
import { Markdown } from '../markdown';
import { Parts } from './Blocks';
import { ElicitationView } from './Elicitation';
import { SubagentView } from './Subagent';
import { ToolCallView } from './ToolCall';
import { useToggle } from './ui-state';
import { STOP_REASON_TEXT } from '../../ui/format';
import { Elapsed } from '../../ui/Elapsed';
import { snapshottingText, useSnapshotting } from './snapshotting';
import { VisibleText } from '../../ui/VisibleText';
import { SignInAgain } from './SignInAgain';

export const UserMessageView = memo(function UserMessageView({ entry }: { entry: UserMessageEntry }) {
  return (
    <div className="msg user-msg" data-testid="user-message">
      <Parts parts={entry.parts} markdown={false} />
    </div>
  );
});

export const AgentMessageView = memo(function AgentMessageView({ entry }: { entry: AgentMessageEntry }) {
  return (
    <div className="msg agent-msg" data-testid="agent-message">
      <Parts parts={entry.parts} markdown />
    </div>
  );
});

export const ThoughtView = memo(function ThoughtView({ entry, sessionId, live }: { entry: ThoughtEntry; sessionId: string; live: boolean }) {
  const [open, toggle] = useToggle(`thought:${sessionId}:${entry.id}`, false);
  const text = messageText(entry.parts);
  const preview = text.trim().split('\n').filter(Boolean).pop() ?? '';
  return (
    <div className="thought" data-testid="thought">
      <button className="thought-head" onClick={() => toggle()} aria-expanded={open}>
        {open ? <ChevronDown size={14} aria-hidden /> : <ChevronRight size={14} aria-hidden />} {live ? 'Thinking…' : 'Thought'}
        {!open && <span className="thought-preview">{preview.slice(0, 160)}</span>}
      </button>
      {open && <Markdown className="thought-body" text={text} />}
    </div>
  );
});

const PLAN_ICON = { pending: Circle, in_progress: CircleDashed, completed: CircleCheck } as const;

function PlanIcon({ status }: { status: string }) {
  const Icon = PLAN_ICON[status as keyof typeof PLAN_ICON] ?? Circle;
  return <Icon size={13} />;
}

export const PlanView = memo(function PlanView({ entry }: { entry: PlanThreadEntry }) {
  const done = entry.entries.filter((e) => e.status === 'completed').length;
  return (
    <div className={`plan${entry.removed ? ' removed' : ''}`} data-testid="plan" data-plan-id={entry.planId}>
      <div className="plan-head">
        Plan {entry.markdown === undefined && entry.uri === undefined && <span className="muted">{done}/{entry.entries.length} done</span>}
        {entry.removed && <span className="tag">removed by the agent</span>}
      </div>
      {entry.markdown !== undefined && <Markdown className="plan-markdown" text={entry.markdown} />}
      {entry.uri !== undefined && (
        <div className="plan-file small">
          In <code><VisibleText text={entry.uri} /></code>
        </div>
      )}
      <ol className="plan-list">
        {entry.entries.map((e, i) => (
          <li key={i} className={`plan-item ${e.status}`} data-status={e.status}>
            <span className="plan-icon" aria-label={e.status}>
              <PlanIcon status={e.status} />
            </span>
            <span className="plan-text"><VisibleText text={e.content} /></span>
            {e.priority !== 'medium' && <span className={`tag priority-${e.priority}`}>{e.priority}</span>}
          </li>
        ))}
      </ol>
    </div>
  );
});

export const NoticeView = memo(function NoticeView({ entry, sessionId }: { entry: NoticeEntry; sessionId: string }) {
  return (
    <div className={`thread-notice ${entry.severity}`} data-testid="thread-notice" role={entry.severity === 'error' ? 'alert' : undefined}>
      <strong><VisibleText text={entry.title} /></strong>
      {entry.description && <div className="notice-desc"><VisibleText text={entry.description} /></div>}
      {entry.signIn && <SignInAgain sessionId={sessionId} />}
    </div>
  );
});

const COMPACTION_TEXT: Record<string, string> = {
  in_progress: 'Compacting context…',
  completed: 'Context compacted',
  failed: 'Context compaction failed',
  cancelled: 'Context compaction cancelled',
};

/** A context compaction: a marker in the thread, its summary collapsed. */
export const CompactionView = memo(function CompactionView({ entry, sessionId }: { entry: CompactionEntry; sessionId: string }) {
  const [open, toggle] = useToggle(`compaction:${sessionId}:${entry.id}`, false);
  const hasSummary = entry.summary.length > 0;
  const label = COMPACTION_TEXT[entry.status] ?? `Context compaction: ${entry.status}`;
  return (
    <div className={`compaction status-${entry.status}`} data-testid="compaction" data-status={entry.status}>
      {hasSummary ? (
        <button className="compaction-head" onClick={() => toggle()} aria-expanded={open}>
          {open ? <ChevronDown size={14} aria-hidden /> : <ChevronRight size={14} aria-hidden />} {label}
          {!open && <span className="muted"> · summary</span>}
        </button>
      ) : (
        <div className="compaction-head">{label}</div>
      )}
      {entry.error && <div className="compaction-error">{entry.error}</div>}
      {open && hasSummary && (
        <div className="compaction-summary" data-testid="compaction-summary">
          <Parts parts={entry.summary} markdown />
        </div>
      )}
    </div>
  );
});

export function TurnErrorView({ entry, onRestart }: { entry: TurnErrorEntry; onRestart: (() => void) | null }) {
  const exited = entry.code === 'agent_exited';
  return (
    <div className="turn-error" data-testid="turn-error" role="alert">
      <strong>{exited ? 'The agent stopped during this turn' : 'The turn failed'}</strong>
      <div className="turn-error-msg">
        {entry.message} <span className="muted">({String(entry.code)})</span>
      </div>
      {exited && onRestart && (
        <button className="primary" onClick={onRestart}>
          Restart agent
        </button>
      )}
    </div>
  );
}

export function StopMark({ reason }: { reason: StopReason }) {
  return (
    <div className={`stop-mark reason-${reason}`} data-testid="stop-reason" data-reason={reason}>
      {STOP_REASON_TEXT[reason] ?? `Stopped: ${reason}`}
    </div>
  );
}

/**
 * The turn runs: the agent works, or, before the prompt goes out, Switchboard snapshots the folder (said as
 * Switchboard's own work, with how many files and for how long).
 */
export function WorkingRow({ cancelling, sessionId }: { cancelling: boolean; sessionId?: string }) {
  const snapshotting = useSnapshotting((s) => (sessionId ? s.bySession[sessionId] : undefined));
  if (snapshotting && snapshotting.phase === 'turn_went') {
    // The prompt went without waiting for the folder's first snapshot: the agent works, and Switchboard says it is still busy.
    return (
      <div className="working-row" data-testid="working" data-phase="agent">
        <span className="spinner" aria-hidden /> {cancelling ? 'Stopping…' : 'Working…'} <span className="muted">Esc to stop</span>
        <div className="muted small" data-testid="snapshot-behind" title={snapshotting.folder}>
          Switchboard is still taking the first snapshot of this folder ({snapshottingText(snapshotting)}): the prompt went without waiting, so a file the agent
          changes before the snapshot reaches it may not show as changed by this turn.
        </div>
      </div>
    );
  }
  if (snapshotting && snapshotting.phase !== 'background' && !cancelling) {
    return (
      <div className="working-row" data-testid="working" data-phase="snapshot" title={snapshotting.folder}>
        <span className="spinner" aria-hidden /> <span data-testid="snapshotting">{snapshottingText(snapshotting)}</span>{' '}
        <span className="muted">
          Switchboard records the folder before the prompt goes to the agent · <Elapsed since={snapshotting.startedAt} />
        </span>
      </div>
    );
  }
  return (
    <div className="working-row" data-testid="working">
      <span className="spinner" aria-hidden /> {cancelling ? 'Stopping…' : 'Working…'} <span className="muted">Esc to stop</span>
    </div>
  );
}

/** One thread entry, live or from history: the one place that knows which view draws which entry kind. */
export function ThreadEntryView({
  entry,
  sessionId,
  cwd,
  live,
  onRestart,
  stored = false,
}: {
  entry: ThreadEntry;
  sessionId: string;
  cwd: string | null;
  live: boolean;
  onRestart: (() => void) | null;
  /** A stored transcript: nothing in it can be answered. */
  stored?: boolean;
}) {
  switch (entry.kind) {
    case 'user_message':
      return <UserMessageView entry={entry} />;
    case 'agent_message':
      return <AgentMessageView entry={entry} />;
    case 'thought':
      return <ThoughtView entry={entry} sessionId={sessionId} live={live} />;
    case 'tool_call':
      return <ToolCallView entry={entry} sessionId={sessionId} cwd={cwd} />;
    case 'plan':
      return <PlanView entry={entry} />;
    case 'notice':
      return <NoticeView entry={entry} sessionId={sessionId} />;
    case 'compaction':
      return <CompactionView entry={entry} sessionId={sessionId} />;
    case 'turn_error':
      return <TurnErrorView entry={entry} onRestart={onRestart} />;
    case 'elicitation':
      return <ElicitationView entry={entry} sessionId={sessionId} stored={stored} />;
    case 'subagent':
      return <SubagentView entry={entry} sessionId={sessionId} live={!stored} renderEntry={renderChildEntry} />;
    case 'session_message':
      return <SessionMessageView entry={entry} />;
    default:
      return exhaustive(entry, 'thread entry kind');
  }
}

function renderChildEntry(entry: ThreadEntry, childId: string, cwd: string | null, live: boolean) {
  return <ThreadEntryView entry={entry} sessionId={childId} cwd={cwd} live={live} onRestart={null} />;
}

/** A message between sessions (a parent's task for its child, the child's report). */
const SessionMessageView = memo(function SessionMessageView({ entry }: { entry: SessionMessageEntry }) {
  return (
    <div className="message session-message" data-testid="session-message">
      <div className="muted session-message-head">Message between sessions</div>
      <Markdown text={messageText(entry.parts)} />
    </div>
  );
});

/** The folder's first snapshot, taken in the background when the session opened, while no turn runs. */
export const SnapshotBanner = memo(function SnapshotBanner({ sessionId }: { sessionId: string }) {
  const snapshotting = useSnapshotting((s) => s.bySession[sessionId]);
  if (snapshotting?.phase !== 'background') return null;
  return (
    <div className="banner snapshot-banner" data-testid="snapshot-progress" title={snapshotting.folder}>
      <span className="spinner" aria-hidden /> {snapshottingText(snapshotting)}{' '}
      <span className="muted">
        Switchboard records the folder so that each turn&apos;s changes can be reviewed and undone; a prompt sent now goes ahead without waiting ·{' '}
        <Elapsed since={snapshotting.startedAt} />
      </span>
    </div>
  );
});
