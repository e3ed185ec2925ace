/**
 * A task whose runs go in a container, on a real Podman through AppCore: the queued run's session is made in a
 * container of its own (the scenario agent, bundled, runs inside), its shell write lands in the task's folder
 * through the bind mount, and the run ends in the Inbox like any other.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioAgentPath } from '../../fixtures/scenario-agent/launch';
import { podmanEnv, podmanRun, podmanSkipReason, removeTestContainers, testImage } from '../../support/podman';
import { agentText, eventually, makeCore, type TestCore } from '../acp/helpers';

const skip = podmanSkipReason();

describe.skipIf(skip !== null)('a task run in a container (real Podman)', { timeout: 300_000 }, () => {
  let root: string;
  let bundle: string;
  let image: string;
  let t: TestCore | null = null;
  const sessions: string[] = [];

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-ctask-')));
    bundle = join(root, 'agent-bundle', 'scenario-agent.mjs');
    await build({ entryPoints: [scenarioAgentPath], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent', banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" } });
    image = testImage('node');
  }, 180_000);

  afterAll(async () => {
    await t?.dispose().catch(() => {});
    if (skip === null) for (const id of sessions) removeTestContainers(id);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the run’s session is made in a container from the task’s image; what it writes lands in the folder; it ends done in the Inbox', async () => {
    const folder = join(root, 'project');
    mkdirSync(folder);
    t = await makeCore({ containers: { engineEnv: podmanEnv() }, timeZone: 'UTC' });
    const agent = await t.call('agents.addCustom', { name: 'Scenario', command: 'node', args: [bundle], env: { PATH: '/usr/local/bin:/usr/bin:/bin' }, cwd: folder });
    const task = await t.call('tasks.save', {
      task: { name: 'inside', prompts: ['sh-write inside.txt written in the container'], agentId: agent.id, folder, container: { source: { kind: 'image', image }, fence: { network: 'none', memoryMiB: 512, cpus: 1 } } },
    });
    expect(task.container?.source).toEqual({ kind: 'image', image });
    const queued = await t.call('tasks.enqueue', { taskId: task.id });
    const run = await eventually(
      async () => {
        const r = (await t!.call('tasks.runs', { inbox: false })).runs.find((x) => x.id === queued.id)!;
        if (r.sessionId && !sessions.includes(r.sessionId)) sessions.push(r.sessionId);
        return r.state === 'running' || r.state === 'queued' ? null : r;
      },
      'the run to end',
      240_000,
    );
    expect(run.error).toBeNull();
    expect(run).toMatchObject({ state: 'done', inbox: 'open' });
    const session = (await t.call('sessions.state', { sessionId: run.sessionId! })).session;
    expect(session.hostId).toBe(`container:${run.sessionId}@local`);
    // It ran inside: the container of the run's session is there, and the agent's process was in it.
    const listed = JSON.parse(podmanRun(['ps', '--filter', `label=switchboard.session=${run.sessionId}`, '--format', 'json'])) as Array<{ Id: string }>;
    expect(listed).toHaveLength(1);
    expect(agentText(t.rec, run.sessionId!)).toContain('wrote inside.txt');
    expect(readFileSync(join(folder, 'inside.txt'), 'utf8')).toBe('written in the container');

    // "Run this again" of the run's session: a task that runs in a new container like it, on this machine.
    const again = await t.call('tasks.fromSession', { sessionId: run.sessionId! });
    expect(again).toMatchObject({ place: 'folder', folder, container: { source: { kind: 'image', image }, fence: { network: 'none', memoryMiB: 512, cpus: 1 } } });
    expect(again.hostId).toBeUndefined();
  });
});
