/**
 * Checkpoints of a session on an SSH host, against a real OpenSSH server (test/support/sshd.ts): the scenario
 * agent runs on the host and writes there; the snapshots are taken on the host by its helper, into a shadow
 * repository under ~/.switchboard-server/checkpoints there (none here); the turn's changes and diff come back;
 * a rewind puts the host's file back, written by the host (the remote user's), and a folder swapped for a
 * symlink on the host is not followed (by a restore, nor by the watch's sync file the helper writes before a
 * snapshot); a host snapshot's progress comes back while it runs.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TurnCheckpoint } from '../../../src/shared/contract/checkpoints';
import type { HostProcess } from '../../../src/main/core/host/host';
import { helperSite } from '../../../src/main/core/checkpoints/checkpoint-sites';
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
    t = await makeCore({ sshConfigFile: sshd.configFile, checkpoints: true });
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

  it("streams a host snapshot's progress (files recorded so far) before its answer", async () => {
    const host = t.core.hosts.get(HOST);
    const big = join(sshd.home, `big-${randomBytes(4).toString('hex')}`);
    mkdirSync(big);
    for (let d = 0; d < 10; d++) {
      mkdirSync(join(big, `d${d}`));
      for (let f = 0; f < 200; f++) writeFileSync(join(big, `d${d}`, `f${f}.txt`), `${d}/${f}\n`);
    }
    spawnSync('chown', ['-R', `${uid}:${uid}`, big]);
    try {
      const store = helperSite(host as Parameters<typeof helperSite>[0]).store(randomBytes(8).toString('hex'), big, 1 << 20, []);
      const heard: number[] = [];
      let answered = false;
      const snap = await store.snapshot({ onProgress: (n) => void (answered || heard.push(n)) });
      answered = true;
      expect(snap.files).toBe(2000);
      expect(heard.length).toBeGreaterThan(0);
      expect(heard.every((n) => n > 0 && n <= 2000)).toBe(true);
      expect([...heard].sort((a, b) => a - b)).toEqual(heard);
      await store.remove();
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  }, 120_000);

  it("never writes the watch's sync file outside a watched folder the host swapped for a symlink; the snapshot refuses", async () => {
    const host = t.core.hosts.get(HOST);
    const base = join(sshd.home, `swap-${randomBytes(4).toString('hex')}`);
    const w = join(base, 'work');
    const away = join(base, 'outside');
    for (const dir of [base, w, away]) {
      mkdirSync(dir);
      owned(dir);
    }
    writeFileSync(join(away, 'secret.txt'), 'outside\n');
    owned(join(away, 'secret.txt'));
    const said: string[] = [];
    const info = vi.spyOn(console, 'info').mockImplementation((...a: unknown[]) => void said.push(a.join(' ')));
    try {
      await t.core.checkpoints.sessionOpened('swap-session', [w], HOST);
      await t.core.checkpoints.idle();
      const files = await host.files([w]);
      await files.writeFile(join(w, 'a.txt'), 'a1\n');
      // With the host's watch in hand, a snapshot reads only what changed (the sync file went through there).
      await t.core.checkpoints.checkpoint(w, 'manual', HOST);
      expect(said.filter((l) => l.includes(w) && l.includes('read the whole folder'))).toHaveLength(1);

      const seenOutside: string[] = [];
      const watcher = watch(away, (_event, name) => void (name && seenOutside.push(String(name))));
      try {
        renameSync(w, `${w}-moved`);
        symlinkSync(away, w);
        // The host's sync file is refused at the write (the watch's folder is no longer what the path leads to),
        // and the whole read that follows refuses the link.
        await expect(t.core.checkpoints.checkpoint(w, 'manual', HOST)).rejects.toThrow(/moved while it was being read|not a directory|symbolic link/);
        await new Promise((r) => setTimeout(r, 200));
      } finally {
        watcher.close();
      }
      expect(seenOutside).toEqual([]);
      expect(readdirSync(away)).toEqual(['secret.txt']);
    } finally {
      info.mockRestore();
      t.core.checkpoints.sessionClosed('swap-session');
      rmSync(base, { recursive: true, force: true });
    }
  }, 120_000);
});
