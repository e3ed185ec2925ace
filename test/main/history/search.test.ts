import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuery, searchHistory, toFtsQuery } from '../../../src/main/core/history/search';
import { StorePacker } from '../../../src/main/core/history/store-packer';
import { Acp, createStore, turn, type TestStore } from './acp';

const DAY = 86_400_000;
const NOW = Date.UTC(2025, 5, 1);

describe('query syntax', () => {
  it('matches every word as a prefix, quoted text as an exact phrase, and never emits raw FTS syntax', () => {
    expect(toFtsQuery('auth fi')).toBe('"auth"* AND "fi"*');
    expect(toFtsQuery('  "token refresh"  handle ')).toBe('"token refresh" AND "hand"*');
    // Plain words are looked up by their longest indexed prefix (4 or 2 characters); hits are checked.
    expect(toFtsQuery('middlewares')).toBe('"midd"*');
    expect(toFtsQuery('the')).toBe('"th"*');
    expect(toFtsQuery('middlewares', true)).toBe('"middlewares"*');
    // A prefix no prefix index holds, as the terms it starts when they are known (read lazily by FTS5).
    const terms = (prefix: string): string[] | null => ({ middlewares: ['middlewares', 'middlewaresx'], tokenizer: [] })[prefix] ?? null;
    expect(toFtsQuery('middlewares refresh_tokenizer', true, terms)).toBe('("middlewares" OR "middlewaresx") AND "refresh tokenizer"');
    expect(toFtsQuery('middlewares midd', false, terms)).toBe('"midd"* AND "midd"*');
    expect(toFtsQuery('"exact phrase" unknownword', true, terms)).toBe('"exact phrase" AND "unknownword"*');
    // Identifiers keep their own prefix (few terms start with one).
    expect(toFtsQuery('refreshSessionToken ECONNRESET v8engine')).toBe('"refreshSessionToken"* AND "ECONNRESET"* AND "v8engine"*');
    expect(toFtsQuery('refresh_token')).toBe('"refresh toke"*');
    expect(toFtsQuery('a')).toBe('"a"'); // one letter: whole token only
    expect(toFtsQuery('NOT OR AND NEAR(x)')).toBe('"NOT"* AND "OR"* AND "AND"* AND "NEAR x"');
    expect(toFtsQuery('"unclosed phr')).toBe('"unclosed ph"*');
    expect(toFtsQuery('*** ^^^ ::: ()')).toBeNull();
    expect(toFtsQuery('')).toBeNull();
    // Paths become one path token (prefix).
    expect(parseQuery('src/auth/login.ts')[0]).toMatchObject({ path: 'src/auth/login.ts', prefix: true });
    expect(parseQuery('login.ts')[0]).toMatchObject({ path: 'login.ts' });
    expect(parseQuery('console.log')[0]).toMatchObject({ tokens: ['console', 'log'] });
  });
});

describe('history search', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await createStore(undefined, { now: () => NOW });
    t.addSession('old', { agentId: 'claude', cwd: '/home/u/api', createdAt: NOW - 90 * DAY });
    t.addSession('new', { agentId: 'gemini', cwd: '/home/u/web', createdAt: NOW - DAY });
    t.addSession('many', { agentId: 'claude', cwd: '/home/u/web', createdAt: NOW - 2 * DAY });
    t.addSession('gone', { agentId: 'claude', cwd: '/home/u/api', createdAt: NOW - 2 * DAY });
    const acp = new Acp();
    t.append('old', turn(acp, 'the authentication fixed itself?', 'Yes: the session token refresh was racing. See <img src=x onerror=alert(1)> in the log.'), NOW - 90 * DAY);
    t.append('new', turn(acp, 'is the authentication fixed now', 'The token refresh race is gone. Café résumé naïve.'), NOW - DAY);
    const long = `${'padding words here '.repeat(80)}the needle sentence is in the middle ${'more padding text '.repeat(80)}`;
    t.append('new', turn(acp, 'find it', long), NOW - DAY + 1000);
    for (let i = 0; i < 6; i++) t.append('many', turn(acp, `question ${i} about the websocket reconnect`, `Answer ${i}: websocket reconnect backoff.`), NOW - 2 * DAY + i * 1000);
    t.append('gone', turn(acp, 'websocket token refresh in a deleted session', 'deleted content'), NOW - 2 * DAY);
    t.history.delete(['gone']);
  });
  afterAll(() => t.close());

  const search = (query: string, extra: Record<string, unknown> = {}) => t.history.search({ query, limit: 50, perSession: 10, ...extra }).hits;

  it('finds words by prefix while the user types', () => {
    const hits = search('auth fi');
    expect(hits.map((h) => h.sessionId).sort()).toEqual(['new', 'old']);
    expect(hits.every((h) => h.kind === 'prompt')).toBe(true);
  });

  it('ranks an equally good match higher when it is more recent', () => {
    const hits = search('token refresh');
    expect(hits.map((h) => h.sessionId)).toEqual(['new', 'old']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('matches long prefixes exactly, although the index is asked for their first six characters', () => {
    expect(search('authentic').map((h) => h.sessionId).sort()).toEqual(['new', 'old']);
    expect(search('authentica')).toHaveLength(2);
    expect(search('authenticator')).toEqual([]); // "authentication" shares "authentica", but not this prefix
    expect(search('authenti')).toHaveLength(2);
    expect(search('authento')).toEqual([]); // looked up as "authen", checked for "authento"
  });

  it('folds case and diacritics', () => {
    expect(search('CAFE resume naive')).toHaveLength(1);
    const { text, highlights } = search('cafe')[0]!.snippet;
    expect(highlights.map((h) => text.slice(h.start, h.end))).toEqual(['Café']);
  });

  it('returns snippets as plain text with highlight ranges, markup left as text', () => {
    const hit = search('onerror')[0]!;
    expect(hit.snippet.text).toContain('<img src=x onerror=alert(1)>');
    expect(hit.snippet.highlights.map((h) => hit.snippet.text.slice(h.start, h.end))).toEqual(['onerror']);
  });

  it('cuts a window around the match in a long message', () => {
    const hit = search('needle')[0]!;
    expect(hit.snippet.text.startsWith('…')).toBe(true);
    expect(hit.snippet.text.endsWith('…')).toBe(true);
    expect(hit.snippet.text.length).toBeLessThan(220);
    const [h] = hit.snippet.highlights;
    expect(hit.snippet.text.slice(h!.start, h!.end)).toBe('needle');
  });

  it('filters by agent, project, date range, session and kind; never shows deleted sessions', () => {
    expect(new Set(search('websocket').map((h) => h.sessionId))).toEqual(new Set(['many']));
    expect(search('token refresh', { agentIds: ['claude'] }).map((h) => h.sessionId)).toEqual(['old']);
    expect(search('token refresh', { projects: ['/home/u/web'] }).map((h) => h.sessionId)).toEqual(['new']);
    expect(search('token refresh', { from: NOW - 30 * DAY }).map((h) => h.sessionId)).toEqual(['new']);
    expect(search('token refresh', { to: NOW - 30 * DAY }).map((h) => h.sessionId)).toEqual(['old']);
    expect(search('websocket', { sessionId: 'many', kinds: ['agent'] })).toHaveLength(6);
    expect(search('websocket', { sessionId: 'many', kinds: ['agent'] }).every((h) => h.kind === 'agent')).toBe(true);
    t.history.undoDelete(['gone']);
    expect(new Set(search('websocket').map((h) => h.sessionId))).toEqual(new Set(['many', 'gone']));
    t.history.delete(['gone']);
  });

  it('caps hits per session and in total', () => {
    expect(t.history.search({ query: 'websocket', limit: 50, perSession: 3 }).hits).toHaveLength(3);
    expect(t.history.search({ query: 'websocket', limit: 2, perSession: 10 }).hits).toHaveLength(2);
  });

  it('carries what the UI needs to open the session at the hit', () => {
    const hit = search('needle')[0]!;
    expect(hit).toMatchObject({ sessionId: 'new', kind: 'agent', session: { agentId: 'gemini', cwd: '/home/u/web', title: 'is the authentication fixed now' } });
    const page = t.history.entries({ sessionId: 'new', aroundSeq: hit.seq, limit: 2, offset: 0 });
    expect(page.entries[page.targetIndex! - page.offset]!.seq).toBe(hit.seq);
  });

  it('answers any input without an FTS syntax error', () => {
    const specials = ['"', '*', '^', ':', '(', ')', '-', '+', 'NEAR', 'AND', 'OR', 'NOT', '{', '}', '\\', "'", '/', '.', 'é', '😀', '\u0000', 'a', 'x'];
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let i = 0; i < 300; i++) {
      let q = '';
      const n = 1 + Math.floor(rand() * 8);
      for (let k = 0; k < n; k++) q += specials[Math.floor(rand() * specials.length)]! + (rand() < 0.3 ? ' ' : '');
      expect(() => t.history.search({ query: q, limit: 5, perSession: 3 }), q).not.toThrow();
    }
    expect(search('"')).toEqual([]);
  });
});

describe('filters on a larger history', () => {
  it('gives the same answers whether a filter is selective (facet tokens) or broad (checked row by row)', async () => {
    const t = await createStore();
    try {
      const acp = new Acp();
      for (let i = 0; i < 30; i++) {
        const id = `c${i}`;
        t.addSession(id, { agentId: i < 15 ? 'claude' : 'gemini', cwd: i % 2 ? '/w/big' : '/w/other' });
        t.append(id, turn(acp, `deploy the kubernetes cluster ${i}`, `Rolled out the helm chart ${i}.`));
      }
      t.addSession('rare', { agentId: 'rare-agent', cwd: '/w/tiny' });
      t.append('rare', turn(acp, 'deploy kubernetes to the edge cluster', 'Edge helm chart rolled out.'));
      const ids = (extra: Record<string, unknown>) =>
        [...new Set(t.history.search({ query: 'kubernetes', limit: 200, perSession: 5, ...extra }).hits.map((h) => h.sessionId))].sort();
      // Selective: rare agent / tiny project (one session of 31).
      expect(ids({ agentIds: ['rare-agent'] })).toEqual(['rare']);
      expect(ids({ projects: ['/w/tiny'] })).toEqual(['rare']);
      expect(ids({ agentIds: ['rare-agent'], projects: ['/w/big'] })).toEqual([]);
      // Broad: half of everything.
      expect(ids({ agentIds: ['gemini'] })).toEqual(Array.from({ length: 15 }, (_, i) => `c${i + 15}`).sort());
      expect(ids({ projects: ['/w/big'] })).toEqual(Array.from({ length: 15 }, (_, i) => `c${2 * i + 1}`).sort());
      expect(ids({ agentIds: ['claude', 'rare-agent'], projects: ['/w/tiny', '/w/other'] })).toEqual(
        ['rare', ...Array.from({ length: 8 }, (_, i) => `c${2 * i}`)].sort(),
      );
    } finally {
      t.close();
    }
  });
});

/**
 * Sixty sessions, newest last: every fifth says `match(i)`, the others look-alikes of "configuration" ("configs",
 * "confirm"). Its search finds the twelve sessions that say it, with the hits of the search as typed.
 */
function sameHitsAsTyped(t: TestStore, match: (i: number) => string): ReturnType<typeof searchHistory> {
  const acp = new Acp();
  for (let i = 0; i < 60; i++) {
    t.addSession(`s${i}`);
    t.append(`s${i}`, turn(acp, i % 5 === 0 ? match(i) : `list the configs and confirm ${i}`, 'done'), NOW - (60 - i) * 1000);
  }
  const found = searchHistory(t.db, { query: 'configuration', limit: 20, perSession: 3, now: NOW });
  const asTyped = searchHistory(t.db, { query: 'configuration', limit: 20, perSession: 3, now: NOW, exactPrefixes: true });
  expect(found.hits.map((h) => h.entryId)).toEqual(asTyped.hits.map((h) => h.entryId));
  expect(new Set(found.hits.map((h) => h.sessionId))).toEqual(new Set(Array.from({ length: 12 }, (_, k) => `s${k * 5}`)));
  return found;
}

describe('long prefixes', () => {
  it('falls back to the exact prefix when the shorter lookup only found look-alikes', async () => {
    const t = await createStore();
    try {
      const acp = new Acp();
      t.addSession('old');
      t.append('old', turn(acp, 'where is the configuration loaded', 'In the bootstrap.'), 1_000);
      t.addSession('new');
      for (let i = 0; i < 6; i++) t.append('new', turn(acp, `list the configs ${i}`, 'done'), 10_000 + i * 100);
      // Only the 3 newest matches of "config"* are ranked: all look-alikes ("configs").
      const r = searchHistory(t.db, { query: 'configuration', limit: 10, perSession: 10, candidates: 3 });
      expect(r.hits.map((h) => h.sessionId)).toEqual(['old']);
      expect(r.hits[0]!.snippet.highlights).toHaveLength(1);
    } finally {
      t.close();
    }
  });

  it('finds and highlights a word deep in a long compressed tool output, under many newer look-alikes', async () => {
    const t = await createStore(undefined, { now: () => NOW });
    try {
      const acp = new Acp();
      const filler = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i}: nothing to see here`).join('\n');
      const output = (id: string, text: string): ReturnType<typeof turn> => [
        acp.tool({ toolCallId: id, title: 'Run the checks', kind: 'execute', status: 'completed', content: [{ type: 'content', content: { type: 'text', text } }] }),
      ];
      t.addSession('deep');
      t.append('deep', [...turn(acp, 'run the checks', 'Running.'), ...output('t-deep', `${filler(700)}\nwarning: the zeppelin module is deprecated\n${filler(20)}`)], NOW - 5 * DAY);
      for (let i = 0; i < 30; i++) {
        t.addSession(`near${i}`);
        t.append(`near${i}`, [...turn(acp, `order ${i}`, 'Ordered.'), ...output(`t-${i}`, `${filler(200)}\nzeppole ${i} delivered\n`)], NOW - DAY + i);
      }
      new StorePacker(t.db, 0).step(Number.MAX_SAFE_INTEGER, 60_000, NOW + DAY);
      const stored = t.db.prepare("SELECT typeof(detail) AS type FROM history_entries WHERE kind = 'tool' AND session_id = 'deep'").get() as { type: string };
      expect(stored.type).toBe('blob');
      const r = t.history.search({ query: 'zeppelin', limit: 10, perSession: 3 });
      expect(r.hits.map((h) => h.sessionId)).toEqual(['deep']);
      const { text, highlights } = r.hits[0]!.snippet;
      expect(highlights).toHaveLength(1);
      expect(text.slice(highlights[0]!.start, highlights[0]!.end)).toBe('zeppelin');
      expect(r.hits[0]!.toolTitle).toBe('Run the checks');
    } finally {
      t.close();
    }
  });

  it('finds the same hits when most of the newest matches of the shorter lookup are look-alikes', async () => {
    const t = await createStore(undefined, { now: () => NOW });
    try {
      // The word itself in every fifth session, look-alikes ("configs", "confirm") in the others, newest last.
      const found = sameHitsAsTyped(t, (i) => `where is the configuration ${i} listed`);
      for (const h of found.hits) expect(h.snippet.text.slice(h.snippet.highlights[0]!.start, h.snippet.highlights[0]!.end)).toBe('configuration');
      // A common word beside the rare one: only the rare one is looked up as typed, and the hits are the same.
      const both = searchHistory(t.db, { query: 'list configuration', limit: 20, perSession: 3, now: NOW });
      const bothAsTyped = searchHistory(t.db, { query: 'list configuration', limit: 20, perSession: 3, now: NOW, exactPrefixes: true });
      expect(both.hits.map((h) => h.entryId)).toEqual(bothAsTyped.hits.map((h) => h.entryId));
      expect(toFtsQuery('list configuration', new Set(['configuration']))).toBe('"list"* AND "configuration"*');
    } finally {
      t.close();
    }
  });
});

describe('texts of entries ranked before', () => {
  it('are made again when the entry changed since: the snippet shows its new text', async () => {
    const t = await createStore(undefined, { now: () => NOW });
    try {
      const acp = new Acp();
      t.addSession('s');
      t.append('s', [...turn(acp, 'run the build', 'Running.'), acp.tool({ toolCallId: 'b1', title: 'Build', kind: 'execute', status: 'in_progress' })], NOW - 1000);
      const tool = (text: string) => acp.toolUpdate({ toolCallId: 'b1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text } }] });
      t.append('s', [tool('compiled the kestrel module')], NOW - 900);
      const first = t.history.search({ query: 'kestrel', limit: 10, perSession: 3 }).hits;
      expect(first.map((h) => h.snippet.text)).toEqual(['Build compiled the kestrel module']);
      expect(first[0]!.toolTitle).toBe('Build');
      t.append('s', [acp.toolUpdate({ toolCallId: 'b1', title: 'Build again', content: [{ type: 'content', content: { type: 'text', text: 'relinked the kestrel module' } }] })], NOW - 800);
      const again = t.history.search({ query: 'kestrel', limit: 10, perSession: 3 }).hits;
      expect(again.map((h) => [h.entryId, h.snippet.text, h.toolTitle])).toEqual([[first[0]!.entryId, 'Build again relinked the kestrel module', 'Build again']]);
    } finally {
      t.close();
    }
  });
});

describe('long prefixes starting many terms', () => {
  it('are looked up by their first four characters, the look-alikes skipped, with the same hits as typed', async () => {
    const t = await createStore(undefined, { now: () => NOW });
    try {
      // "configuration" starts a dozen terms (more than are looked up one by one); look-alikes in most sessions.
      sameHitsAsTyped(t, (i) => `where is configuration${i % 12}x listed`);
    } finally {
      t.close();
    }
  });
});

describe('ranking', () => {
  it('ranks by relevance among recent matches: a short text about the words above a long one that mentions them once', async () => {
    const t = await createStore(undefined, { now: () => NOW });
    try {
      const acp = new Acp();
      t.addSession('passing');
      t.addSession('focused');
      const padding = 'unrelated words about the release notes and the changelog '.repeat(60);
      t.append('passing', turn(acp, 'summarize the week', `${padding} also the ledger export ${padding}`, 500), NOW - 1000);
      t.append('focused', turn(acp, 'what about the ledger', 'The ledger export rounds cents; the ledger totals now match.', 500), NOW - 2000);
      const hits = t.history.search({ query: 'ledger export', limit: 10, perSession: 5 }).hits.filter((h) => h.kind === 'agent');
      expect(hits.map((h) => h.sessionId)).toEqual(['focused', 'passing']);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    } finally {
      t.close();
    }
  });

  it('counts a word in a file the entry names more than the same word in its text', async () => {
    const t = await createStore(undefined, { now: () => NOW });
    try {
      const acp = new Acp();
      t.addSession('said');
      t.addSession('edited');
      t.append('said', [acp.agent('The ledger code is fine as it is.')], NOW - 1000);
      t.append('edited', [acp.tool({ toolCallId: 't1', title: 'Edit code', kind: 'edit', status: 'completed', content: [{ type: 'diff', path: '/p/src/ledger.ts', oldText: 'a', newText: 'export const ledger = 1;' }] })], NOW - 2000);
      const hits = t.history.search({ query: 'ledger', limit: 10, perSession: 5 }).hits;
      expect(hits.map((h) => [h.sessionId, h.kind])).toEqual([
        ['edited', 'tool'],
        ['said', 'agent'],
      ]);
    } finally {
      t.close();
    }
  });

  it('reads past the newest matches of a busy session to fill the page, and says when matches were left unranked', async () => {
    const t = await createStore(undefined, { now: () => NOW });
    try {
      const acp = new Acp();
      for (let i = 0; i < 5; i++) {
        t.addSession(`older${i}`);
        t.append(`older${i}`, turn(acp, `kafka consumer lag ${i}`, 'Raised the partitions.', 50), NOW - 10 * DAY + i);
      }
      // 200 newer matching entries in one session: more than a page of candidates, all but 3 capped.
      t.addSession('busy');
      for (let i = 0; i < 100; i++) t.append('busy', turn(acp, `kafka retry ${i}`, `kafka offset ${i} committed`, 50), NOW - DAY + i * 10);
      const r = t.history.search({ query: 'kafka', limit: 10, perSession: 3 });
      expect(r.hits.filter((h) => h.sessionId === 'busy')).toHaveLength(3);
      expect(new Set(r.hits.map((h) => h.sessionId))).toEqual(new Set(['busy', 'older0', 'older1', 'older2', 'older3', 'older4']));
      expect(r.truncated).toBe(false); // every match was looked at
      expect(t.history.search({ query: 'kafka', limit: 2, perSession: 3 }).truncated).toBe(true);
      expect(t.history.search({ query: 'partitions', limit: 10, perSession: 3 })).toMatchObject({ truncated: false });
      // At most `candidates` matches are read (those of a session past its perSession are not read at all).
      const capped = searchHistory(t.db, { query: 'kafka', limit: 10, perSession: 3, candidates: 5 });
      expect(capped.hits).toHaveLength(5);
      expect(capped.hits.filter((h) => h.sessionId === 'busy')).toHaveLength(3);
      expect(capped.truncated).toBe(true);
    } finally {
      t.close();
    }
  });

  it('skips the dense matches of full sessions, interleaved or not, and still applies every filter to the rest', async () => {
    const t = await createStore(undefined, { now: () => NOW });
    try {
      const acp = new Acp();
      for (let i = 0; i < 4; i++) {
        t.addSession(`older${i}`, { agentId: i % 2 ? 'gemini' : 'claude' });
        t.append(`older${i}`, turn(acp, `kafka consumer lag ${i}`, 'Raised the partitions.', 50), NOW - 10 * DAY + i);
      }
      // Two busy sessions written turn by turn in turns (their entries interleave), then one that is deleted,
      // then one whose turns are all newer: hundreds of matches above the older sessions' few.
      t.addSession('left', { agentId: 'claude' });
      t.addSession('right', { agentId: 'gemini' });
      for (let i = 0; i < 60; i++) {
        t.append('left', turn(acp, `kafka retry ${i}`, `kafka offset ${i} committed`, 50), NOW - 5 * DAY + i * 10);
        t.append('right', turn(acp, `kafka rebalance ${i}`, `kafka group ${i} joined`, 50), NOW - 5 * DAY + i * 10 + 5);
      }
      t.addSession('gone', { agentId: 'claude' });
      for (let i = 0; i < 60; i++) t.append('gone', turn(acp, `kafka lost ${i}`, `kafka gone ${i}`, 50), NOW - 3 * DAY + i);
      t.db.prepare('UPDATE sessions SET deleted_at = ? WHERE id = ?').run(NOW, 'gone');
      t.addSession('newest', { agentId: 'claude' });
      for (let i = 0; i < 60; i++) t.append('newest', turn(acp, `kafka lag ${i}`, `kafka lag ${i} gone down`, 50), NOW - DAY + i);

      const all = searchHistory(t.db, { query: 'kafka', limit: 20, perSession: 2, now: NOW });
      const bySession = (hits: typeof all.hits): Record<string, number> => hits.reduce<Record<string, number>>((m, h) => ({ ...m, [h.sessionId]: (m[h.sessionId] ?? 0) + 1 }), {});
      expect(bySession(all.hits)).toEqual({ newest: 2, left: 2, right: 2, older0: 1, older1: 1, older2: 1, older3: 1 });
      expect(all.truncated).toBe(false);
      // A kind filter: the answers alone (the prompts of the busy sessions are skipped among the rest).
      const answers = searchHistory(t.db, { query: 'kafka', limit: 20, perSession: 2, now: NOW, kinds: ['agent'] });
      expect(bySession(answers.hits)).toEqual({ newest: 2, left: 2, right: 2 });
      expect(answers.hits.every((h) => h.kind === 'agent')).toBe(true);
      // A time filter and a broad agent filter (checked row by row).
      const early = searchHistory(t.db, { query: 'kafka', limit: 20, perSession: 2, now: NOW, to: NOW - 4 * DAY, agentIds: ['gemini'] });
      expect(bySession(early.hits)).toEqual({ right: 2, older1: 1, older3: 1 });
    } finally {
      t.close();
    }
  });
});

describe('history search: hits per session', () => {
  // A session that mentions a file hundreds of times (more than the candidates a search ranks) after an
  // older one that mentions it once: with a few hits per session, as the search overlay asks, both are found.
  let t: TestStore;
  beforeAll(async () => {
    t = await createStore(undefined, { now: () => NOW });
    t.addSession('quiet', { createdAt: NOW - 10 * DAY });
    t.addSession('busy', { createdAt: NOW - DAY });
    const acp = new Acp();
    t.append('quiet', turn(acp, 'write the rollout plan', 'I wrote docs/rollout-plan.md with the migration steps.'), NOW - 10 * DAY);
    const busy: ReturnType<typeof turn> = [];
    for (let i = 0; i < 400; i++) busy.push(...turn(acp, `step ${i}: update rollout-plan.md`, `Updated rollout-plan.md for the migration (${i}).`, 1000));
    t.append('busy', busy, NOW - DAY);
    // Two sessions that ran side by side: their entries interleave.
    t.addSession('left', { createdAt: NOW - 3 * DAY });
    t.addSession('right', { createdAt: NOW - 3 * DAY });
    t.addSession('early', { createdAt: NOW - 20 * DAY });
    t.append('early', turn(acp, 'where is kestrel.md', 'kestrel.md is in docs.'), NOW - 20 * DAY);
    for (let i = 0; i < 300; i++) {
      t.append('left', turn(acp, `left ${i}: kestrel.md`, `kestrel.md left ${i}`, 1000), NOW - 3 * DAY + i * 10);
      t.append('right', turn(acp, `right ${i}: kestrel.md`, `kestrel.md right ${i}`, 1000), NOW - 3 * DAY + i * 10 + 5);
    }
  });
  afterAll(() => t.close());

  it('finds the older session past two busy sessions whose matches interleave', () => {
    for (const perSession of [3, 1]) {
      const r = t.history.search({ query: 'kestrel.md', limit: 50, perSession });
      expect(new Set(r.hits.map((h) => h.sessionId)), `perSession ${perSession}`).toEqual(new Set(['left', 'right', 'early']));
    }
  });

  for (const query of ['rollout-plan.md', 'migration', 'rollout-plan.md migration']) {
    it(`finds every session that matches "${query}" with perSession 3 (or 1, or 10)`, () => {
      for (const perSession of [3, 1, 10]) {
        const r = t.history.search({ query, limit: 50, perSession });
        const bySession = new Map<string, number>();
        for (const h of r.hits) bySession.set(h.sessionId, (bySession.get(h.sessionId) ?? 0) + 1);
        expect([...bySession.keys()].sort(), `perSession ${perSession}`).toEqual(['busy', 'quiet']);
        expect(Math.max(...bySession.values())).toBeLessThanOrEqual(perSession);
        expect(bySession.get('busy')).toBe(perSession);
      }
    });
  }
});

describe('history search: a word in every entry', () => {
  // Thirty sessions, one after another, every entry of each mentioning "deploy": the page holds the newest
  // sessions, each with its perSession hits (each session's matches are asked for alone once they are dense).
  let t: TestStore;
  beforeAll(async () => {
    t = await createStore(undefined, { now: () => NOW });
    const acp = new Acp();
    for (let s = 0; s < 30; s++) {
      t.addSession(`s${s}`, { createdAt: NOW - (30 - s) * DAY });
      const turns: ReturnType<typeof turn> = [];
      for (let i = 0; i < 40; i++) turns.push(...turn(acp, `deploy step ${i} of ${s}`, `deploy done ${i}`, 1000));
      t.append(`s${s}`, turns, NOW - (30 - s) * DAY);
    }
  });
  afterAll(() => t.close());

  it('fills the page with the newest sessions, perSession hits each, and says matches were left unranked', () => {
    for (const perSession of [2, 3]) {
      const r = t.history.search({ query: 'deploy', limit: 10 * perSession, perSession });
      const bySession = new Map<string, number>();
      for (const h of r.hits) bySession.set(h.sessionId, (bySession.get(h.sessionId) ?? 0) + 1);
      expect([...bySession.values()].every((n) => n === perSession), `perSession ${perSession}`).toBe(true);
      // The ten newest sessions, and no older one, were ranked (RANKED_PER_HIT candidates per hit asked for).
      const ranked = [...bySession.keys()].map((id) => Number(id.slice(1)));
      expect(Math.min(...ranked), `perSession ${perSession}`).toBeGreaterThanOrEqual(10);
      expect(bySession.size).toBe(10);
      expect(r.truncated).toBe(true);
    }
  });

  it('finds the one session that also mentions a rarer word, past the others', () => {
    const acp = new Acp();
    t.append('s3', turn(acp, 'deploy the kestrelwing build', 'deploy ok'), NOW - 27 * DAY + 5000);
    const r = t.history.search({ query: 'deploy kestrelwing', limit: 10, perSession: 3 });
    expect(r.hits.map((h) => h.sessionId)).toEqual(['s3']);
  });
});
