import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { messageText, threadEntries, threadLength, type ThreadEntry } from '@shared/acp-thread';
import type { PermissionRequestInfo } from '@shared/contract/sessions';
import { acquireController, HIDDEN_MAX_PENDING, peekController, releaseController, SessionController } from '../../../src/renderer/src/features/session/controller';
import { FakeApi, settle } from '../support/fake-api';
import { ask, endTurn, FakeSession, say, toolCall, toolDone, turn } from '../support/fake-session';

/** The browser's animation frames and idle callbacks, run when the test says (node has neither). */
class Frames {
  private nextId = 1;
  private readonly frames = new Map<number, (time: number) => void>();
  private readonly idles = new Map<number, () => void>();
  private time = 0;

  install(): void {
    vi.stubGlobal('requestAnimationFrame', (cb: (time: number) => void) => this.add(this.frames, cb));
    vi.stubGlobal('cancelAnimationFrame', (id: number) => this.frames.delete(id));
    vi.stubGlobal('requestIdleCallback', (cb: () => void) => this.add(this.idles, cb));
    vi.stubGlobal('cancelIdleCallback', (id: number) => this.idles.delete(id));
  }

  private add<T>(queue: Map<number, T>, cb: T): number {
    const id = this.nextId++;
    queue.set(id, cb);
    return id;
  }

  get pending(): number {
    return this.frames.size;
  }

  /** One display frame (60 Hz): the callbacks queued before it. */
  frame(): void {
    this.time += 1000 / 60;
    const due = [...this.frames.values()];
    this.frames.clear();
    for (const cb of due) cb(this.time);
  }

  idle(): void {
    const due = [...this.idles.values()];
    this.idles.clear();
    for (const cb of due) cb();
  }
}

const kinds = (entries: readonly ThreadEntry[]) => entries.map((e) => e.kind);
const lastText = (c: SessionController): string => {
  const last = c.getView().thread.entries.at(-1);
  return last && last.kind === 'agent_message' ? messageText(last.parts) : '';
};

function permission(requestId: string): PermissionRequestInfo {
  return {
    sessionId: 's1',
    agentId: 'agent-a',
    requestId,
    toolCall: { toolCallId: `tool-${requestId}`, title: 'Edit main.ts' },
    options: [
      { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ],
    createdAt: 1,
  };
}

describe('SessionController (a live session in the renderer)', () => {
  let api: FakeApi;
  let session: FakeSession;
  let frames: Frames;
  const made: SessionController[] = [];
  const open = (sessionId = 's1'): SessionController => {
    const c = new SessionController(api, sessionId);
    made.push(c);
    return c;
  };

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    frames = new Frames();
    frames.install();
    api = new FakeApi();
    session = new FakeSession(api);
  });

  afterEach(() => {
    for (const c of made.splice(0)) c.dispose();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('attaches with a snapshot: the session, its thread, queue and permissions', async () => {
    session.record(...turn(1), ...turn(2));
    const c = open();
    expect(c.getView().loading).toBe(true);
    await settle();
    const v = c.getView();
    expect(v.loading).toBe(false);
    expect(v.ended).toBe(false);
    expect(v.session?.cwd).toBe('/work/project');
    expect(kinds(v.thread.entries)).toEqual(kinds(session.thread.entries));
    expect(kinds(v.thread.entries)).toEqual(['user_message', 'tool_call', 'agent_message', 'user_message', 'tool_call', 'agent_message']);
    expect(api.callsOf('sessions.state')).toEqual([{ sessionId: 's1', tail: 100 }]);
  });

  it('folds a streamed reply once per animation frame: one render for all of the frame’s updates', async () => {
    const c = open();
    await settle();
    c.setActive(true);
    const renders = vi.fn();
    c.subscribe(renders);

    session.send(ask('p1', 'hello'));
    session.send(say('Hel'));
    session.send(say('lo'));
    expect(c.getView().thread.entries).toHaveLength(0);
    expect(renders).not.toHaveBeenCalled();

    frames.frame();
    expect(renders).toHaveBeenCalledTimes(1);
    expect(kinds(c.getView().thread.entries)).toEqual(['user_message', 'agent_message']);
    expect(lastText(c)).toBe('Hello');
    // The fallback timer (for a hidden page, where frames stop) was cancelled by the fold.
    vi.advanceTimersByTime(1000);
    expect(renders).toHaveBeenCalledTimes(1);
  });

  it('folds updates on a timer when frames stop (the page is hidden)', async () => {
    const c = open();
    await settle();
    c.setActive(true);
    session.send(say('still here'));
    vi.advanceTimersByTime(250);
    expect(lastText(c)).toBe('still here');
  });

  it('folds an update delivered twice once', async () => {
    const c = open();
    await settle();
    c.setActive(true);
    const items = session.send(say('once'));
    frames.frame();
    api.emit('session.update', { sessionId: 's1', events: items });
    frames.frame();
    vi.advanceTimersByTime(1000);
    await settle();
    expect(lastText(c)).toBe('once');
    // Dropped as already folded, not taken for a gap (which would attach again).
    expect(api.callsOf('sessions.state')).toHaveLength(1);
  });

  it('folds the updates that arrive before its snapshot on top of it', async () => {
    session.record(...turn(1));
    const c = open();
    // The snapshot was taken when the controller asked; these come after it, before it arrives.
    session.send(ask('p2', 'again'), say('second answer'));
    await settle();
    expect(kinds(c.getView().thread.entries)).toEqual(['user_message', 'tool_call', 'agent_message', 'user_message', 'agent_message']);
    expect(lastText(c)).toBe('second answer');
  });

  it('re-attaches from a fresh snapshot when events were missed (a gap in n)', async () => {
    const c = open();
    await settle();
    c.setActive(true);
    session.send(ask('p1', 'hi'));
    frames.frame();
    session.record(say('lost '));
    session.send(say('and found'));
    frames.frame();
    await settle();
    expect(api.callsOf('sessions.state')).toHaveLength(2);
    expect(lastText(c)).toBe('lost and found');
    expect(kinds(c.getView().thread.entries)).toEqual(kinds(session.thread.entries));
  });

  it('a tab out of view keeps its updates and folds them when shown: all of them, in order, and no render, fold or timer meanwhile', async () => {
    session.record(...turn(1));
    const c = open();
    await settle();
    const renders = vi.fn();
    c.subscribe(renders);
    const before = c.getView().thread;
    // Turns with tool calls and streamed answers, some delivered twice and some in batches out of order.
    for (let i = 2; i <= 40; i++) {
      const items = session.send(ask(`p${i}`, `question ${i}`), toolCall(`t${i}`, `edit ${i}`));
      if (i % 7 === 0) api.emit('session.update', { sessionId: 's1', events: items });
      const more = session.record(say(`answer ${i} `), say(`part two`), toolDone(`t${i}`, `edited ${i}`), endTurn(`p${i}`));
      api.emit('session.update', { sessionId: 's1', events: i % 5 === 0 ? [...more].reverse() : more });
    }
    vi.advanceTimersByTime(60_000);
    frames.idle();
    frames.frame();
    expect(frames.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(renders).not.toHaveBeenCalled();
    expect(c.getView().thread).toBe(before);
    // A request for the user is applied at once all the same (it counts in "needs you"); the thread still waits.
    api.emit('session.permission', permission('r9'));
    expect(c.getView().permissions.map((p) => p.requestId)).toEqual(['r9']);
    expect(c.getView().thread).toBe(before);
    renders.mockClear();

    c.setActive(true);
    expect(renders).toHaveBeenCalledTimes(1);
    const shown = c.getView().thread;
    expect(shown.entries).toEqual(session.thread.entries);
    expect(shown.entries.filter((e) => e.kind === 'user_message')).toHaveLength(40);
    expect(lastText(c)).toBe('answer 40 part two');
    expect(api.callsOf('sessions.state')).toHaveLength(1);
  });

  it('a hidden tab given more updates than it keeps raw folds them in idle time, still without rendering', async () => {
    const c = open();
    await settle();
    const renders = vi.fn();
    c.subscribe(renders);
    session.send(ask('p1', 'go'));
    for (let i = 0; i < HIDDEN_MAX_PENDING; i++) session.send(say(`${i % 10}`));
    expect(c.getView().thread.entries).toHaveLength(0);
    frames.idle();
    expect(kinds(c.getView().thread.entries)).toEqual(['user_message', 'agent_message']);
    expect(lastText(c)).toHaveLength(HIDDEN_MAX_PENDING);
    expect(renders).not.toHaveBeenCalled();
    session.send(say('!'));
    c.setActive(true);
    expect(renders).toHaveBeenCalledTimes(1);
    expect(lastText(c).endsWith('789!')).toBe(true);
  });

  it('a turn that ends in a hidden tab marks it done (and says so) until the tab is shown', async () => {
    const c = open();
    const attention = vi.fn();
    c.onAttention = attention;
    await settle();
    session.setState({ status: 'working' });
    expect(c.getView().unseenDone).toBe(false);
    session.setState({ status: 'idle' });
    expect(c.getView().unseenDone).toBe(true);
    expect(attention).toHaveBeenCalledWith({ kind: 'done', session: expect.objectContaining({ id: 's1', status: 'idle' }) });
    c.setActive(true);
    expect(c.getView().unseenDone).toBe(false);

    session.setState({ status: 'failed', error: 'the agent exited' });
    expect(attention).toHaveBeenLastCalledWith({ kind: 'failed', session: expect.objectContaining({ status: 'failed' }) });
    session.setState({ status: 'closed' });
    expect(c.getView().ended).toBe(true);
  });

  it('lists each permission request once, announces it, and removes it when it is answered', async () => {
    const c = open();
    const attention = vi.fn();
    c.onAttention = attention;
    await settle();
    api.emit('session.permission', permission('r1'));
    api.emit('session.permission', permission('r1'));
    api.emit('session.permission', permission('r2'));
    api.emit('session.permission', { ...permission('r3'), sessionId: 'other' });
    expect(c.getView().permissions.map((p) => p.requestId)).toEqual(['r1', 'r2']);
    expect(attention).toHaveBeenCalledTimes(2);
    api.emit('session.permissionResolved', { sessionId: 's1', requestId: 'r1', outcome: 'selected', optionId: 'allow', byRule: false });
    expect(c.getView().permissions.map((p) => p.requestId)).toEqual(['r2']);
  });

  it('announces an elicitation as it streams in', async () => {
    const c = open();
    const attention = vi.fn();
    c.onAttention = attention;
    await settle();
    session.send({ type: 'elicitation', requestId: 'e1', request: { mode: 'form', message: 'Which branch?', requestedSchema: { type: 'object', properties: {} } } as never });
    expect(attention).toHaveBeenCalledWith({ kind: 'elicitation', requestId: 'e1', mode: 'form', message: 'Which branch?' });
  });

  it('keeps the queue as the core sends it', async () => {
    const c = open();
    await settle();
    const items = [{ id: 'q1', prompt: [{ type: 'text' as const, text: 'next' }], createdAt: 2 }];
    api.emit('session.queue', { sessionId: 's1', items });
    api.emit('session.queue', { sessionId: 'other', items: [] });
    expect(c.getView().queue).toEqual(items);
  });

  it('shows its own warnings and its agent’s agent-wide ones, the latest 50', async () => {
    const c = open();
    await settle();
    const warn = (sessionId: string | null, agentId: string, message: string) =>
      api.emit('session.warning', { sessionId, agentId, kind: 'malformed_line', message, ts: 1 });
    warn('s1', 'agent-a', 'mine');
    warn(null, 'agent-a', 'my agent');
    warn(null, 'agent-b', 'another agent');
    warn('s2', 'agent-a', 'another session');
    expect(c.getView().warnings.map((w) => w.message)).toEqual(['mine', 'my agent']);
    for (let i = 0; i < 60; i++) warn('s1', 'agent-a', `w${i}`);
    expect(c.getView().warnings).toHaveLength(50);
    expect(c.getView().warnings.at(-1)?.message).toBe('w59');
    c.dismissWarnings();
    expect(c.getView().warnings).toEqual([]);
  });

  it('says the session ended when the core no longer has it', async () => {
    const c = open('gone');
    await settle();
    expect(c.getView()).toMatchObject({ loading: false, ended: true, loadError: 'no live session gone' });
  });

  it('a long thread: holds its tail, fetches earlier entries in pages as they come into view, and fetches a page again when an update changed it', async () => {
    for (let i = 0; i < 100; i++) session.record(...turn(i));
    expect(threadLength(session.thread)).toBe(300);
    const c = open();
    await settle();
    c.setActive(true);
    const v = c.getView();
    expect(v.thread.firstIndex).toBe(200);
    expect(v.thread.entries).toHaveLength(100);
    // The whole tool index arrived after the tail (an update may be for an earlier tool call).
    expect(v.thread.toolIndex.t0).toBe(1);
    expect(c.entryAt(250)).toEqual(threadEntries(session.thread, 250, 1)[0]);
    expect(c.entryAt(10)).toBeUndefined();

    c.ensure(5, 30);
    c.ensure(5, 30);
    expect(api.callsOf('sessions.entries')).toEqual([{ sessionId: 's1', from: 0, count: 200 }]);
    await settle();
    expect(c.entryAt(10)).toEqual(threadEntries(session.thread, 10, 1)[0]);
    const pages = c.getView().pages;
    c.ensure(5, 30);
    expect(api.callsOf('sessions.entries')).toHaveLength(1);

    // The agent finishes the first turn's tool call, long scrolled away: its page is dropped, then read again.
    session.send(toolDone('t0', 'edited 0'));
    frames.frame();
    expect(c.getView().pages).toBe(pages + 1);
    expect(c.entryAt(1)).toBeUndefined();
    c.ensure(0, 10);
    await settle();
    expect(api.callsOf('sessions.entries')).toHaveLength(2);
    expect(c.entryAt(1)).toMatchObject({ kind: 'tool_call', status: 'completed', title: 'edited 0' });
  });

  it('is shared by every view of a session and let go with the last one', async () => {
    const a = acquireController(api, 's1');
    const b = acquireController(api, 's1');
    expect(b).toBe(a);
    expect(peekController('s1')).toBe(a);
    expect(api.listening('session.update')).toBe(1);
    releaseController(a);
    expect(peekController('s1')).toBe(a);
    releaseController(b);
    expect(peekController('s1')).toBeUndefined();
    expect(api.listening('session.update')).toBe(0);
    await settle();
  });
});
