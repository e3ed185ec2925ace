/**
 * A real ACP agent (the scenario agent, bundled, run by the container's node) in a session whose host is a
 * container (real Podman), through AppCore: its process and terminals run inside, its file writes and its
 * shell's writes land in the mounted folder, are recorded by the per-turn checkpoints taken outside the
 * container, and a rewind puts the folder back.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerHost } from '../../../src/main/core/containers/container-host';
import { SessionContainers } from '../../../src/main/core/containers/container-lifecycle';
import { detectEngine } from '../../../src/main/core/containers/engine';
import { defaultFence } from '../../../src/main/core/containers/fence';
import { Hosts } from '../../../src/main/core/host/hosts';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { scenarioAgentPath } from '../../fixtures/scenario-agent/launch';
import { podmanEnv, podmanSkipReason, removeTestContainers, testImage } from '../../support/podman';
import { agentText, eventually, makeCore, turnEnd, type TestCore } from '../acp/helpers';

const skip = podmanSkipReason();
const PREFIX = `sba-${process.pid}-`;
const require = createRequire(import.meta.url);

describe.skipIf(skip !== null)('a real ACP agent in a container session (real Podman)', { timeout: 240_000 }, () => {
  let dir: string;
  let work: string;
  let t: TestCore;
  let sessionId: string;

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-container-agent-')));
    work = join(dir, 'project');
    const agentDir = join(dir, 'agent');
    for (const d of [work, agentDir, join(dir, 'scratch')]) mkdirSync(d);
    writeFileSync(join(work, 'notes.txt'), 'first line\n');
    // The agent and its packages in one file, in a folder of its own mounted beside the project.
    buildSync({ entryPoints: [scenarioAgentPath], bundle: true, platform: 'node', format: 'esm', outfile: join(agentDir, 'agent.mjs'), logLevel: 'warning' });
    const local = new LocalHost();
    const engine = await detectEngine(local, { env: podmanEnv() });
    const cli = { node: [process.execPath], script: require.resolve('@devcontainers/cli/devcontainer.js') };
    const containers = new SessionContainers(local, engine, cli, join(dir, 'scratch'));
    const fence = defaultFence([work, agentDir]);
    const up = await containers.up({ sessionId: `${PREFIX}agent`, fence, source: { kind: 'image', image: testImage('node') } });
    // The container is this core's only host ('local' is the id sessions name by default).
    const host = await ContainerHost.open({ inner: local, engine, containerId: up.containerId, folder: work, id: 'local' });
    t = await makeCore({ hosts: new Hosts(host), checkpoints: true });
    const agentId = (await t.call('agents.addCustom', { name: 'Scenario', command: 'node', args: [join(agentDir, 'agent.mjs')], env: {}, cwd: work })).id;
    sessionId = (await t.call('sessions.create', { agentId, cwd: work })).id;
  }, 180_000);

  afterAll(async () => {
    await t?.dispose();
    if (skip === null) removeTestContainers(PREFIX);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const prompt = async (text: string) => {
    const { promptId } = await t.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text }] });
    await turnEnd(t, sessionId, promptId, 60_000);
    return eventually(
      async () => (await t.call('checkpoints.listTurns', { sessionId })).turns.find((x) => x.promptId === promptId && x.state !== 'running' && x.state !== 'recording'),
      `the checkpoints of turn ${promptId}`,
      60_000,
    );
  };

  it('runs inside: its folder is the session folder, its terminals see the image, not this machine', async () => {
    await prompt('whereami');
    expect(JSON.parse(agentText(t.rec, sessionId)).cwd).toBe(work);
    await prompt('terminal {"command":"cat","args":["/etc/os-release"]}');
    expect(agentText(t.rec, sessionId)).toContain('Switchboard test image');
  });

  it('a tool write and a shell write inside are in the turn\'s checkpoint, taken outside; a rewind puts the folder back', async () => {
    const turn = await prompt(`write ${join(work, 'notes.txt')} changed by the agent`);
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('changed by the agent');
    expect(turn.changes?.files.map((f) => [f.path, f.status])).toEqual([['notes.txt', 'modified']]);

    const shell = await prompt('sh-write made/by-shell.txt from the shell inside');
    expect(readFileSync(join(work, 'made', 'by-shell.txt'), 'utf8')).toBe('from the shell inside');
    expect(shell.changes?.files.map((f) => [f.path, f.status])).toEqual([['made/by-shell.txt', 'added']]);

    const r = await t.call('checkpoints.rewind', { turnId: turn.id });
    expect(r.refused).toEqual([]);
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('first line\n');
    expect(existsSync(join(work, 'made', 'by-shell.txt'))).toBe(false);
  });
});
