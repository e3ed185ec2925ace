/**
 * Checkpoints of a session on an SSH host, against a real OpenSSH server (test/support/sshd.ts): the scenario
 * agent runs on the host and writes there; the snapshots are taken on the host by its helper, into a shadow
 * repository under ~/.switchboard-server/checkpoints there (none here); the turn's changes and diff come back;
 * a rewind puts the host's file back, written by the host (the remote user's), and a folder swapped for a
 * symlink on the host is not followed.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TurnCheckpoint } from '../../../src/shared/contract/checkpoints';
import type { HostProcess } from '../../../src/main/core/host/host';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';
import { eventually, makeCore, turnEnd, type TestCore } from '../acp/helpers';

const skip = sshdSkipReason();
if (skip) console.warn(`skipping the remote checkpoint tests: ${skip}`);

const HOST = 'ssh:sbtest';

async function exitOf(p: HostProcess): Promise<number | null> {
  p.stdout.resume();
  p.stderr.resume();
  return (await p.closed).code;
}

describe.skipIf(skip !== null)('checkpoints of a session on an SSH host', () => {
  let sshd: Sshd;
  let t: TestCore;
  let folder: string;
  let outside: string;
  let uid: number;
  let sessionId: string;

  const owned = (path: string): void => chownSync(path, uid, uid);

  beforeAll(async () => {
    sshd = await startSshd();
    await sshd.setKnownHosts('right');
    t = await makeCore({ sshConfigFile: sshd.configFile });
    uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
    const tag = randomBytes(4).toString('hex');
    folder = join(sshd.home, `cp-${tag}`);
    outside = join(sshd.home, `outside-${tag}`);
    for (const dir of [folder, outside, join(folder, 'sub')]) {
      mkdirSync(dir);
      owned(dir);
    }
    for (const [path, text] of [
      [join(folder, 'notes.txt'), 'first line\nsecond line\n'],
      [join(folder, 'sub', 'f.txt'), 'inside\n'],
      [join(outside, 'f.txt'), 'outside, untouched\n'],
    ] as const) {
      writeFileSync(path, text);
      owned(path);
    }
    expect(await t.call('hosts.connect', { hostId: HOST })).toMatchObject({ ok: true });
    const { command, args } = (await import('../../fixtures/scenario-agent/launch')).scenarioAgentCommand();
    const agentId = (await t.call('agents.addCustom', { name: 'Scenario', command, args, env: {}, cwd: t.work })).id;
    sessionId = (await t.call('sessions.create', { agentId, hostId: HOST, cwd: folder })).id;
  }, 90_000);

  afterAll(async () => {
    await t?.dispose();
    await sshd?.stop();
    for (const dir of [folder, outside]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const prompt = async (text: string): Promise<TurnCheckpoint> => {
    const { promptId } = await t.call('sessions.prompt', { sessionId, prompt: [{ type: 'text', text }] });
    await turnEnd(t, sessionId, promptId, 60_000);
    return eventually(
      async () => (await t.call('checkpoints.listTurns', { sessionId })).turns.find((x) => x.promptId === promptId && x.state !== 'running' && x.state !== 'recording'),
      `the checkpoints of turn ${promptId}`,
      60_000,
    );
  };

  it("lists the file an agent on the host wrote, with its diff, from snapshots taken on the host; a rewind puts the host's file back", async () => {
    const said: string[] = [];
    const info = vi.spyOn(console, 'info').mockImplementation((...a: unknown[]) => void said.push(a.join(' ')));
    const warn = vi.spyOn(console, 'warn').mockImplementation((...a: unknown[]) => void said.push(a.join(' ')));
    const turn = await prompt(`write ${join(folder, 'notes.txt')} first line\\nchanged on the host\\n`);
    expect(turn.state, turn.error ?? '').toBe('recorded');
    expect(turn.folder).toBe(folder);
    expect(turn.changes?.files.map((f) => [f.path, f.status])).toEqual([['notes.txt', 'modified']]);
    const diff = await t.call('checkpoints.fileDiff', { from: turn.changes!.from, to: turn.changes!.to, path: 'notes.txt' });
    expect(diff.oldText).toBe('first line\nsecond line\n');
    expect(diff.newText).toBe('first line\nchanged on the host\n');
    expect(diff.hunks).toHaveLength(1);

    // The shadow repository is on the host (made by the helper, as the remote user); nothing of it here.
    const shadow = join(sshd.home, '.switchboard-server', 'checkpoints', turn.folderId);
    expect(existsSync(join(shadow, 'HEAD'))).toBe(true);
    expect(statSync(shadow).uid).toBe(uid);
    expect(existsSync(join(t.dataDir, 'checkpoints', turn.folderId))).toBe(false);

    const r = await t.call('checkpoints.rewind', { turnId: turn.id });
    expect(r.refused).toEqual([]);
    expect(r.applied.map((a) => a.path)).toEqual(['notes.txt']);
    const file = join(folder, 'notes.txt');
    expect(readFileSync(file, 'utf8')).toBe('first line\nsecond line\n');
    // Written on the host, by its helper (a write from this machine would be this user's).
    expect(statSync(file).uid).toBe(uid);
    expect(existsSync(join(t.dataDir, 'checkpoints', turn.folderId))).toBe(false);

    // Past the folder's first snapshot, each one read only what the host's watch reported (and its check found nothing missed).
    info.mockRestore();
    warn.mockRestore();
    expect(said.filter((l) => /read the whole folder|missed/.test(l))).toEqual([`checkpoints: ${folder}: read the whole folder (first snapshot of the folder)`]);
  }, 180_000);

  it("reports every atomic replace of a file on the host's watch, not only the first", async () => {
    const host = t.core.hosts.get(HOST);
    const seen: string[] = [];
    const watch = await host.watch(folder, (e) => {
      if (e.kind === 'changes') for (const c of e.changes) if (c.path.endsWith('/again.txt')) seen.push(c.path);
    });
    try {
      const files = await host.files([folder]);
      for (let i = 1; i <= 3; i++) {
        await files.writeFile(join(folder, 'again.txt'), `version ${i}\n`);
        await eventually(() => seen.length >= i, `the watch to report write ${i}`, 15_000);
      }
    } finally {
      await watch.dispose();
    }
  }, 60_000);

  it('never writes through a folder the host swapped for a symlink after the turn', async () => {
    const host = t.core.hosts.get(HOST);
    // A turn removes sub/ (through a shell on the host); then, on the host, sub becomes a link to a folder outside.
    const turn = await prompt(`terminal {"command":"rm","args":["-r","${join(folder, 'sub')}"]}`);
    expect(turn.changes?.files.map((f) => [f.path, f.status])).toEqual([['sub/f.txt', 'deleted']]);
    expect(await exitOf(host.spawn(['ln', '-s', outside, join(folder, 'sub')], { cwd: folder, env: {} }))).toBe(0);
    const r = await t.call('checkpoints.rewind', { turnId: turn.id });
    expect(r.refused.find((x) => x.path === 'sub/f.txt')?.reason).toMatch(/symbolic link; not followed/);
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('outside, untouched\n');
    expect(readdirSync(outside)).toEqual(['f.txt']);
  }, 180_000);
});
