import { afterEach, describe, expect, it } from 'vitest';
import { applyEvents, createThread, UPDATE_KINDS, WireReplayer, type ThreadEntry, type ThreadState } from '../../../src/shared/acp-thread';
import type { Draft } from '../../../src/shared/acp-thread/draft';
import { Acp, createStore, type TestStore } from './acp';

/**
 * A new entry kind, added the way a real one is (README "What adding one of each touches"):
 * its row in the update table and its fold (updates.ts, or a module beside it), its type (types.ts), its
 * view (entries.tsx). Nothing in history, the fold's copy-on-write or the views' size estimate names it.
 */
interface BookmarkEntry {
  kind: 'bookmark';
  id: string;
  bookmarkId: string;
  label: string;
  tags: string[];
}

type Row = { entry: string | null; apply: ((d: Draft, u: Record<string, unknown>) => void) | null };
const table = UPDATE_KINDS as unknown as Record<string, Row>;

function applyBookmark(d: Draft, u: Record<string, unknown>): void {
  if (typeof u.bookmarkId !== 'string') return;
  for (let i = d.length - 1; i >= d.first; i--) {
    const e = d.at(i) as unknown as BookmarkEntry | undefined;
    if (e?.kind !== 'bookmark' || e.bookmarkId !== u.bookmarkId) continue;
    // Changed in place: the fold's generic copy-on-write must have copied the array.
    const own = d.mutable(i) as unknown as BookmarkEntry;
    if (typeof u.tag === 'string') own.tags.push(u.tag);
    return;
  }
  d.push({ kind: 'bookmark', id: d.nextEntryId(), bookmarkId: u.bookmarkId, label: String(u.label ?? ''), tags: [] } as unknown as ThreadEntry);
}

const stores: TestStore[] = [];
afterEach(() => {
  delete table.bookmark_update;
  for (const s of stores.splice(0)) s.close();
});

const update = (acp: Acp, u: Record<string, unknown>) => ({
  direction: 'a2c' as const,
  method: 'session/update',
  body: JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: acp.acpSessionId, update: u } }),
});

describe('a new entry kind', () => {
  it('is folded, stored, searched, exported and returned by history.entries without history naming it', async () => {
    table.bookmark_update = { entry: 'bookmark', apply: applyBookmark };
    const t = await createStore();
    stores.push(t);
    t.addSession('s1');
    const acp = new Acp();
    const p = acp.prompt('Mark the spot');
    const wire = [
      p,
      update(acp, { sessionUpdate: 'bookmark_update', bookmarkId: 'bm-7f3a', label: 'Quokka waypoint' }),
      acp.agent('Marked.'),
      update(acp, { sessionUpdate: 'bookmark_update', bookmarkId: 'bm-7f3a', tag: 'marsupial' }),
      acp.stop(p.id),
    ];

    // The live thread, one message at a time: each state keeps its own entries (the fold copied the tags).
    const replayer = new WireReplayer();
    const states: ThreadState[] = [];
    for (const m of wire) states.push(applyEvents(states.at(-1) ?? createThread(), replayer.push({ direction: m.direction, body: m.body })));
    const bookmark = (s: ThreadState) => s.entries.find((e) => e.kind === ('bookmark' as string)) as unknown as BookmarkEntry;
    const before = bookmark(states[1]!);
    const live = bookmark(states.at(-1)!);
    expect(before.tags).toEqual([]);
    expect(live).toMatchObject({ label: 'Quokka waypoint', tags: ['marsupial'] });

    t.append('s1', wire);
    const { entries } = t.history.entries({ sessionId: 's1', offset: 0, limit: 100 });
    const stored = entries.filter((e) => e.entry?.kind === ('bookmark' as string));
    expect(stored).toHaveLength(1);
    const { id: _id, ...rest } = live;
    expect(stored[0]!.entry).toMatchObject(rest);
    // In the transcript's order: the prompt, the bookmark, the answer.
    expect(entries.map((e) => e.kind)).toEqual(['prompt', stored[0]!.kind, 'agent']);

    // Searchable by its words (its tags too, added by a later update), not by its id.
    const hits = (query: string) => t.history.search({ query, limit: 10, perSession: 10 }).hits;
    expect(hits('quokka').map((h) => h.entryId)).toEqual([stored[0]!.id]);
    expect(hits('marsupial').map((h) => h.entryId)).toEqual([stored[0]!.id]);
    expect(hits('7f3a')).toEqual([]);
    expect(t.history.export('s1', 'markdown').text).toContain('Quokka waypoint');
  });
});
