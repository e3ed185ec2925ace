import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { scanFolder, type ScanOptions } from '../../../src/main/core/checkpoints/folder-scan';
import { LooseObjects } from '../../../src/main/core/checkpoints/git-objects';
import { makeRig, type Rig } from './helpers';

const SECRET = `SECRET-${randomUUID()}`;
const swapChild = fileURLToPath(new URL('./swap-child.mjs', import.meta.url));

let rig: Rig | undefined;
let swapper: ChildProcess | undefined;
const temps: string[] = [];
afterEach(async () => {
  swapper?.kill('SIGKILL');
  swapper = undefined;
  await rig?.dispose();
  rig = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** An outside folder of secrets: `secret.txt`, `deep/key`, all holding SECRET. */
function outsideFolder(root: string): string {
  const outside = join(root, 'outside');
  mkdirSync(join(outside, 'deep'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), `${SECRET} top\n`);
  writeFileSync(join(outside, 'deep', 'key'), `${SECRET} deep\n`);
  // The names of the inside folder's files, so a path read through the swapped link finds one.
  for (let i = 0; i < 200; i++) writeFileSync(join(outside, `file-${i}.txt`), `${SECRET} same name as an inside file\n`);
  return outside;
}

/** Every object in a store's loose object files and packs, inflated/unpacked by git, searched for SECRET. */
function storeHolds(gitDir: string, needle: string): boolean {
  const objects = join(gitDir, 'objects');
  if (!existsSync(objects)) return false;
  for (const d of readdirSync(objects)) {
    if (!/^[0-9a-f]{2}$/.test(d)) continue;
    for (const f of readdirSync(join(objects, d))) {
      if (f.startsWith('tmp_')) continue;
      if (inflateSync(readFileSync(join(objects, d, f))).includes(needle)) return true;
    }
  }
  if (existsSync(join(gitDir, 'HEAD'))) {
    const all = execFileSync('git', ['--git-dir', gitDir, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 1 << 30 });
    if (all.includes(needle)) return true;
  }
  return false;
}

/** Regular files under `dir`, never following a link. */
function regularFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    if (st.isDirectory()) out.push(...regularFiles(p));
    else if (st.isFile()) out.push(p);
  }
  return out;
}

describe('a snapshot reads the folder confined, at the moment of reading', () => {
  it('never stores an outside byte while an agent swaps a folder and a file for symlinks to outside, at random moments', async () => {
    rig = makeRig();
    const w = rig.work;
    const outside = outsideFolder(rig.root);
    mkdirSync(join(w, 'd', 'sub'), { recursive: true });
    for (let i = 0; i < 200; i++) writeFileSync(join(w, 'd', `file-${i}.txt`), `inside ${i}\n`);
    writeFileSync(join(w, 'd', 'sub', 'key'), 'inside key\n');
    writeFileSync(join(w, 'f.txt'), 'inside f\n');
    symlinkSync(outside, join(w, 'd.link'));
    symlinkSync(join(outside, 'secret.txt'), join(w, 'f.txt.link'));
    swapper = spawn(process.execPath, [swapChild, w], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => swapper!.stdout!.once('data', () => resolve()));

    const ROUNDS = 60;
    for (let i = 0; i < ROUNDS; i++) {
      await rig.turn(async () => {
        writeFileSync(join(w, 'top.txt'), `round ${i}\n`);
        // Some inside files touched, so snapshots read them again rather than trusting their stat. (Should the
        // swap land between the check and the write, a line is appended to an outside file: harmless here.)
        const dir = ['d.real', 'd'].find((n) => lstatSync(join(w, n), { throwIfNoEntry: false })?.isDirectory());
        for (let j = i % 5; dir && j < 200; j += 5) {
          try {
            writeFileSync(join(w, dir, `file-${j}.txt`), `round ${i}\n`, { flag: 'a' });
          } catch {
            // Swapped away meanwhile.
          }
        }
        await new Promise((r) => setTimeout(r, Math.random() * 3));
      });
    }
    swapper.kill('SIGKILL');
    await new Promise((r) => swapper!.once('exit', r));
    swapper = undefined;
    // Put the folder back as the swapper found it (it may have been killed mid-swap).
    for (const name of ['d', 'f.txt']) {
      const at = join(w, name);
      if (existsSync(join(w, `${name}.real`))) {
        if (lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(at);
        renameSync(join(w, `${name}.real`), at);
      }
    }

    const shadow = join(rig.dataDir, 'checkpoints', readdirSync(join(rig.dataDir, 'checkpoints'))[0]!);
    expect(storeHolds(shadow, SECRET)).toBe(false);

    // Diffs are read from those objects; a sample of them, and restores of a few turns, keep outside bytes out.
    const turns = await rig.svc.listTurns('s1');
    expect(turns).toHaveLength(ROUNDS);
    for (const t of turns.filter((_, i) => i % 10 === 4)) {
      for (const f of t.changes!.files.filter((x) => !x.tooLarge && !x.ignored).slice(0, 10)) {
        const diff = await rig.svc.fileDiff(t.changes!.from, t.changes!.to, f.path);
        expect(`${diff.oldText ?? ''}${diff.newText ?? ''}`).not.toContain(SECRET);
      }
    }
    for (const t of turns.filter((_, i) => i % 20 === 7)) {
      await rig.svc.revert(t.changes!.from, t.changes!.to, { kind: 'all' });
      await rig.svc.rewind(t.id);
    }
    for (const file of regularFiles(w)) expect(readFileSync(file, 'utf8')).not.toContain(SECRET);
    // Nothing was written outside either.
    expect(readdirSync(outside).filter((n) => !n.startsWith('file-')).sort()).toEqual(['deep', 'secret.txt']);
    expect(readdirSync(outside)).toHaveLength(202);
    expect(readdirSync(join(outside, 'deep'))).toEqual(['key']);
    expect(readFileSync(join(outside, 'file-0.txt'), 'utf8')).toContain(SECRET);
  }, 300_000);

  describe('deterministic swaps', () => {
    function setup() {
      const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-scan-')));
      temps.push(root);
      const work = join(root, 'work');
      const store = join(root, 'store');
      mkdirSync(join(work, 'd', 'sub'), { recursive: true });
      mkdirSync(store);
      writeFileSync(join(work, 'd', 'file-0.txt'), 'inside 0\n');
      writeFileSync(join(work, 'd', 'sub', 'key'), 'inside key\n');
      writeFileSync(join(work, 'f.txt'), 'inside f\n');
      return { root, work, store, outside: outsideFolder(root) };
    }
    const scan = (o: { work: string; store: string }, extra: Partial<ScanOptions> = {}) =>
      scanFolder({ root: o.work, maxFileBytes: 1024 * 1024, excludes: [], previous: null, objects: new LooseObjects(o.store), ...extra });
    const texts = (r: Awaited<ReturnType<typeof scan>>) => [...r.files.values()].map((f) => `${f.path}:${f.mode}`).sort();

    it('records links already there as links, never what they point at', async () => {
      const o = setup();
      rmSync(join(o.work, 'd'), { recursive: true });
      symlinkSync(o.outside, join(o.work, 'd'));
      unlinkSync(join(o.work, 'f.txt'));
      symlinkSync(join(o.outside, 'secret.txt'), join(o.work, 'f.txt'));
      const r = await scan(o);
      expect(texts(r)).toEqual(['d:120000', 'f.txt:120000']);
      expect(storeHolds(o.store, SECRET)).toBe(false);
    });

    it('does not follow a folder swapped for a link between listing it and opening it', async () => {
      const o = setup();
      const r = await scan(o, {
        beforeOpen: (path) => {
          if (path !== 'd') return;
          renameSync(join(o.work, 'd'), join(o.root, 'd.real'));
          symlinkSync(o.outside, join(o.work, 'd'));
        },
      });
      expect(texts(r)).toEqual(['f.txt:100644']);
      expect(storeHolds(o.store, SECRET)).toBe(false);
    });

    it('does not follow a file swapped for a link between listing it and opening it', async () => {
      const o = setup();
      const r = await scan(o, {
        beforeOpen: (path) => {
          if (path !== 'f.txt') return;
          unlinkSync(join(o.work, 'f.txt'));
          symlinkSync(join(o.outside, 'secret.txt'), join(o.work, 'f.txt'));
        },
      });
      expect(texts(r)).not.toContain('f.txt:100644');
      expect(storeHolds(o.store, SECRET)).toBe(false);
    });

    it('keeps reading the folder it holds when a parent is swapped for a link while a file in it is opened', async () => {
      const o = setup();
      // outside/d-like tree with the same names, full of secrets.
      mkdirSync(join(o.outside, 'sub'));
      writeFileSync(join(o.outside, 'sub', 'key'), `${SECRET} swapped parent\n`);
      const r = await scan(o, {
        beforeOpen: (path) => {
          if (path !== 'd/sub/key') return;
          renameSync(join(o.work, 'd'), join(o.work, 'd.real'));
          symlinkSync(o.outside, join(o.work, 'd'));
        },
      });
      expect(storeHolds(o.store, SECRET)).toBe(false);
      // What was read is the file of the folder held (moved, still inside), not the one the link leads to.
      expect(r.files.get('d/sub/key')?.sha).toBe(execFileSync('git', ['hash-object', '--stdin'], { input: 'inside key\n' }).toString().trim());
    });

    it('skips a file replaced by a FIFO between listing and opening, without blocking', async () => {
      const o = setup();
      const r = await scan(o, {
        beforeOpen: (path) => {
          if (path !== 'f.txt') return;
          unlinkSync(join(o.work, 'f.txt'));
          execFileSync('mkfifo', [join(o.work, 'f.txt')]);
        },
      });
      expect(texts(r)).toEqual(['d/file-0.txt:100644', 'd/sub/key:100644']);
      // A FIFO already there is skipped too (the scan would hang forever on a blocking open).
      expect(texts(await scan(o))).toEqual(['d/file-0.txt:100644', 'd/sub/key:100644']);
    });
  });
});
