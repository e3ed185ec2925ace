/**
 * A session imported from an SSH host's Claude Code store, through the app's contract against a real OpenSSH
 * server: History lists it on its host, in the host's folder, and "Continue" reopens it through ACP
 * (session/resume with the agent's own session id) with the agent started on that host, in that folder.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lchownSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioAgentCommand } from '../../fixtures/scenario-agent/launch';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';
import { agentText, eventually, makeCore, turnEnd, type TestCore } from '../acp/helpers';

const skip = sshdSkipReason();
if (skip) console.warn(`skipping the remote import continue test: ${skip}`);

const HOST = 'ssh:sbtest';
const KEY = `claude-code@${HOST}`;
const FIXTURE = join(__dirname, '../../fixtures/agent-histories/claude-code-0.16.0/.claude/projects');
const FIXTURE_CWD = '/tmp/sb-fixture-claude-code-I5Zjap';

describe.skipIf(skip !== null)('continuing a session imported from an SSH host', () => {
  let sshd: Sshd;
  let t: TestCore;
  let folder: string;
  let project: string;

  beforeAll(async () => {
    sshd = await startSshd();
    await sshd.setKnownHosts('right');
    t = await makeCore({ sshConfigFile: sshd.configFile });
    const uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
    const owned = (path: string): void => lchownSync(path, uid, uid);
    const tag = randomBytes(4).toString('hex');
    // The session's folder on the host, and the store that says the session ran there.
    folder = join(sshd.home, `cont-${tag}`);
    mkdirSync(folder);
    owned(folder);
    for (const dir of [join(sshd.home, '.claude'), join(sshd.home, '.claude', 'projects')]) {
      if (!existsSync(dir)) mkdirSync(dir, { mode: 0o755 });
      owned(dir);
    }
    project = join(sshd.home, '.claude', 'projects', `-sbimport-cont-${tag}`);
    mkdirSync(project);
    owned(project);
    const source = join(FIXTURE, readdirSync(FIXTURE)[0]!);
    const name = readdirSync(source).find((f) => f.endsWith('.jsonl'))!;
    writeFileSync(join(project, name), readFileSync(join(source, name), 'utf8').replaceAll(FIXTURE_CWD, folder));
    owned(join(project, name));
    expect(await t.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
  }, 90_000);

  afterAll(async () => {
    await t?.dispose();
    await sshd?.stop();
    for (const dir of [folder, project]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists it on its host and in the host’s folder, and reopens it there through session/resume', async () => {
    // The user's Claude Code agent (the scenario agent, its command naming claude-code-acp so that it is the one
    // to continue Claude Code's sessions), able to resume.
    const { command, args } = scenarioAgentCommand();
    const agentId = (await t.call('agents.addCustom', { name: 'Claude Code', command, args: [...args, '--as-claude-code-acp'], env: { SCENARIO_CAPS: 'resume' }, cwd: t.work })).id;

    const { sources } = await t.call('historyImport.scan', {});
    expect(sources.find((s) => s.key === KEY)).toMatchObject({ hostId: HOST, hostLabel: 'sbtest', found: true });
    await t.call('historyImport.start', { sources: [KEY] });
    const done = await eventually(async () => {
      const { progress } = await t.call('historyImport.status', {});
      return progress.running ? undefined : progress;
    }, 'the import to end', 60_000);
    expect(done).toMatchObject({ error: null, cancelled: false });

    const session = (await t.call('history.list', { limit: 100, offset: 0 })).sessions.find((s) => s.importedFrom === 'claude-code' && s.cwd === folder)!;
    expect(session).toMatchObject({ hostId: HOST, agentId });

    const plan = await t.call('sessions.reopenPlan', { sessionId: session.id });
    expect(plan.mode).toBe('resume');
    const reopened = await t.call('sessions.reopen', { sessionId: session.id });
    expect(reopened).toMatchObject({ id: session.id, hostId: HOST, cwd: folder });
    const q = await t.call('sessions.prompt', { sessionId: session.id, prompt: [{ type: 'text', text: 'whereami' }] });
    await turnEnd(t, session.id, q.promptId, 60_000);
    // The agent runs on the host, in the host's folder.
    expect(JSON.parse(agentText(t.rec, session.id).match(/\{"cwd".*?\}/)![0]) as { cwd: string }).toMatchObject({ cwd: folder });
  }, 180_000);
});
