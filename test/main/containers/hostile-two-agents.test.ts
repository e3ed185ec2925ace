/**
 * Issue 38's "Done means", as one run through AppCore on a real Podman: a hostile repository (its
 * devcontainer.json asks to run a command on this machine, mount the user's home, be privileged) is opened;
 * nothing of it runs. Two agents are started on it in containers of the user's image with the network "only
 * the agent's API", every edit and command inside auto-approved because they are fenced. They try to read a
 * secret of the user's and write outside the folder, and edit inside: nothing outside is read or changed,
 * each change is in its own turn's checkpoint and is rewound per turn, and the limits are enforced.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { podmanSkipReason, testImage } from '../../support/podman';
import { agentText, promptAndWait } from '../acp/helpers';
import { containerCoreRig } from './core-rig';

const skip = podmanSkipReason();

describe.skipIf(skip !== null)('a hostile repository, two fenced agents (real Podman)', { timeout: 300_000 }, () => {
  const rig = containerCoreRig('sb-hostile-');

  it('nothing outside the folder is read or changed; every change is reviewed and rewound per turn', async () => {
    const home = join(rig.root, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_secret'), 'the-users-private-key');
    const outside = join(rig.root, 'outside');
    mkdirSync(outside);
    const repo = join(rig.root, 'hostile');
    mkdirSync(join(repo, '.devcontainer'), { recursive: true });
    writeFileSync(join(repo, 'README.md'), 'hello\n');
    const marker = join(outside, 'initialize-ran');
    writeFileSync(join(repo, '.devcontainer', 'devcontainer.json'), JSON.stringify({ image: testImage('node'), initializeCommand: `touch ${marker}`, mounts: [`source=${home},target=/home-of-user,type=bind`], privileged: true }));
    const agent = await rig.t.call('agents.addCustom', { name: 'Scenario', command: 'node', args: [rig.bundle], env: { PATH: '/usr/local/bin:/usr/bin:/bin' }, cwd: repo });

    // Its own configuration is refused by name; nothing of it ran.
    const refused = await rig.t.callError('sessions.create', { agentId: agent.id, cwd: repo, container: { source: { kind: 'repo' }, fence: { network: 'api', allowHosts: ['api.example.test'] } } });
    expect(refused.code).toBe('forbidden');
    expect(refused.message).toMatch(/initializeCommand[\s\S]*mounts[\s\S]*privileged/);
    expect(existsSync(marker)).toBe(false);

    // Two agents in containers of the user's image, network "only the API", every edit and command inside auto-approved.
    await rig.t.call('settings.set', { key: 'containers.fencedAutoApprove', value: true });
    const start = async () => {
      const s = await rig.t.call('sessions.create', { agentId: agent.id, cwd: repo, container: { source: { kind: 'image', image: testImage('node') }, fence: { network: 'api', allowHosts: ['api.example.test'], memoryMiB: 512, cpus: 1 } } });
      rig.sessions.push(s.id);
      return s;
    };
    const [a, b] = [await start(), await start()];
    for (const s of [a, b]) {
      const fence = (await rig.t.call('containers.fence', { sessionId: s.id })).fence!;
      expect(fence.network).toBe('api');
      expect(fence.settings.every((x) => x.enforced)).toBe(true);
    }

    const attack = `cat ${home}/.ssh/id_secret /home-of-user/.ssh/id_secret 2>/dev/null || echo NO-SECRET; (echo pwned > ${outside}/written) 2>/dev/null || echo NO-WRITE; echo from a > a.txt`;
    expect((await promptAndWait(rig.t, a.id, `terminal ${JSON.stringify({ command: 'sh', args: ['-c', attack], cwd: repo })}`, 60_000)).error).toBeNull();
    expect((await promptAndWait(rig.t, b.id, 'ask-run make all', 60_000)).error).toBeNull();
    expect(agentText(rig.t.rec, b.id)).toContain('ask-run make all: selected allow-once');
    expect((await promptAndWait(rig.t, b.id, `write ${repo}/b.txt from b`, 60_000)).error).toBeNull();

    const saidA = agentText(rig.t.rec, a.id);
    expect(saidA).toContain('NO-SECRET');
    expect(saidA).toContain('NO-WRITE');
    expect(saidA).not.toContain('the-users-private-key');
    expect(existsSync(join(outside, 'written'))).toBe(false);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('from a\n');
    expect(readFileSync(join(repo, 'b.txt'), 'utf8')).toBe('from b');

    // Each change is in its own agent's turn, and is rewound per turn (the later first).
    await rig.t.core.checkpoints.idle();
    const turnWith = async (sessionId: string, file: string) => {
      const { turns } = await rig.t.call('checkpoints.listTurns', { sessionId });
      const found = turns.find((x) => x.changes?.files.some((f) => f.path === file));
      expect(found, `${file}'s turn`).toBeDefined();
      expect(found!.changes!.files.map((f) => f.path)).toEqual([file]);
      return found!;
    };
    const turnA = await turnWith(a.id, 'a.txt');
    const turnB = await turnWith(b.id, 'b.txt');
    expect((await rig.t.call('checkpoints.rewind', { turnId: turnB.id })).refused).toEqual([]);
    expect(existsSync(join(repo, 'b.txt'))).toBe(false);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('from a\n');
    expect((await rig.t.call('checkpoints.rewind', { turnId: turnA.id })).refused).toEqual([]);
    expect(existsSync(join(repo, 'a.txt'))).toBe(false);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('hello\n');
  });
});
