import { appendFileSync, cpSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImportSourceId } from '../../../src/shared/contract/history-import';
import { HistoryImportService, type HistoryImportDeps } from '../../../src/main/core/history-import/import-service';
import { StorePacker } from '../../../src/main/core/history/store-packer';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { decodeBlock, MESSAGE_COLUMNS, type MessageRow, type PersistedMessage } from '../../../src/main/core/store/message-log';
import { tempDir } from '../../support/app-server';
import { createStore, type TestStore } from '../history/acp';

// Issue 36: the store the real Claude Agent 0.101 (Claude Code 2.1.318) writes, imported (the fixture's README says
// how it was made). Its bookkeeping records (the system prompt sent, tool lists, costs…) have no time of their own.
const FIXTURE = join(__dirname, '../../fixtures/agent-histories/claude-agent-0.101.0');
/** A file time with a fraction of a ms, as file systems give them (seconds). */
const FILE_TIME = 1_764_400_000.1234567;

function sessionFile(home: string): string {
  const dir = join(home, '.claude/projects');
  return (readdirSync(dir, { recursive: true }) as string[]).map((f) => join(dir, f)).find((f) => statSync(f).isFile() && f.endsWith('.jsonl'))!;
}

describe('History → Import of a Claude Agent 0.101 store', () => {
  let t: TestStore;
  let home: string;
  let importer: HistoryImportService;
  const make = (more: Partial<HistoryImportDeps> = {}) =>
    new HistoryImportService({
      ...more,
      watch: (root, onEvent) => new LocalHost().watch(root, onEvent),
      db: () => t.db,
      log: () => t.log,
      home,
      env: {},
      keep: () => [],
      agentFor: () => null,
      deleteSessions: (ids) => t.history.delete(ids),
    });
  const run = async (sources: ImportSourceId[]) => {
    importer.start(sources);
    await importer.settled();
    return importer.status();
  };
  const search = (query: string) => t.history.search({ query, limit: 50, perSession: 10 }).hits;
  const listed = () => t.history.list({ limit: 100, offset: 0 }).sessions;
  /** What the app does once the sessions are quiet (without the 30 s wait). */
  const pack = () => {
    const packer = new StorePacker(t.db, 0);
    while (packer.step(Number.MAX_SAFE_INTEGER, 60_000, Date.now() + 1).sessions > 0);
  };
  const blocks = () => t.db.prepare(`SELECT ${MESSAGE_COLUMNS} FROM acp_messages WHERE typeof(body) = 'blob'`).all() as MessageRow[];

  beforeEach(async () => {
    t = await createStore();
    home = tempDir('sb-import-home-');
    cpSync(FIXTURE, home, { recursive: true });
    utimesSync(sessionFile(home), FILE_TIME, FILE_TIME);
  });
  afterEach(() => {
    importer?.dispose();
    t.close();
    rmSync(home, { recursive: true, force: true });
  });

  it.each([
    ['one file at a time', {}],
    ['as a large import (written as blocks)', { bulk: () => t.history.bulkWrite(), bulkMinBytes: 4096 }],
  ] as Array<[string, Partial<HistoryImportDeps>]>)(
    'imported %s and packed once quiet, the session exports and reopens, and shows only its conversation',
    async (_how, more) => {
      importer = make(more);
      expect(await run(['claude-code'])).toMatchObject({ sessions: 1, keptAsText: 0, error: null });
      await t.history.whenIndexed();
      const [session] = listed();
      // Two prompts, the write and the shell command: the bookkeeping records are neither entries nor tool calls.
      expect(session).toMatchObject({ importedFrom: 'claude-code', turnCount: 2, toolCallCount: 2 });
      const entries = () => t.history.entries({ sessionId: session!.id, limit: 500, offset: 0 }).entries;
      expect(JSON.stringify(entries())).not.toContain('newer format');
      expect(JSON.stringify(entries())).toContain('The quarterly zephyr report');
      expect(search('marmalade').length).toBeGreaterThan(0);
      // The system prompt Claude Code recorded it sent (api-request-blob, api-request-shape) is not searchable.
      expect(search('Attribution')).toEqual([]);
      expect(search('invoked')).toEqual([]);

      // Every entry keeps the time of the record it comes from.
      const records = readFileSync(sessionFile(home), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; timestamp?: string; message?: { content: unknown } });
      const expected = records.flatMap((r) => {
        const blocks = Array.isArray(r.message?.content) ? (r.message.content as Array<{ type: string }>) : [];
        if (r.type === 'user') return blocks.some((b) => b.type === 'text') ? [['prompt', Date.parse(r.timestamp!)]] : [];
        if (r.type !== 'assistant') return [];
        return blocks.flatMap((b) => (b.type === 'text' ? [['agent', Date.parse(r.timestamp!)]] : b.type === 'tool_use' ? [['tool', Date.parse(r.timestamp!)]] : []));
      });
      expect(expected).toHaveLength(8);
      expect(entries().map((e) => [e.kind, e.ts])).toEqual(expected);

      const markdown = t.history.export(session!.id, 'markdown').text;
      const json = t.history.export(session!.id, 'json').text;
      pack();
      expect(blocks().length).toBeGreaterThan(0);
      // Each block's times are whole ms, in its row and its headers.
      for (const b of blocks()) expect(Number.isInteger(b.ts) && decodeBlock(b, [] as PersistedMessage[])).toBe(true);
      expect(t.db.prepare("SELECT count(*) AS n FROM acp_messages WHERE typeof(ts) <> 'integer'").get()).toEqual({ n: 0 });
      // Export and Reopen read the packed session as before.
      expect(t.history.export(session!.id, 'markdown').text).toBe(markdown);
      expect(JSON.parse(t.history.export(session!.id, 'json').text).entries).toEqual(JSON.parse(json).entries);
      expect(t.history.transcript(session!.id).entries.length).toBeGreaterThan(0);
      expect(search('marmalade').length).toBeGreaterThan(0);
    },
  );

  it('a record of a kind it does not know is kept as text, at the time of the record before it (not the file’s)', async () => {
    const file = sessionFile(home);
    const sessionId = (JSON.parse(readFileSync(file, 'utf8').split('\n')[2]!) as { sessionId: string }).sessionId;
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const lastTime = Date.parse([...lines].reverse().map((l) => (JSON.parse(l) as { timestamp?: string }).timestamp).find(Boolean)!);
    appendFileSync(file, `${JSON.stringify({ type: 'holographic-summary', sessionId, note: 'the lighthouse keeper' })}\n`);
    utimesSync(file, FILE_TIME, FILE_TIME);
    importer = make();
    expect(await run(['claude-code'])).toMatchObject({ sessions: 1, keptAsText: 1 });
    await t.history.whenIndexed();
    const [hit] = search('lighthouse');
    expect(hit).toBeDefined();
    const [session] = listed();
    const kept = t.history.entries({ sessionId: session!.id, limit: 500, offset: 0 }).entries.filter((e) => JSON.stringify(e).includes('lighthouse'));
    expect(kept.map((e) => e.ts)).toEqual([lastTime]);
    pack();
    expect(t.history.export(session!.id, 'markdown').text).toContain('lighthouse');
  });
});
