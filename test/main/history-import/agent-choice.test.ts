import { appendFileSync, chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';
import { eventually, makeCore, promptAndWait, type TestCore } from '../acp/helpers';

/**
 * Issue 36: an agent the user added under a name of their own, its command a wrapper script, is not known to
 * be the one for a tool's imported sessions. The user chooses it (Continue with…): the session is bound to it
 * and comes back live through it, and the choice holds for the tool's other sessions.
 */

const FIXTURE = join(__dirname, '../../fixtures/agent-histories/gemini-0.61.0');
const FIXTURE_CWD = '/tmp/sb-fixture-gemini-YfH6uP';

describe('the agent that continues an imported session', () => {
  let root: string;
  let project: string;
  let home: string;
  let t: TestCore;
  const savedHome = process.env.HOME;

  beforeEach(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-choice-')));
    project = join(root, 'project');
    home = join(root, 'home');
    mkdirSync(project);
    // Gemini CLI's store as the fixture has it, its sessions run in `project`.
    cpSync(FIXTURE, home, { recursive: true });
    for (const f of readdirSync(home, { recursive: true }) as string[]) {
      const path = join(home, f);
      if (f.endsWith('.json') || f.endsWith('.jsonl')) writeFileSync(path, readFileSync(path, 'utf8').replaceAll(FIXTURE_CWD, project));
    }
    process.env.HOME = home;
    t = await makeCore();
  });
  afterEach(async () => {
    await t?.dispose();
    process.env.HOME = savedHome;
    rmSync(root, { recursive: true, force: true });
  });

  /** The user's own wrapper around their agent (the scenario agent, able to load sessions). */
  async function addWrapper(): Promise<string> {
    const { command, args } = scenarioAgentCommand();
    const script = join(root, 'bin', 'my-assistant');
    mkdirSync(join(root, 'bin'));
    writeFileSync(script, `#!/bin/sh\nexec ${[command, ...args].map((a) => `'${a}'`).join(' ')} "$@"\n`);
    chmodSync(script, 0o755);
    return (await t.call('agents.addCustom', { name: 'My assistant', command: script, args: [], env: { SCENARIO_CAPS: 'loadSession' }, cwd: project })).id;
  }

  async function importGemini() {
    await t.call('historyImport.start', { sources: ['gemini-cli'] });
    await eventually(async () => !(await t.call('historyImport.status', {})).progress.running, 'the import to end', 30_000);
    return (await t.call('history.list', { limit: 100, offset: 0 })).sessions.filter((s) => s.importedFrom === 'gemini-cli');
  }

  it('is chosen by the user among the set-up agents, continues the session, and is remembered for the tool', async () => {
    const mine = await addWrapper();
    const [session] = await importGemini();
    // Nothing names Gemini: the session waits for an agent.
    expect(session).toMatchObject({ agentId: 'cli:gemini-cli', cwd: project });
    expect(await t.call('sessions.reopenPlan', { sessionId: session!.id })).toMatchObject({ mode: null, reason: expect.stringContaining('choose the one that continues this session') });

    expect(await t.call('historyImport.chooseAgent', { sessionId: session!.id, agentId: mine })).toEqual({ agentId: mine });
    expect((await t.call('history.list', { limit: 100, offset: 0 })).sessions.find((s) => s.id === session!.id)?.agentId).toBe(mine);
    expect(await t.call('sessions.reopenPlan', { sessionId: session!.id })).toMatchObject({ mode: 'load', agentName: 'My assistant' });
    await t.call('sessions.reopen', { sessionId: session!.id });
    expect((await promptAndWait(t, session!.id, 'say continued through my wrapper')).error).toBeNull();

    // The tool's next session goes to the same agent.
    const later = join(home, '.gemini/tmp/sb-fixture-gemini-yfh6up/chats/session-2026-11-26T08-32-73fa2bfa.jsonl');
    appendFileSync(later, `${JSON.stringify({ id: 'u1', timestamp: '2026-11-26T08:40:00.000Z', type: 'user', content: [{ text: 'plan the walrus migration' }] })}\n`);
    // (The continued session is Switchboard's own now: no longer listed as imported.)
    const [next] = await importGemini();
    expect(next).toMatchObject({ agentId: mine, title: 'plan the walrus migration' });
    expect(next!.id).not.toBe(session!.id);
  });

  it('refuses a session that was not imported, and an agent that is not set up', async () => {
    const mine = await addWrapper();
    const [session] = await importGemini();
    const own = await t.call('sessions.create', { agentId: mine, cwd: project });
    expect(await t.callError('historyImport.chooseAgent', { sessionId: own.id, agentId: mine })).toMatchObject({ code: 'invalid_params' });
    expect(await t.callError('historyImport.chooseAgent', { sessionId: session!.id, agentId: 'custom-nobody' })).toMatchObject({ code: 'not_found' });
    expect((await t.call('history.list', { limit: 100, offset: 0 })).sessions.find((s) => s.id === session!.id)?.agentId).toBe('cli:gemini-cli');
  });
});
