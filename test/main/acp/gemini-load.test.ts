// Gemini CLI 0.61 driven for real against the fake LLM, through the app's contract. Skipped unless installed:
// `node scripts/install-test-agents.mjs gemini`.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageText } from '../../../src/shared/acp-thread';
import { readMessages } from '../../../src/main/core/store/message-log';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm/index';
import { agentLaunch, createAgentHome, requireOrSkipAgent, type AgentHome, type AgentLaunch } from '../../support/real-agents/index';
import { eventually, makeCore, promptAndWait, turnEnd, type TestCore } from './helpers';

/**
 * Issue 36: Gemini CLI 0.61 answers session/load before it replays the conversation, and its replay carries
 * more than the conversation (its `<session_context>` preamble and "[Function Response: …]" results as user
 * messages). A session reopened after a Switchboard restart, and a session of Gemini's own store imported
 * into History and continued, show and store each message once.
 */

const installed = requireOrSkipAgent('gemini');

describe.skipIf(!installed)('Gemini CLI 0.61 sessions brought back with session/load (real agent, fake LLM)', { timeout: 300_000 }, () => {
  let root: string;
  let project: string;
  let llm: FakeLlm;
  let home: AgentHome;
  let t: TestCore | null = null;
  let launch: AgentLaunch | undefined;
  const savedHome = process.env.HOME;

  beforeEach(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-gemini-load-')));
    project = join(root, 'project');
    mkdirSync(project);
    llm = await startFakeLlm();
    home = createAgentHome('gemini');
    launch = undefined;
  });
  afterEach(async () => {
    await t?.dispose();
    t = null;
    process.env.HOME = savedHome;
    await llm?.close();
    home?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  async function addGemini(core: TestCore): Promise<string> {
    // (Before HOME changes: the agent's install is found under the HOME the tests run with.)
    launch ??= agentLaunch('gemini', { llmUrl: llm.url, home: home.home });
    return (await core.call('agents.addCustom', { name: 'Gemini CLI', command: launch.command, args: launch.args, env: launch.env, cwd: project })).id;
  }

  /** Two prompts, the first running a shell command (its result comes back in the replay as a user message). */
  async function twoPrompts(core: TestCore, agentId: string): Promise<string> {
    const s = await core.call('sessions.create', { agentId, cwd: project });
    // Gemini asks before running a command: YOLO runs it.
    await core.call('sessions.setMode', { sessionId: s.id, modeId: 'yolo' });
    llm.when('pelican status', [{ kind: 'shell', command: 'echo pelican-green' }]);
    expect((await promptAndWait(core, s.id, 'check the pelican status', 120_000)).error).toBeNull();
    expect((await promptAndWait(core, s.id, 'now the heron plan', 120_000)).error).toBeNull();
    return s.id;
  }

  /**
   * Gemini names a chat file by the minute it started, and a load in that same minute starts the file again
   * (0.61 truncates the conversation it is about to load: "No previous sessions found"). The chats are made a
   * minute older, as they are when a user comes back to them.
   */
  function ageChats(): void {
    const tmp = join(home.home, '.gemini', 'tmp');
    for (const project of readdirSync(tmp)) {
      if (!existsSync(join(tmp, project, 'chats'))) continue;
      const chats = join(tmp, project, 'chats');
      for (const f of readdirSync(chats)) renameSync(join(chats, f), join(chats, f.replace(/^session-[\dT-]{16}-/, 'session-2026-01-01T00-00-')));
    }
  }

  async function shown(core: TestCore, sessionId: string): Promise<{ user: string[]; agent: string[] }> {
    const { entries } = (await core.call('sessions.state', { sessionId })).thread;
    const of = (kind: string) => entries.flatMap((e) => (e.kind === kind && 'parts' in e ? [messageText(e.parts)] : []));
    return { user: of('user_message'), agent: of('agent_message') };
  }

  /** The stored transcript's prompts (History), and what the stored updates say of Gemini's wrappers. */
  async function stored(core: TestCore, sessionId: string) {
    const { entries } = await core.call('history.entries', { sessionId, offset: 0, limit: 500 });
    const updates = readMessages(core.core.store.db, sessionId).filter((m) => m.direction === 'a2c' && m.method === 'session/update');
    return {
      prompts: entries.filter((e) => e.kind === 'prompt').length,
      wrappers: updates.filter((m) => m.body.includes('session_context') || m.body.includes('Function Response')).length,
      userChunks: updates.filter((m) => m.body.includes('"user_message_chunk"')).length,
    };
  }

  /** A third prompt: Gemini writes its replay before it reads it, so once its turn ends the replay is over. */
  async function third(core: TestCore, sessionId: string): Promise<void> {
    llm.when('ibis', [{ kind: 'text', text: 'The ibis answer.' }]);
    const { promptId } = await core.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text: 'and the ibis?' }] });
    expect((await turnEnd(core, sessionId, promptId, 120_000)).error).toBeNull();
    // Gemini had the conversation: the model was sent the earlier prompts with the new one.
    expect(JSON.stringify(llm.turnRequests().at(-1)?.body)).toContain('heron plan');
  }

  it('after a restart, Reopen (load) of a two-prompt session shows and stores each user message once', async () => {
    const dataDir = join(root, 'data');
    t = await makeCore({ dataDir });
    const sessionId = await twoPrompts(t, await addGemini(t));
    const before = await shown(t, sessionId);
    expect(before.user).toEqual(['check the pelican status', 'now the heron plan']);
    await t.dispose();
    ageChats();

    t = await makeCore({ dataDir });
    expect((await t.call('sessions.reopenPlan', { sessionId })).mode).toBe('load');
    await t.call('sessions.reopen', { sessionId });
    await third(t, sessionId);
    const after = await shown(t, sessionId);
    expect(after.user).toEqual(['check the pelican status', 'now the heron plan', 'and the ibis?']);
    expect(after.agent.slice(0, -1)).toEqual(before.agent);
    expect(after.agent.at(-1)).toBe('The ibis answer.');
    expect(await stored(t, sessionId)).toEqual({ prompts: 3, wrappers: 0, userChunks: 0 });
  });

  it('a session of Gemini’s own store, imported into History, continues with each message once', async () => {
    // Gemini ran before Switchboard knew of it (here: through another Switchboard, whose store is not used).
    const first = await makeCore({ dataDir: join(root, 'elsewhere') });
    try {
      await twoPrompts(first, await addGemini(first));
    } finally {
      await first.dispose();
    }
    ageChats();

    // History → Import looks in this user's HOME, where Gemini keeps its chats.
    process.env.HOME = home.home;
    t = await makeCore({ dataDir: join(root, 'data') });
    const agentId = await addGemini(t);
    const { sources } = await t.call('historyImport.scan', {});
    expect(sources.find((s) => s.key === 'gemini-cli')).toMatchObject({ found: true, sessions: 1 });
    await t.call('historyImport.start', { sources: ['gemini-cli'] });
    const done = await eventually(async () => {
      const { progress } = await t!.call('historyImport.status', {});
      return progress.running ? undefined : progress;
    }, 'the import to end', 60_000);
    expect(done).toMatchObject({ error: null, sessions: 1 });
    const session = (await t.call('history.list', { limit: 100, offset: 0 })).sessions.find((s) => s.importedFrom === 'gemini-cli')!;
    expect(session).toMatchObject({ agentId, cwd: project });
    expect((await t.call('sessions.reopenPlan', { sessionId: session.id })).mode).toBe('load');
    await t.call('sessions.reopen', { sessionId: session.id });
    await third(t, session.id);
    const after = await shown(t, session.id);
    expect(after.user).toEqual(['check the pelican status', 'now the heron plan', 'and the ibis?']);
    expect(after.agent.at(-1)).toBe('The ibis answer.');
    expect(new Set(after.agent).size).toBe(after.agent.length);
    expect(await stored(t, session.id)).toEqual({ prompts: 3, wrappers: 0, userChunks: 0 });
  });
});
