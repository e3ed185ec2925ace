import { afterEach, describe, expect, it } from 'vitest';
import { threadFromWire, type ElicitationEntry } from '../../../src/shared/acp-thread';
import { Acp, createStore, type TestStore } from './acp';

const stores: TestStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const line = (o: unknown): string => JSON.stringify(o);

describe('history keeps elicitations', () => {
  it('an elicitation answered after many other entries (the fold compacts meanwhile) is stored with its answer, as the live thread folds it', async () => {
    const t = await createStore();
    stores.push(t);
    t.addSession('s1');
    const acp = new Acp();
    const p = acp.prompt('Set it up');
    const ask = {
      direction: 'a2c' as const,
      method: 'elicitation/create',
      body: line({
        jsonrpc: '2.0',
        id: 0,
        method: 'elicitation/create',
        params: { sessionId: acp.acpSessionId, mode: 'form', message: 'Which port?', requestedSchema: { type: 'object', properties: { port: { type: 'integer' } }, required: ['port'] } },
      }),
    };
    // The agent goes on working while the user has not answered yet.
    const busy = Array.from({ length: 40 }, (_, i) => acp.tool({ toolCallId: `t${i}`, title: `step ${i}`, kind: 'read', status: 'completed' }));
    const answer = { direction: 'c2a' as const, method: null, body: line({ jsonrpc: '2.0', id: 0, result: { action: 'accept', content: { port: 8080 } } }) };
    const wire = [p, ask, ...busy, answer, acp.agent('Using 8080.'), acp.stop(p.id)];
    t.append('s1', wire);

    const live = threadFromWire(wire).entries.find((e): e is ElicitationEntry => e.kind === 'elicitation')!;
    expect([live.state, live.content]).toEqual(['accept', { port: 8080 }]);
    const stored = t.history.entries({ sessionId: 's1', offset: 0, limit: 100 }).entries.filter((e) => e.kind === 'entry');
    expect(stored).toHaveLength(1);
    const { id: _id, ...rest } = live;
    expect(stored[0]!.entry).toMatchObject(rest);
    // Exported (and searched) in words: the question, then the answer.
    expect(t.history.export('s1', 'markdown').text).toContain('> Which port?\n> port: 8080\n');
    expect(t.history.search({ query: 'which port', limit: 10, perSession: 10 }).hits.map((h) => h.kind)).toEqual(['entry']);
  });

  it('a refused request (the client answered with an error) leaves nothing in the transcript', async () => {
    const t = await createStore();
    stores.push(t);
    t.addSession('s1');
    const acp = new Acp();
    const p = acp.prompt('Go');
    const wire = [
      p,
      {
        direction: 'a2c' as const,
        method: 'elicitation/create',
        body: line({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: { sessionId: acp.acpSessionId, mode: 'form', message: 'Q', requestedSchema: { type: 'object', properties: { x: { type: 'object' } } } } }),
      },
      { direction: 'c2a' as const, method: null, body: line({ jsonrpc: '2.0', id: 0, error: { code: -32602, message: 'Invalid params' } }) },
      acp.stop(p.id),
    ];
    t.append('s1', wire);
    expect(t.history.entries({ sessionId: 's1', offset: 0, limit: 100 }).entries.filter((e) => e.kind === 'entry')).toEqual([]);
  });
});
