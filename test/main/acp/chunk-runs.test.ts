import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { joinChunkRuns } from '../../../src/main/core/acp/connection/chunk-runs';
import { applyEvents, createThread, type ThreadEvent } from '../../../src/shared/acp-thread';

const chunk = (text: string, messageId?: string, kind: 'agent_message_chunk' | 'agent_thought_chunk' = 'agent_message_chunk'): SessionUpdate =>
  ({ sessionUpdate: kind, content: { type: 'text', text }, ...(messageId ? { messageId } : {}) }) as SessionUpdate;

describe('joinChunkRuns', () => {
  it('joins consecutive plain text chunks of one message and keeps everything else apart, in order', () => {
    const updates: SessionUpdate[] = [
      chunk('Hel', 'm1'),
      chunk('lo ', 'm1'),
      chunk('world', 'm1'),
      chunk('thinking', 'm1', 'agent_thought_chunk'),
      chunk('again', 'm1'),
      chunk('other', 'm2'),
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'annotated', annotations: { priority: 1 } } } as SessionUpdate,
      { sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: 'AA==', mimeType: 'image/png' } } as SessionUpdate,
      chunk('a'),
      chunk('b'),
      { sessionUpdate: 'plan', entries: [] } as SessionUpdate,
      chunk('c'),
    ];
    const out = joinChunkRuns(updates.map((update, i) => ({ update, extra: i })));
    expect(out.map((o) => [o.count, o.extra])).toEqual([[3, 2], [1, 3], [1, 4], [1, 5], [1, 6], [1, 7], [2, 9], [1, 10], [1, 11]]);
    expect(out[0]!.update).toEqual(chunk('Hello world', 'm1'));
    expect(out[6]!.update).toEqual(chunk('ab'));
    // Joined or not, the thread is the same.
    const fold = (us: SessionUpdate[]) => applyEvents(createThread(), us.map((update): ThreadEvent => ({ type: 'update', update }))).entries;
    expect(fold(out.map((o) => o.update))).toEqual(fold(updates));
    // The input objects are not modified.
    expect(updates[0]).toEqual(chunk('Hel', 'm1'));
  });
});
