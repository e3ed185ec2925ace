/**
 * An OpenCode session read at every step of its writing (opencode-messages.ts): whatever the moment each read
 * falls on, what the reads add up to is what one read of the finished session gives, each item once.
 */
import { describe, expect, it } from 'vitest';
import { readSession, type OpencodeCursor } from '../../../src/main/core/history-import/parsers/opencode-messages';
import type { TranscriptItem } from '../../../src/main/core/history-import/parsers/types';

interface Msg {
  id: string;
  time_created: number;
  info: Record<string, unknown>;
  parts: Map<string, Record<string, unknown>>;
}

/** A session as OpenCode's tables hold it, written one row at a time; `snapshots` keeps its state after each write. */
class Session {
  readonly messages = new Map<string, Msg>();
  readonly snapshots: Array<Map<string, Msg>> = [];
  private clock = Date.now();
  now(): number {
    return (this.clock += 10);
  }
  message(id: string, info: Record<string, unknown>): void {
    const m = this.messages.get(id);
    if (m) m.info = info;
    else this.messages.set(id, { id, time_created: (info.time as { created: number }).created, info, parts: new Map() });
    this.snap();
  }
  part(messageId: string, id: string, data: Record<string, unknown>): void {
    this.messages.get(messageId)!.parts.set(id, data);
    this.snap();
  }
  private snap(): void {
    this.snapshots.push(new Map([...this.messages].map(([k, m]) => [k, { ...m, parts: new Map(m.parts) }])));
  }
}

function read(state: Map<string, Msg>, cursor: OpencodeCursor | null, now: number) {
  const sorted = [...state.values()].sort((a, b) => a.time_created - b.time_created || (a.id < b.id ? -1 : 1));
  return readSession(
    cursor,
    now,
    (t, id) => sorted.filter((m) => m.time_created > t || (m.time_created === t && m.id > id)).map((m) => ({ id: m.id, time_created: m.time_created, data: JSON.stringify(m.info) })),
    (messageId) => [...state.get(messageId)!.parts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, data]) => ({ id, data: JSON.stringify(data) })),
  );
}

/** A turn as OpenCode writes it: a prompt, a text, two tools run side by side (the second ends first), a closing text. */
function turn(s: Session, opts: { abort?: boolean } = {}): void {
  const asked = s.now();
  s.message('msg_1', { role: 'user', time: { created: asked } });
  s.part('msg_1', 'prt_1a', { type: 'text', text: 'Survey the dunlin roosts' });
  const replied = s.now();
  const reply = { role: 'assistant', time: { created: replied }, parentID: 'msg_1' };
  s.message('msg_2', reply);
  s.part('msg_2', 'prt_2a', { type: 'step-start' });
  s.part('msg_2', 'prt_2b', { type: 'reasoning', text: 'Two', time: { start: s.now() } });
  s.part('msg_2', 'prt_2b', { type: 'reasoning', text: 'Two lists to read', time: { start: replied, end: s.now() } });
  s.part('msg_2', 'prt_2c', { type: 'text', text: 'Reading', time: { start: s.now() } });
  s.part('msg_2', 'prt_2c', { type: 'text', text: 'Reading both roost lists.', time: { start: replied, end: s.now() } });
  s.part('msg_2', 'prt_2d', { type: 'tool', callID: 'call_d', tool: 'read', state: { status: 'pending', input: {}, raw: '{"filePa' } });
  s.part('msg_2', 'prt_2e', { type: 'tool', callID: 'call_e', tool: 'read', state: { status: 'pending', input: {}, raw: '' } });
  s.part('msg_2', 'prt_2d', { type: 'tool', callID: 'call_d', tool: 'read', state: { status: 'running', input: { filePath: 'north.txt' }, time: { start: s.now() } } });
  s.part('msg_2', 'prt_2e', { type: 'tool', callID: 'call_e', tool: 'read', state: { status: 'running', input: { filePath: 'south.txt' }, time: { start: s.now() } } });
  s.part('msg_2', 'prt_2e', { type: 'tool', callID: 'call_e', tool: 'read', state: { status: 'completed', input: { filePath: 'south.txt' }, output: 'south: 40', title: '', metadata: {}, time: { start: replied, end: s.now() } } });
  if (opts.abort) {
    s.part('msg_2', 'prt_2d', { type: 'tool', callID: 'call_d', tool: 'read', state: { status: 'error', input: { filePath: 'north.txt' }, error: 'Tool execution aborted', time: { start: replied, end: s.now() } } });
    s.message('msg_2', { ...reply, error: { name: 'MessageAbortedError', data: { message: 'Aborted' } }, time: { created: replied, completed: s.now() } });
    return;
  }
  s.part('msg_2', 'prt_2d', { type: 'tool', callID: 'call_d', tool: 'read', state: { status: 'completed', input: { filePath: 'north.txt' }, output: 'north: 12', title: '', metadata: {}, time: { start: replied, end: s.now() } } });
  s.part('msg_2', 'prt_2f', { type: 'text', text: '52 dunlins', time: { start: s.now() } });
  s.part('msg_2', 'prt_2f', { type: 'text', text: '52 dunlins in all.', time: { start: replied, end: s.now() } });
  s.part('msg_2', 'prt_2g', { type: 'step-finish', reason: 'stop' });
  s.message('msg_2', { ...reply, time: { created: replied, completed: s.now() } });
}

const key = (i: TranscriptItem): string => JSON.stringify({ ...i, ts: 0 });

describe('an OpenCode session read while it is written', () => {
  for (const abort of [false, true]) {
    it(`read after every write, it adds up to one read of the ${abort ? 'aborted' : 'finished'} turn: each item once, in OpenCode's order`, () => {
      const s = new Session();
      turn(s, { abort });
      const once = read(s.messages, null, Date.now()).items;
      expect(once.length).toBeGreaterThan(5);
      let cursor: OpencodeCursor | null = null;
      const items: TranscriptItem[] = [];
      for (const snapshot of s.snapshots) {
        const r = read(snapshot, cursor, Date.now());
        items.push(...r.items);
        cursor = r.cursor;
      }
      expect(items.map(key).sort()).toEqual(once.map(key).sort());
      // The same order, but that a tool's result may come after what follows its call (as a live agent sends it).
      const calls = (list: TranscriptItem[]) => list.filter((i) => i.type !== 'tool_result').map(key);
      expect(calls(items)).toEqual(calls(once));
      // Nothing left open: a later read adds nothing and the cursor is past every message.
      const again = read(s.messages, cursor, Date.now());
      expect(again).toMatchObject({ items: [], pending: false, cursor: { doneId: 'msg_2', open: {} } });
    });
  }

  it('reads falling on every other write, or on only a few, add up the same', () => {
    const s = new Session();
    turn(s);
    const once = read(s.messages, null, Date.now()).items.map(key).sort();
    for (const every of [2, 3, 5, 7]) {
      let cursor: OpencodeCursor | null = null;
      const items: TranscriptItem[] = [];
      s.snapshots.forEach((snapshot, k) => {
        if (k % every !== 0 && k !== s.snapshots.length - 1) return;
        const r = read(snapshot, cursor, Date.now());
        items.push(...r.items);
        cursor = r.cursor;
      });
      expect(items.map(key).sort(), `every ${every}`).toEqual(once);
    }
  });

  it('a reply OpenCode never completed (it stopped part way) is taken as final after a day, and the cursor moves on', () => {
    const s = new Session();
    const created = Date.now() - 2 * 24 * 60 * 60 * 1000;
    s.message('msg_1', { role: 'user', time: { created } });
    s.part('msg_1', 'prt_1a', { type: 'text', text: 'Count the knots' });
    s.message('msg_2', { role: 'assistant', time: { created: created + 1 } });
    s.part('msg_2', 'prt_2a', { type: 'text', text: 'Counting the kn', time: { start: created + 2 } });
    const r = read(s.messages, null, Date.now());
    expect(r.items.map((i) => i.type)).toEqual(['prompt', 'agent']);
    expect(r).toMatchObject({ pending: false, cursor: { doneId: 'msg_2', open: {} } });
  });
});
