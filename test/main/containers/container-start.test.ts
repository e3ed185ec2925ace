/**
 * What a new container session's start costs in engine calls (real Podman, behind a shim on the engine's PATH
 * that notes each call): the dev container CLI's `up` (the agent's program mounted read-only by it), then the
 * agent's own exec, which checks the container's node itself. Nothing else: no separate node check, no copy of
 * the agent, no listing of every container with its size, no exec for the out-of-memory count, no exec to make
 * the agent's folder, no exec to signal a probe that already ended.
 * Each engine call is a process start of a Go program on the user's machine: they are most of the start's cost.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioAgentBundleAt } from '../../fixtures/scenario-agent/launch';
import { podmanEnv, podmanSkipReason, removeTestContainers, testImage } from '../../support/podman';
import { agentText, makeCore, promptAndWait, type TestCore } from '../acp/helpers';

const skip = podmanSkipReason();

describe.skipIf(skip !== null)("a container session's start (real Podman, its engine calls noted)", { timeout: 240_000 }, () => {
  let root: string;
  let log: string;
  let t: TestCore;
  const sessions: string[] = [];

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-cstart-')));
    const shims = join(root, 'shims');
    mkdirSync(shims);
    log = join(root, 'engine-calls.log');
    writeFileSync(log, '');
    const real = podmanEnv();
    const podman = (real.PATH ?? '/usr/bin:/bin').split(':').map((d) => join(d, 'podman')).find((p) => {
      try {
        return readFileSync(p).length > 0;
      } catch {
        return false;
      }
    })!;
    writeFileSync(join(shims, 'podman'), `#!/bin/sh\n{ printf '%s' "$*" | tr '\\n' ' '; echo; } >> '${log}'\nexec '${podman}' "$@"\n`);
    chmodSync(join(shims, 'podman'), 0o755);
    t = await makeCore({ dataDir: join(root, 'data'), containers: { engineEnv: { ...real, PATH: `${shims}:${real.PATH ?? '/usr/bin:/bin'}` } } });
  }, 180_000);

  afterAll(async () => {
    await t?.dispose();
    if (skip === null) for (const id of sessions) removeTestContainers(id);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("spends no engine call beyond the CLI and the agent's exec: its program is mounted, its node checked in its own exec", async () => {
    const repo = join(root, 'repo');
    mkdirSync(repo);
    const bundle = scenarioAgentBundleAt(join(root, 'agent-bundle', 'scenario-agent.mjs'));
    const agent = await t.call('agents.addCustom', { name: 'Scenario', command: 'node', args: [bundle], env: { PATH: '/usr/local/bin:/usr/bin:/bin' }, cwd: repo });
    const image = testImage('node');
    writeFileSync(log, '');
    const session = await t.call('sessions.create', { agentId: agent.id, cwd: repo, container: { source: { kind: 'image', image }, fence: { network: 'none' } } });
    sessions.push(session.id);
    const calls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    // The CLI's part ends with its run of the container and its own two execs (environment and user probes).
    const run = calls.findIndex((c) => c.startsWith('run '));
    expect(run).toBeGreaterThanOrEqual(0);
    const cliExecs = calls.slice(run).filter((c) => c.startsWith('exec ') && c.includes(' -u root ')).length;
    const ours = calls.slice(run + 1).filter((c) => !/^(inspect --type container|ps -q -a --filter label=switchboard\.session)/.test(c) && !(c.startsWith('exec ') && c.includes(' -u root ')));
    // The agent itself (interactive), and nothing before it.
    expect({ cliExecs, ours: ours.map((c) => c.split(' ').slice(0, 2).join(' ')) }).toEqual({ cliExecs: 2, ours: ['exec -i'] });
    // Its program reached the container by a read-only mount the CLI made, of that one file.
    const mounts = calls[run]!.match(/--mount \S+/g) ?? [];
    expect(mounts.filter((m) => m.includes(`target=${bundle},`))).toEqual([expect.stringMatching(/,readonly$/)]);
    // Mounted from Switchboard's own scratch folder (a link to the file), not from where the user keeps it.
    expect(mounts.find((m) => m.includes(`target=${bundle},`))).toContain(`source=${join(root, 'data', 'containers')}/`);
    expect(mounts.every((m) => m.includes(`target=${repo}`) || m.includes(`target=${bundle},`))).toBe(true);
    // And the agent runs: a prompt is answered from inside.
    expect((await promptAndWait(t, session.id, 'say started')).error).toBeNull();
    expect(agentText(t.rec, session.id)).toContain('started');
  });
});
