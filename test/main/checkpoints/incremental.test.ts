import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PayloadOf } from '../../../src/shared/contract';
import { scanFolder } from '../../../src/main/core/checkpoints/folder-scan';
import { LooseObjects, writeTrees } from '../../../src/main/core/checkpoints/git-objects';
import type { Host, WatchEvent } from '../../../src/main/core/host/host';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { makeRig, type Rig } from './helpers';

let rig: Rig;
const temps: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await rig?.dispose();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: gitEnv });

/** The local host, its watch reports passed through `filter` first (a watch that drops events). */
function hostWith(filter: (event: WatchEvent) => WatchEvent | null): Host {
  const local = new LocalHost();
  const host = Object.create(local) as Host;
  host.watch = (root, onEvent, options) =>
    local.watch(
      root,
      (e) => {
        const passed = filter(e);
        if (passed) onEvent(passed);
      },
      options,
    );
  return host;
}

/** The tree a full, fresh read of the folder gives (what every checkpoint must equal). */
async function fullTree(folder: string, excludes: string[] = []): Promise<string> {
  const store = mkdtempSync(join(tmpdir(), 'sb-cp-full-'));
  temps.push(store);
  mkdirSync(join(store, 'objects'));
  const objects = new LooseObjects(store);
  const scan = await scanFolder({ root: folder, maxFileBytes: 10 * 1024 * 1024, excludes, previous: null, objects });
  return writeTrees(objects, [...scan.files.values()]);
}

function wholeReads(spy: { mock: { calls: unknown[][] } }): string[] {
  return spy.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('read the whole folder'));
}

describe('snapshots of a watched folder', () => {
  it('read only what changed, and record exactly what a full read of the folder records', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    rig = makeRig();
    const w = rig.work;
    mkdirSync(join(w, 'src', 'deep'), { recursive: true });
    for (let i = 0; i < 50; i++) writeFileSync(join(w, 'src', `f${i}.ts`), `export const v${i} = ${i};\n`);
    writeFileSync(join(w, 'src', 'deep', 'x.ts'), 'x\n');
    writeFileSync(join(w, '.gitignore'), 'out/\n');
    mkdirSync(join(w, 'out'));
    writeFileSync(join(w, 'out', 'out.js'), 'out\n');
    await rig.svc.sessionOpened('s1', [w]);
    await rig.svc.idle();
    expect(wholeReads(info)).toHaveLength(1);

    const steps: Array<() => void> = [
      () => writeFileSync(join(w, 'src', 'f1.ts'), 'changed\n'),
      () => unlinkSync(join(w, 'src', 'f2.ts')),
      () => renameSync(join(w, 'src', 'f3.ts'), join(w, 'src', 'deep', 'f3-moved.ts')),
      () => {
        mkdirSync(join(w, 'new', 'inner'), { recursive: true });
        writeFileSync(join(w, 'new', 'inner', 'a.txt'), 'a\n');
      },
      () => renameSync(join(w, 'src', 'deep'), join(w, 'deep-moved')),
      () => rmSync(join(w, 'new'), { recursive: true }),
      () => symlinkSync('src/f4.ts', join(w, 'link-to-f4')),
      () => writeFileSync(join(w, 'out', 'out.js'), 'rebuilt, ignored\n'),
      () => writeFileSync(join(w, 'src', 'f5.ts'), Buffer.from([0, 1, 2, 3])),
      () => {
        mkdirSync(join(w, 'src', 'f6.ts.d'));
        unlinkSync(join(w, 'src', 'f6.ts'));
        writeFileSync(join(w, 'src', 'f6.ts.d', 'f6.ts'), 'moved into a folder\n');
      },
    ];
    for (const step of steps) {
      step();
      const cp = await rig.svc.checkpoint(w);
      expect(cp.tree).toBe(await fullTree(w));
    }
    // The first snapshot was the only whole-folder read.
    expect(wholeReads(info)).toHaveLength(1);
    const ignored = (await rig.svc.checkpoint(w)).large.find((f) => f.path === 'out/out.js');
    expect(ignored).toMatchObject({ ignored: true, size: 'rebuilt, ignored\n'.length });
  });

  it('reads the whole folder, and says so, when the watch reports it lost track', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    let lose = false;
    rig = makeRig({ host: hostWith((e) => (lose && e.kind === 'changes' && e.changes.some((c) => c.path.endsWith('a.txt')) ? { kind: 'rescan', reason: 'queue overflow' } : e)) });
    writeFileSync(join(rig.work, 'a.txt'), 'one\n');
    await rig.svc.sessionOpened('s1', [rig.work]);
    await rig.svc.idle();
    lose = true;
    writeFileSync(join(rig.work, 'a.txt'), 'two\n');
    const cp = await rig.svc.checkpoint(rig.work);
    expect(cp.tree).toBe(await fullTree(rig.work));
    expect(wholeReads(info).at(-1)).toContain('the watch lost track (queue overflow)');
  });

  it('never leaves out a change the watch dropped: a watch that stops reporting is read around, one that drops some is caught after the turn', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    let mode: 'all' | 'none' | 'drop-b' = 'all';
    rig = makeRig({
      host: hostWith((e) => {
        if (e.kind !== 'changes' || mode === 'all') return e;
        if (mode === 'none') return null;
        const kept = e.changes.filter((c) => !c.path.endsWith('b.txt'));
        return kept.length > 0 ? { kind: 'changes', changes: kept } : null;
      }),
    });
    const w = rig.work;
    writeFileSync(join(w, 'a.txt'), 'a0\n');
    writeFileSync(join(w, 'b.txt'), 'b0\n');
    await rig.svc.sessionOpened('s1', [w]);
    await rig.svc.idle();

    // Nothing reported at all (not even the sync file): the snapshot reads the whole folder.
    mode = 'none';
    writeFileSync(join(w, 'a.txt'), 'a1\n');
    const silent = await rig.svc.checkpoint(w);
    expect(silent.tree).toBe(await fullTree(w));
    expect(wholeReads(info).at(-1)).toMatch(/did not report a sync/);

    // Some events dropped silently (as inotify's overflow is under @parcel/watcher): the turn's checkpoint is
    // checked against the folder's stat, takes the change, and the turn says the watch missed it.
    mode = 'drop-b';
    await rig.turn(() => {
      writeFileSync(join(w, 'a.txt'), 'a2\n');
      writeFileSync(join(w, 'b.txt'), 'b2, never reported\n');
    });
    const [turn] = await rig.svc.listTurns('s1');
    expect(turn!.changes!.files.map((f) => f.path).sort()).toEqual(['a.txt', 'b.txt']);
    expect(turn!.notice).toMatch(/missed changes to b\.txt/);
    expect(warn.mock.calls.map((c) => String(c[0])).join('\n')).toMatch(/the watch missed changes to b\.txt/);
    const diff = await rig.svc.fileDiff(turn!.changes!.from, turn!.changes!.to, 'b.txt');
    expect(diff.newText).toBe('b2, never reported\n');
  });

  it('reads a folder again by its new rules after a .gitignore changes', async () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    rig = makeRig();
    const w = rig.work;
    writeFileSync(join(w, 'keep.log'), 'log\n');
    await rig.svc.sessionOpened('s1', [w]);
    await rig.svc.idle();
    writeFileSync(join(w, '.gitignore'), '*.log\n');
    // The rules before the change apply to this snapshot (the one that sees the new .gitignore)…
    expect((await rig.svc.checkpoint(w)).large.some((f) => f.path === 'keep.log')).toBe(false);
    writeFileSync(join(w, 'new.log'), 'new\n');
    // …and the next reads the folder whole by the new ones: a new ignored file is listed by size only.
    const cp = await rig.svc.checkpoint(w);
    expect(wholeReads(info).at(-1)).toContain('a .gitignore changed');
    expect(cp.large.find((f) => f.path === 'new.log')).toMatchObject({ ignored: true });
  });
});

describe('the first snapshot of a folder', () => {
  it('of a small folder is waited for by a turn that starts meanwhile, so that the turn\'s changes are exact', async () => {
    rig = makeRig();
    const w = rig.work;
    for (let f = 0; f < 50; f++) writeFileSync(join(w, `f${f}.txt`), `content ${f}\n`);
    await rig.svc.sessionOpened('s1', [w]);
    const turn = { sessionId: 's1', promptId: randomUUID(), roots: [w] };
    await rig.svc.turnStarting(turn);
    writeFileSync(join(w, 'f7.txt'), 'changed by the turn\n');
    writeFileSync(join(w, 'during.txt'), 'written by the turn\n');
    rig.svc.turnEnded(turn);
    await rig.svc.idle();
    const [t] = await rig.svc.listTurns('s1');
    expect(t!.beforeLate).toBe(false);
    expect(t!.notice ?? null).toBeNull();
    expect(t!.changes!.files.map((f) => f.path).sort()).toEqual(['during.txt', 'f7.txt']);
  });

  it('is taken when the session opens, with progress; a turn started meanwhile goes ahead at once and says so', async () => {
    rig = makeRig();
    const w = rig.work;
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(w, `d${d}`));
      for (let f = 0; f < 200; f++) writeFileSync(join(w, `d${d}`, `f${f}.txt`), `content ${d}/${f}\n`);
    }
    const events: Array<PayloadOf<'checkpoints.snapshotting'>> = [];
    rig.bus.connect((name, payload) => name === 'checkpoints.snapshotting' && events.push(payload as PayloadOf<'checkpoints.snapshotting'>));
    await rig.svc.sessionOpened('s1', [w]);
    const turn = { sessionId: 's1', promptId: randomUUID(), roots: [w] };
    await rig.svc.turnStarting(turn);
    // The prompt may go: the first snapshot is not done yet, and the session is told both.
    expect(events.some((e) => e.phase === 'background' && e.done)).toBe(false);
    expect(events.some((e) => e.phase === 'turn_went' && !e.done)).toBe(true);
    writeFileSync(join(w, 'during.txt'), 'written by the turn\n');
    rig.svc.turnEnded(turn);
    await rig.svc.idle();
    const [t] = await rig.svc.listTurns('s1');
    expect(t!.beforeLate).toBe(true);
    // Whether the snapshot read during.txt before or after the turn wrote it, the turn says its changes may be incomplete.
    expect(t!.notice).toMatch(/started before the folder's first snapshot was done/);
    expect(t!.state).toBe('recorded');
    const end = events.filter((e) => e.phase === 'background').at(-1)!;
    expect(end.done).toBe(true);
    expect(end.files).toBeGreaterThanOrEqual(4000);
    expect(events.filter((e) => e.phase === 'turn_went').at(-1)).toMatchObject({ done: true });
  });
});

describe('folders holding other repositories', () => {
  it('records nested repositories and submodules as files, never their .git contents, without running hooks or touching their index', async () => {
    rig = makeRig();
    const w = rig.work;
    git(w, 'init', '-q');
    // A nested repository with a hook that would leave a mark if anything ran it.
    const nested = join(w, 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    git(nested, 'init', '-q');
    writeFileSync(join(nested, 'lib.c'), 'int x;\n');
    const marker = join(rig.root, 'hook-ran');
    for (const hook of ['pre-commit', 'post-checkout', 'post-index-change', 'fsmonitor-watchman']) {
      writeFileSync(join(nested, '.git', 'hooks', hook), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    }
    git(nested, 'add', '.');
    git(nested, 'commit', '-qm', 'lib', '--no-verify');
    rmSync(marker, { force: true });
    // A submodule (its .git a file naming the gitdir under the parent's .git/modules).
    const upstream = join(rig.root, 'upstream');
    mkdirSync(upstream);
    git(upstream, 'init', '-q');
    writeFileSync(join(upstream, 'sub.txt'), 'sub\n');
    git(upstream, 'add', '.');
    git(upstream, 'commit', '-qm', 'sub');
    git(w, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', upstream, 'mod');
    const indexes = () => [join(nested, '.git', 'index'), join(w, '.git', 'modules', 'mod', 'index'), join(w, '.git', 'index')].map((p) => readFileSync(p).toString('hex'));
    const before = indexes();

    await rig.svc.sessionOpened('s1', [w]);
    await rig.svc.idle();
    await rig.turn(() => {
      writeFileSync(join(nested, 'lib.c'), 'int x = 1;\n');
      writeFileSync(join(w, 'mod', 'sub.txt'), 'sub, changed\n');
      writeFileSync(join(nested, '.git', 'hooks', 'pre-push'), '#!/bin/sh\n');
    });
    const [turn] = await rig.svc.listTurns('s1');
    const paths = turn!.changes!.files.map((f) => f.path).sort();
    expect(paths).toContain('vendor/lib/lib.c');
    expect(paths).toContain('mod/sub.txt');
    // A hook planted in the nested repository is listed by size only; nothing else of a .git is.
    expect(turn!.changes!.files.find((f) => f.path === 'vendor/lib/.git/hooks/pre-push')).toMatchObject({ ignored: true });
    const cp = await rig.svc.checkpoint(w);
    expect(cp.tree).toBe(await fullTree(w));
    const tree = execFileSync('git', ['ls-tree', '-r', '--name-only', cp.tree], { env: { ...gitEnv, GIT_DIR: join(rig.dataDir, 'checkpoints', (await rig.svc.folderList())[0]!.id) } }).toString();
    expect(tree.split('\n').filter((p) => p.includes('.git/'))).toEqual([]);
    expect(tree).toContain('vendor/lib/lib.c');
    expect(indexes()).toEqual(before);
    expect(existsSync(marker)).toBe(false);
  });
});

/** How the folder's path is turned towards `outside/work` once it is watched. */
const SWAPS = {
  'a parent of the folder': (base: string, outside: string) => {
    renameSync(join(base, 'parent'), join(base, 'parent-moved'));
    symlinkSync(outside, join(base, 'parent'));
  },
  'the folder itself': (base: string, outside: string) => {
    renameSync(join(base, 'parent', 'work'), join(base, 'parent', 'work-moved'));
    symlinkSync(join(outside, 'work'), join(base, 'parent', 'work'));
  },
};

describe("the watch's sync file", () => {
  it.each(Object.keys(SWAPS) as Array<keyof typeof SWAPS>)(
    'is never written outside the folder when %s is swapped for a symlink after the watch started; the snapshot falls back to a whole read, which refuses the swap, and the log says why',
    async (swap) => {
      const info = vi.spyOn(console, 'info').mockImplementation(() => {});
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      rig = makeRig();
      const base = realpathSync(mkdtempSync(join(tmpdir(), 'sb-cp-sync-')));
      temps.push(base);
      const w = join(base, 'parent', 'work');
      mkdirSync(w, { recursive: true });
      writeFileSync(join(w, 'a.txt'), 'a0\n');
      const outside = join(base, 'outside');
      mkdirSync(join(outside, 'work'), { recursive: true });
      writeFileSync(join(outside, 'work', 'secret.txt'), 'outside\n');
      await rig.svc.sessionOpened('s1', [w]);
      await rig.svc.idle();
      // With the watch in hand, a snapshot reads only what changed (the sync file went through).
      writeFileSync(join(w, 'a.txt'), 'a1\n');
      await rig.svc.checkpoint(w);
      expect(wholeReads(info)).toHaveLength(1);

      const seenOutside: string[] = [];
      const watcher = watch(join(outside, 'work'), (_event, name) => {
        if (name) seenOutside.push(String(name));
      });
      try {
        SWAPS[swap](base, outside);
        // The whole read holds the folder without following a link (as every snapshot does): it refuses.
        await expect(rig.svc.checkpoint(w)).rejects.toThrow(/moved while it was being read|not a directory/);
      } finally {
        watcher.close();
      }
      expect(seenOutside).toEqual([]);
      expect(readdirSync(join(outside, 'work'))).toEqual(['secret.txt']);
      expect(warn.mock.calls.map((c) => String(c[0])).join('\n')).toMatch(/the sync file could not be written \(refused: .*; the next snapshot reads the whole folder/);
    },
  );
});
