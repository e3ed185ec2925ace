import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageText, type CompactionEntry, type ThreadEntry } from '../../../src/shared/acp-thread';
import { eventually, makeCore, promptAndWait, type TestCore } from './helpers';

/** Context compaction (issue 14): advertised in initialize, shown as a marker with its summary, kept in history. */

let t: TestCore;
beforeEach(async () => {
  t = await makeCore();
});
afterEach(async () => {
  await t.dispose();
});

const isCompaction = (e: ThreadEntry | null | undefined): e is CompactionEntry => e?.kind === 'compaction';

describe('context compaction', () => {
  it('advertises the capability, folds the agent’s compaction into one entry with its summary, and keeps it in history', async () => {
    const agentId = await t.addAgent();
    const { id: sessionId } = await t.call('sessions.create', { agentId, cwd: t.work, additionalDirectories: [] });
    expect((await promptAndWait(t, sessionId, 'compact')).stopReason).toBe('end_turn');
    const { thread } = await t.call('sessions.state', { sessionId });
    // The agent only compacts this way because the client advertised session.compaction.
    expect(thread.entries.map((e) => e.kind)).toEqual(['user_message', 'compaction', 'agent_message']);
    const live = thread.entries.find(isCompaction)!;
    expect(live.status).toBe('completed');
    expect(messageText(live.summary)).toBe('The user asked for a summary of earlier work.');

    // History replays the stored log through the same thread model.
    const stored = await eventually(async () => {
      const { entries } = await t.call('history.entries', { sessionId });
      return entries.map((e) => e.entry).find(isCompaction);
    }, 'the compaction in the history transcript');
    expect(stored.status).toBe('completed');
    expect(messageText(stored.summary)).toBe('The user asked for a summary of earlier work.');
    // Searchable and exported by its summary (not by its id).
    const { hits } = await t.call('history.search', { query: 'summary earlier' });
    expect(hits.map((h) => [h.sessionId, h.kind])).toEqual([[sessionId, 'entry']]);
    const { text } = await t.call('history.export', { sessionId, format: 'markdown' });
    expect(text).toContain('> The user asked for a summary of earlier work.');
    expect(text).not.toContain(live.compactionId);
  });
});
