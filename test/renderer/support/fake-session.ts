import { applyEvents, createThread, threadEntries, threadLength, threadTail, type ThreadEvent, type ThreadState } from '@shared/acp-thread';
import { err, ok } from '@shared/contract';
import type { SessionInfo, SessionUpdateItem } from '@shared/contract/sessions';
import type { FakeApi } from './fake-api';

export function sessionInfo(patch: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id: 's1',
    agentId: 'agent-a',
    acpSessionId: 'acp-1',
    hostId: 'local',
    cwd: '/work/project',
    additionalDirectories: [],
    title: null,
    status: 'idle',
    error: null,
    prompt: { image: false, audio: false, embeddedContext: false },
    canFork: false,
    forkedFrom: null,
    createdAt: 1,
    updatedAt: 1,
    ...patch,
  };
}

export const say = (text: string): ThreadEvent => ({ type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
export const ask = (promptId: string, text: string): ThreadEvent => ({ type: 'prompt', promptId, content: [{ type: 'text', text }] });
export const endTurn = (promptId: string): ThreadEvent => ({ type: 'turn_end', promptId, stopReason: 'end_turn', error: null });
export const toolCall = (toolCallId: string, title: string): ThreadEvent => ({ type: 'update', update: { sessionUpdate: 'tool_call', toolCallId, title, kind: 'edit', status: 'in_progress' } });
export const toolDone = (toolCallId: string, title: string): ThreadEvent => ({
  type: 'update',
  update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', title },
});

/** A turn: the prompt, a tool call, the answer, its end (three entries). */
export const turn = (i: number): ThreadEvent[] => [ask(`p${i}`, `question ${i}`), toolCall(`t${i}`, `edit ${i}`), say(`answer ${i}`), endTurn(`p${i}`)];

/**
 * The main process's side of one live session, in memory: its thread folded from the events it recorded, the
 * snapshot (sessions.state, the thread's tail), pages of earlier entries (sessions.entries) and the tool
 * index, with `n` counting the events as the core does. `send` records events and pushes them as one
 * session.update.
 */
export class FakeSession {
  thread: ThreadState = createThread();
  n = 0;
  info: SessionInfo;

  constructor(
    private readonly api: FakeApi,
    patch: Partial<SessionInfo> = {},
  ) {
    this.info = sessionInfo(patch);
    api.handle('sessions.state', ({ sessionId, tail }) =>
      sessionId !== this.info.id
        ? err('not_found', `no live session ${sessionId}`)
        : ok({ session: this.info, thread: tail === undefined ? this.thread : threadTail(this.thread, tail), n: this.n, queue: [], permissions: [] }),
    );
    api.handle('sessions.entries', ({ from, count }) => ok({ from, entries: threadEntries(this.thread, from, count), total: threadLength(this.thread), n: this.n }));
    api.handle('sessions.toolIndex', () => ok({ toolIndex: { ...this.thread.toolIndex }, n: this.n }));
  }

  /** Folds events into the session's thread; the update items they make, not sent. */
  record(...events: ThreadEvent[]): SessionUpdateItem[] {
    const items = events.map((event) => ({ n: ++this.n, seq: null, event }));
    this.thread = applyEvents(this.thread, events);
    return items;
  }

  send(...events: ThreadEvent[]): SessionUpdateItem[] {
    const items = this.record(...events);
    this.api.emit('session.update', { sessionId: this.info.id, events: items });
    return items;
  }

  setState(patch: Partial<SessionInfo>): void {
    this.info = { ...this.info, ...patch };
    this.api.emit('session.state', this.info);
  }
}
