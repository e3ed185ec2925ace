import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TurnCheckpoint } from '../../../src/shared/contract/checkpoints';
import { FsRefusal } from '../../../src/main/core/host/files';
import { ConfinedFs } from '../../../src/main/core/host/local/confined-fs';
import { makeRig, type Rig } from './helpers';

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: gitEnv });
const read = (p: string) => readFileSync(p, 'utf8');

let rig: Rig;
afterEach(async () => rig?.dispose());

async function lastTurn(sessionId = 's1'): Promise<TurnCheckpoint> {
  const turns = await rig.svc.listTurns(sessionId);
  return turns.at(-1)!;
}

describe('checkpoints of a folder that is not a git repository', () => {
  it('records what a turn added, changed, deleted and renamed, with line counts and binary sizes', async () => {
    rig = makeRig();
    const w = rig.work;
    writeFileSync(join(w, 'a.txt'), 'one\ntwo\nthree\n');
    writeFileSync(join(w, 'gone.txt'), 'bye\n');
    writeFileSync(join(w, 'moved.txt'), 'a file long enough to be seen as renamed\nline two\nline three\n');
    writeFileSync(join(w, 'img.bin'), Buffer.from([0, 1, 2, 3]));
    await rig.turn(() => {
      writeFileSync(join(w, 'a.txt'), 'one\nTWO\nthree\nfour\n');
      unlinkSync(join(w, 'gone.txt'));
      renameSync(join(w, 'moved.txt'), join(w, 'renamed.txt'));
      mkdirSync(join(w, 'src'));
      writeFileSync(join(w, 'src/new.ts'), 'export {};\n');
      writeFileSync(join(w, 'img.bin'), Buffer.from([0, 9, 9, 9, 9, 9]));
    });
    const turn = await lastTurn();
    expect(turn.state).toBe('recorded');
    const files = Object.fromEntries(turn.changes!.files.map((f) => [f.path, f]));
    expect(files['a.txt']).toMatchObject({ status: 'modified', additions: 2, deletions: 1, binary: false });
    expect(files['gone.txt']).toMatchObject({ status: 'deleted' });
    expect(files['renamed.txt']).toMatchObject({ status: 'renamed', oldPath: 'moved.txt' });
    expect(files['src/new.ts']).toMatchObject({ status: 'added', additions: 1 });
    expect(files['img.bin']).toMatchObject({ status: 'modified', binary: true, oldSize: 4, newSize: 6 });
    expect(turn.changes!.summary).toMatchObject({ added: 1, modified: 2, deleted: 1, renamed: 1 });

    const diff = await rig.svc.fileDiff(turn.changes!.from, turn.changes!.to, 'a.txt');
    expect(diff.oldText).toBe('one\ntwo\nthree\n');
    expect(diff.newText).toBe('one\nTWO\nthree\nfour\n');
    expect(diff.hunks).toHaveLength(2);
  });

  it("keeps a turn's changes readable after its folder is gone from disk", async () => {
    rig = makeRig();
    writeFileSync(join(rig.work, 'a.txt'), 'a\n');
    await rig.turn(() => writeFileSync(join(rig.work, 'a.txt'), 'b\n'));
    await rig.svc.dispose();
    rig.store.dispose();
    renameSync(rig.work, `${rig.work}-moved`);
    // A fresh start of the app (nothing cached), as when a past session is opened from history.
    const { StoreService } = await import('../../../src/main/core/store/store-service');
    const { CheckpointService } = await import('../../../src/main/core/checkpoints/checkpoint-service');
    const { EventBus } = await import('../../../src/main/core/base/event-bus');
    rig.store = new StoreService(rig.dataDir);
    rig.svc = new CheckpointService(rig.store, new EventBus(), rig.dataDir, { autoPrune: false, host: new LocalHost() });
    const turn = await lastTurn();
    expect(turn.error).toBeNull();
    expect(turn.changes!.files).toMatchObject([{ path: 'a.txt', status: 'modified' }]);
    expect((await rig.svc.fileDiff(turn.changes!.from, turn.changes!.to, 'a.txt')).newText).toBe('b\n');
  });

  it('reverts a hunk, a file and a whole turn, rewinds, and undoes each of them', async () => {
    rig = makeRig();
    const w = rig.work;
    writeFileSync(join(w, 'a.txt'), 'one\ntwo\nthree\n');
    writeFileSync(join(w, 'b.txt'), 'bee\n');
    await rig.turn(() => {
      writeFileSync(join(w, 'a.txt'), 'one\nTWO\nthree\nfour\n');
      writeFileSync(join(w, 'b.txt'), 'BEE\n');
      writeFileSync(join(w, 'c.txt'), 'new\n');
    });
    const { from, to } = (await lastTurn()).changes!;

    // Hunk 1 of a.txt is "four" added at the end; putting it back keeps "TWO".
    const hunk = await rig.svc.revert(from, to, { kind: 'hunk', path: 'a.txt', hunk: 1 });
    expect(hunk.applied).toEqual([{ path: 'a.txt', action: 'written' }]);
    expect(read(join(w, 'a.txt'))).toBe('one\nTWO\nthree\n');
    await rig.svc.undoRestore(hunk.restoreId!);
    expect(read(join(w, 'a.txt'))).toBe('one\nTWO\nthree\nfour\n');

    const file = await rig.svc.revert(from, to, { kind: 'file', path: 'b.txt' });
    expect(read(join(w, 'b.txt'))).toBe('bee\n');
    expect(read(join(w, 'a.txt'))).toBe('one\nTWO\nthree\nfour\n');
    await rig.svc.undoRestore(file.restoreId!);
    expect(read(join(w, 'b.txt'))).toBe('BEE\n');

    const all = await rig.svc.revert(from, to, { kind: 'all' });
    expect(all.refused).toEqual([]);
    expect(read(join(w, 'a.txt'))).toBe('one\ntwo\nthree\n');
    expect(read(join(w, 'b.txt'))).toBe('bee\n');
    expect(existsSync(join(w, 'c.txt'))).toBe(false);
    const undone = await rig.svc.undoRestore(all.restoreId!);
    expect(undone.applied).toHaveLength(3);
    expect(read(join(w, 'c.txt'))).toBe('new\n');

    // A second turn, then rewind the folder to before the first one; then undo the rewind.
    await rig.turn(() => writeFileSync(join(w, 'd.txt'), 'later\n'));
    const first = (await rig.svc.listTurns('s1'))[0]!;
    const rewind = await rig.svc.rewind(first.id);
    expect(rewind.refused).toEqual([]);
    expect(readdirSync(w).sort()).toEqual(['a.txt', 'b.txt']);
    expect(read(join(w, 'a.txt'))).toBe('one\ntwo\nthree\n');
    await rig.svc.undoRestore(rewind.restoreId!);
    expect(readdirSync(w).sort()).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt']);
    expect(read(join(w, 'b.txt'))).toBe('BEE\n');
  });

  it('merges a revert with later edits where that is clean, and refuses a conflicting file with the reason', async () => {
    rig = makeRig();
    const w = rig.work;
    writeFileSync(join(w, 'a.txt'), 'l1\nl2\nl3\nl4\nl5\nl6\n');
    writeFileSync(join(w, 'b.txt'), 'x\n');
    await rig.turn(() => {
      writeFileSync(join(w, 'a.txt'), 'l1 by agent\nl2\nl3\nl4\nl5\nl6\n');
      writeFileSync(join(w, 'b.txt'), 'agent\n');
    });
    const { from, to } = (await lastTurn()).changes!;
    // The user edits after the turn: a.txt elsewhere (clean merge), b.txt on the same line (conflict).
    writeFileSync(join(w, 'a.txt'), 'l1 by agent\nl2\nl3\nl4\nl5\nl6 by user\n');
    writeFileSync(join(w, 'b.txt'), 'user\n');
    const r = await rig.svc.revert(from, to, { kind: 'all' });
    expect(r.applied).toEqual([{ path: 'a.txt', action: 'merged' }]);
    expect(read(join(w, 'a.txt'))).toBe('l1\nl2\nl3\nl4\nl5\nl6 by user\n');
    expect(r.refused).toEqual([{ path: 'b.txt', reason: expect.stringMatching(/changed again since .* nothing is lost/), choice: { lines: ['user'], more: 0 } }]);
    expect(read(join(w, 'b.txt'))).toBe('user\n');
  });

  it('refuses a restore while a turn runs in the folder: stop the turn first', async () => {
    rig = makeRig();
    writeFileSync(join(rig.work, 'a.txt'), 'a\n');
    await rig.turn(() => writeFileSync(join(rig.work, 'a.txt'), 'b\n'));
    const done = await lastTurn();
    const running = { sessionId: 's2', promptId: randomUUID(), roots: [rig.work] };
    await rig.svc.turnStarting(running);
    await expect(rig.svc.rewind(done.id)).rejects.toThrow(/stop the turn first/);
    expect(read(join(rig.work, 'a.txt'))).toBe('b\n');
    rig.svc.turnEnded(running);
    await rig.svc.idle();
    await rig.svc.rewind(done.id);
    expect(read(join(rig.work, 'a.txt'))).toBe('a\n');
  });

  it('says when another session was working in the same folder at the same time', async () => {
    rig = makeRig();
    const a = { sessionId: 'sa', promptId: randomUUID(), roots: [rig.work] };
    const b = { sessionId: 'sb', promptId: randomUUID(), roots: [rig.work] };
    await rig.svc.turnStarting(a);
    await rig.svc.turnStarting(b);
    writeFileSync(join(rig.work, 'x.txt'), 'by someone\n');
    rig.svc.turnEnded(b);
    rig.svc.turnEnded(a);
    await rig.svc.idle();
    expect((await lastTurn('sa')).overlaps).toEqual([{ sessionId: 'sb', label: 'sb' }]);
    expect((await lastTurn('sb')).overlaps).toEqual([{ sessionId: 'sa', label: 'sa' }]);
  });
});

describe('what is captured', () => {
  it('skips excluded folders, lists ignored and large files by size only, and records symlinks as links', async () => {
    rig = makeRig();
    const w = rig.work;
    writeFileSync(join(w, '.gitignore'), 'secret/\n');
    rig.settings.set({ key: 'checkpoints.maxFileBytes', value: 1024 * 1024 });
    await rig.turn(() => {
      mkdirSync(join(w, 'node_modules/pkg'), { recursive: true });
      writeFileSync(join(w, 'node_modules/pkg/index.js'), 'x');
      mkdirSync(join(w, 'secret'));
      writeFileSync(join(w, 'secret/key'), 'k');
      writeFileSync(join(w, 'big.dat'), randomBytes(2 * 1024 * 1024));
      symlinkSync('/etc/hostname', join(w, 'link'));
      writeFileSync(join(w, 'kept.txt'), 'kept\n');
    });
    const files = (await lastTurn()).changes!.files;
    expect(files.map((f) => f.path).sort()).toEqual(['big.dat', 'kept.txt', 'link', 'secret/key']);
    expect(files.find((f) => f.path === 'big.dat')).toMatchObject({ status: 'added', tooLarge: true, newSize: 2 * 1024 * 1024 });
    // Ignored: listed with its size, its content not kept.
    expect(files.find((f) => f.path === 'secret/key')).toMatchObject({ status: 'added', ignored: true, tooLarge: false, newSize: 1 });
    expect(files.find((f) => f.path === 'link')).toMatchObject({ kind: 'symlink' });
    // The large file's content is not in the shadow repository.
    const folders = await rig.svc.folderList();
    expect(folders[0]!.bytes).toBeLessThan(1024 * 1024);

    // Reverting the turn removes what it added, the ignored file too, and leaves the large file alone (its
    // content was not kept), saying so.
    const { from, to } = (await lastTurn()).changes!;
    const r = await rig.svc.revert(from, to, { kind: 'all' });
    expect(r.refused).toEqual([]);
    expect(r.applied.map((a) => a.path).sort()).toEqual(['big.dat', 'kept.txt', 'link', 'secret/key']);
    expect(existsSync(join(w, 'big.dat'))).toBe(false);
    expect(existsSync(join(w, 'secret/key'))).toBe(false);
    expect(existsSync(join(w, 'kept.txt'))).toBe(false);
    expect(existsSync(join(w, 'node_modules/pkg/index.js'))).toBe(true);
  });

  it('stops capturing files a new exclude covers, and never overwrites them in a restore', async () => {
    rig = makeRig();
    const w = rig.work;
    mkdirSync(join(w, 'logs'));
    writeFileSync(join(w, 'logs/run.log'), 'first\n');
    await rig.turn(() => writeFileSync(join(w, 'logs/run.log'), 'second\n'));
    const first = await lastTurn();
    expect(first.changes!.files.map((f) => f.path)).toEqual(['logs/run.log']);
    rig.settings.set({ key: 'checkpoints.excludes', value: ['logs/'] });
    await rig.turn(() => writeFileSync(join(w, 'logs/run.log'), 'third\n'));
    expect((await lastTurn()).changes!.files).toEqual([]);
    const r = await rig.svc.rewind(first.id);
    expect(r.refused).toEqual([{ path: 'logs/run.log', reason: expect.stringMatching(/not captured/) }]);
    expect(read(join(w, 'logs/run.log'))).toBe('third\n');
  });

  it('lets a turn go ahead when its "before" snapshot takes too long, and says so', async () => {
    rig = makeRig({ beforeWaitMs: 0 });
    writeFileSync(join(rig.work, 'a.txt'), 'a');
    await rig.turn(() => writeFileSync(join(rig.work, 'b.txt'), 'b'));
    const turn = await lastTurn();
    expect(turn.beforeLate).toBe(true);
    expect(turn.state).toBe('recorded');
  });

  it('tells plainly when git is missing, and turns still run', async () => {
    rig = makeRig({ pathEnv: '/nonexistent' });
    expect(await rig.svc.status()).toMatchObject({ available: false, reason: 'git_missing', message: expect.stringMatching(/no git was found/) });
    await rig.turn(() => writeFileSync(join(rig.work, 'a.txt'), 'a'));
    expect(await rig.svc.listTurns('s1')).toEqual([]);
  });
});

describe("the user's own git repository", () => {
  it('keeps status, index, stash and refs byte-identical through checkpoints, reverts and rewinds', async () => {
    rig = makeRig();
    const w = rig.work;
    git(w, 'init', '-q', '-b', 'main');
    writeFileSync(join(w, 'a.txt'), 'committed\n');
    writeFileSync(join(w, 'b.txt'), 'b\n');
    git(w, 'add', '-A');
    git(w, 'commit', '-qm', 'init');
    writeFileSync(join(w, 'a.txt'), 'stashed\n');
    git(w, 'stash', '-q');
    writeFileSync(join(w, 'a.txt'), 'staged\n');
    git(w, 'add', 'a.txt');
    writeFileSync(join(w, 'b.txt'), 'unstaged\n');
    const marker = join(rig.root, 'hook-ran');
    for (const hook of ['pre-commit', 'post-commit', 'post-index-change', 'reference-transaction', 'post-checkout']) {
      writeFileSync(join(w, '.git/hooks', hook), `#!/bin/sh\necho ${hook} >> '${marker}'\n`, { mode: 0o755 });
    }
    const state = () => ({
      status: execFileSync('git', ['status', '--porcelain=v2', '--untracked-files=all'], { cwd: w, encoding: 'utf8', env: { ...gitEnv, GIT_OPTIONAL_LOCKS: '0' } }),
      index: readFileSync(join(w, '.git/index')).toString('base64'),
      stash: execFileSync('git', ['stash', 'list'], { cwd: w, encoding: 'utf8' }),
      refs: execFileSync('git', ['for-each-ref'], { cwd: w, encoding: 'utf8' }),
      gitFiles: readdirSync(join(w, '.git')).sort(),
    });
    const before = state();
    await rig.turn(() => writeFileSync(join(w, 'agent.txt'), 'agent\n'));
    const turn = await lastTurn();
    expect(turn.changes!.files.map((f) => f.path)).toEqual(['agent.txt']);
    const r = await rig.svc.revert(turn.changes!.from, turn.changes!.to, { kind: 'all' });
    await rig.svc.undoRestore(r.restoreId!);
    await rig.svc.rewind(turn.id);
    expect(state()).toEqual(before);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('safety', () => {
  it('never writes through a folder swapped for a symlink after the turn', async () => {
    rig = makeRig();
    const w = rig.work;
    const outside = join(rig.root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'f.txt'), 'outside, untouched\n');
    mkdirSync(join(w, 'sub'));
    writeFileSync(join(w, 'sub/f.txt'), 'inside\n');
    await rig.turn(() => rmSync(join(w, 'sub'), { recursive: true }));
    const turn = await lastTurn();
    // A hostile agent, after the turn: sub is now a link to a folder outside.
    symlinkSync(outside, join(w, 'sub'));
    const r = await rig.svc.rewind(turn.id);
    expect(r.refused.find((x) => x.path === 'sub/f.txt')?.reason).toMatch(/symbolic link; not followed/);
    expect(read(join(outside, 'f.txt'))).toBe('outside, untouched\n');
    expect(readdirSync(outside)).toEqual(['f.txt']);
  });

  it('a restore write refuses parents that are symlinks, paths that leave the folder, and non-regular targets', async () => {
    rig = makeRig();
    const outside = join(rig.root, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(rig.work, 'link'));
    mkdirSync(join(rig.work, 'dir'));
    const fs = await ConfinedFs.open([rig.work]);
    for (const rel of ['link/x.txt', 'link/deeper/x.txt', '../outside/x.txt', 'a/../../outside/x.txt', '/etc/x', 'dir', '.git/config']) {
      await expect(fs.placeFile(rel, Buffer.from('x'), 0o644), rel).rejects.toBeInstanceOf(FsRefusal);
      await expect(fs.removeEntry(rel), rel).rejects.toBeInstanceOf(FsRefusal);
    }
    expect(await fs.removeEntry('link')).toBe(true);
    expect(readdirSync(rig.work)).toEqual(['dir']);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('retention', () => {
  it('prunes checkpoints older than the retention period, then the oldest over the size cap', async () => {
    rig = makeRig();
    const w = rig.work;
    for (let i = 0; i < 3; i++) await rig.turn(() => writeFileSync(join(w, 'f.bin'), randomBytes(4 * 1024 * 1024)));
    expect(await rig.svc.listTurns('s1')).toHaveLength(3);
    const [folder] = await rig.svc.folderList();
    expect(folder!.bytes).toBeGreaterThan(12 * 1024 * 1024);

    // Over a 10 MB cap: the oldest go until it fits.
    rig.settings.set({ key: 'checkpoints.maxBytesPerFolder', value: 10 * 1024 * 1024 });
    expect(await rig.svc.prune()).toBeGreaterThan(0);
    const [after] = await rig.svc.folderList();
    expect(after!.bytes).toBeLessThanOrEqual(10 * 1024 * 1024);
    expect(after!.checkpoints).toBeLessThan(folder!.checkpoints);

    // Past the retention period: everything goes.
    rig.settings.set({ key: 'checkpoints.maxBytesPerFolder', value: 2 * 1024 * 1024 * 1024 });
    await rig.svc.prune(Date.now() + 31 * 24 * 60 * 60 * 1000);
    const [old] = await rig.svc.folderList();
    expect(old!.checkpoints).toBe(0);
    // What remains is the shadow index's copy of the folder as it is now (the next checkpoint starts from it).
    expect(old!.bytes).toBeLessThan(5 * 1024 * 1024);
    expect(await rig.svc.listTurns('s1')).toEqual([]);

    await rig.svc.deleteFolder(old!.id);
    expect(await rig.svc.folderList()).toEqual([]);
    expect(existsSync(join(rig.dataDir, 'checkpoints', old!.id))).toBe(false);
  });
});
