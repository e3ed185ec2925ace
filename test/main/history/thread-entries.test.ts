import { afterEach, describe, expect, it } from 'vitest';
import { threadFromWire } from '../../../src/shared/acp-thread';
import { Acp, createStore, type TestStore } from './acp';

const stores: TestStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const notice = (acp: Acp, title: string, description?: string) => ({
  direction: 'a2c' as const,
  method: 'session/update',
  body: JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: acp.acpSessionId, update: { sessionUpdate: 'notice', severity: 'warning', title, ...(description ? { description } : {}) } },
  }),
});

describe('history keeps entry kinds it has no columns for as the thread model folds them', () => {
  it('a notice shows in the stored transcript as the live thread shows it, is searchable and exported', async () => {
    const t = await createStore();
    stores.push(t);
    t.addSession('s1');
    const acp = new Acp();
    const p = acp.prompt('Deploy it');
    const wire = [p, notice(acp, 'Rate limited', 'Retrying in 30 seconds'), acp.agent('Deployed.'), acp.stop(p.id)];
    t.append('s1', wire);

    const live = threadFromWire(wire);
    const stored = t.history.entries({ sessionId: 's1', offset: 0, limit: 100 }).entries;
    expect(stored.map((e) => e.kind)).toEqual(['prompt', 'entry', 'agent']);
    const { id: _liveId, ...liveNotice } = live.entries.find((e) => e.kind === 'notice')!;
    expect(stored[1]!.entry).toMatchObject(liveNotice);

    const hits = t.history.search({ query: 'retrying seconds', limit: 10, perSession: 10 }).hits;
    expect(hits.map((h) => h.kind)).toEqual(['entry']);

    const md = t.history.export('s1', 'markdown').text;
    expect(md).toContain('> Rate limited\n> Retrying in 30 seconds');
    expect(t.history.transcript('s1').entries.map((e) => e.kind)).toEqual(['prompt', 'entry', 'agent']);
  });
});
