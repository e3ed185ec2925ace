import { ChevronDown, ChevronRight } from 'lucide-react';
import { useEffect, useLayoutEffect, useState, type ReactNode } from 'react';
import { subagentWorking, type SubagentEntry, type ThreadEntry } from '@shared/acp-thread';
import type { ResultOf } from '@shared/contract';
import { useApi } from '../../app/api-context';
import { useController, useSessionView } from './controller';
import { useToggle } from './ui-state';
import { useStoredThread } from './stored-thread';
import { Elapsed } from '../../ui/Elapsed';
import { VisibleText } from '../../ui/VisibleText';

type ChildInfo = ResultOf<'sessions.subagents'>['subagents'][number];

/** Entries of an open child shown at most (its last ones; the whole thread opens in its own tab). */
const CHILD_ENTRIES = 60;

const seconds = (ms: number) => (ms < 60_000 ? `${Math.max(0, Math.round(ms / 1000))} s` : `${Math.round(ms / 60_000)} min`);

/** What the card says of the child's work: never "running" once it, its parent or its run has ended. */
function stateText(entry: SubagentEntry, child: ChildInfo | null, parentLive: boolean): { text: string; working: boolean } {
  const ended = !parentLive || (child !== null && !child.live);
  if (subagentWorking(entry) && !ended) return { text: entry.state === 'requires_action' ? 'Needs you' : 'Running', working: true };
  if (entry.endedByParent || (subagentWorking(entry) && ended)) return { text: 'Ended with its parent', working: false };
  if (entry.state === 'idle') return { text: entry.stopReason && entry.stopReason !== 'end_turn' ? `Ended (${entry.stopReason})` : 'Finished', working: false };
  return { text: entry.state === 'unknown' ? 'State unknown' : 'Ended', working: false };
}

/**
 * An ACP subagent session in its parent's thread: what the agent calls it, its agent and model, its state and
 * time, a Cancel when the agent allows it, and (open) its own thread, streaming while it works.
 */
export function SubagentView({
  entry,
  sessionId,
  live,
  renderEntry,
}: {
  entry: SubagentEntry;
  sessionId: string;
  live: boolean;
  renderEntry: (entry: ThreadEntry, childId: string, cwd: string | null, live: boolean) => ReactNode;
}) {
  const api = useApi();
  const [open, toggle] = useToggle(`subagent:${sessionId}:${entry.childId}`, true);
  const [child, setChild] = useState<ChildInfo | null>(null);
  useEffect(() => {
    let stale = false;
    const load = () =>
      void api
        .call('sessions.subagents', { sessionId })
        .then((r) => {
          if (!stale && r.ok) setChild(r.value.subagents.find((s) => s.acpSessionId === entry.childId) ?? null);
        });
    load();
    const off = api.on('session.state', (info) => {
      if (info.subagent?.parentId === sessionId) load();
    });
    return () => {
      stale = true;
      off();
    };
  }, [api, sessionId, entry.childId, entry.state, entry.endedByParent, live]);
  const { text, working } = stateText(entry, child, live);
  const canCancel = working && entry.canCancel && child !== null && child.live;
  return (
    <div className={`subagent${working ? ' working' : ''}`} data-testid="subagent" data-state={working ? 'working' : 'ended'}>
      <div className="subagent-head">
        <button type="button" className="subagent-toggle" aria-expanded={open} onClick={() => toggle()} title={open ? 'Hide its thread' : 'Show its thread'}>
          {open ? <ChevronDown size={13} /> : <ChevronRight size={13} />}
          <span className="subagent-title"><VisibleText text={entry.title ?? 'Subagent'} /></span>
        </button>
        {entry.description && <span className="muted subagent-role"><VisibleText text={entry.description} /></span>}
        <span className="subagent-state" data-testid="subagent-state">
          {working && <span className="spinner" aria-hidden />} {text}
        </span>
        {child && (
          <span className="muted subagent-time">{working ? <Elapsed since={child.createdAt} /> : seconds(child.updatedAt - child.createdAt)}</span>
        )}
        {canCancel && (
          <button type="button" className="small" data-testid="subagent-cancel" onClick={() => void api.call('sessions.cancel', { sessionId: child.id, clearQueue: false })}>
            Cancel
          </button>
        )}
      </div>
      {open && child && <ChildThread childId={child.id} renderEntry={renderEntry} />}
      {open && !child && <div className="muted subagent-missing">Its thread is not shown (not stored here).</div>}
    </div>
  );
}

function ChildThread({ childId, renderEntry }: { childId: string; renderEntry: (entry: ThreadEntry, childId: string, cwd: string | null, live: boolean) => ReactNode }) {
  const api = useApi();
  const controller = useController(api, childId);
  useLayoutEffect(() => controller.setActive(true), [controller]);
  const view = useSessionView(controller);
  // Not live any more (its run ended, Switchboard restarted): its thread as history stored it.
  const stored = useStoredThread(api, childId, CHILD_ENTRIES, view.ended);
  const entries = stored ?? view.thread.entries.slice(-CHILD_ENTRIES);
  const model = view.thread.configOptions.find((o) => o.category === 'model');
  const modelName = model && model.type === 'select' ? (model.options.flatMap((o) => ('options' in o ? o.options : [o])).find((o) => o.value === model.currentValue)?.name ?? model.currentValue) : null;
  return (
    <div className="subagent-thread" data-testid="subagent-thread">
      {(view.session?.agentId || modelName) && (
        <div className="muted subagent-agent">
          {modelName ? `model ${modelName}` : null}
        </div>
      )}
      {view.loading && <div className="muted">Loading…</div>}
      {entries.map((e) => {
        const cwd = view.session?.cwd ?? null;
        return <div key={e.id}>{renderEntry(e, childId, cwd, !view.ended)}</div>;
      })}
    </div>
  );
}
