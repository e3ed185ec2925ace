import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanFolder, type ScanOptions, type ScanState } from '../../../src/main/core/checkpoints/folder-scan';
import { LooseObjects } from '../../../src/main/core/checkpoints/git-objects';
import { makeRig, type Rig } from './helpers';

let rig: Rig | undefined;
const temps: string[] = [];
afterEach(async () => {
  await rig?.dispose();
  rig = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function folder(): { root: string; work: string; store: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-went-')));
  temps.push(root);
  const work = join(root, 'work');
  const store = join(root, 'store');
  mkdirSync(join(work, 'd'), { recursive: true });
  mkdirSync(store);
  writeFileSync(join(work, 'a.txt'), 'a before\n');
  writeFileSync(join(work, 'd', 'e.txt'), 'e before\n');
  writeFileSync(join(work, 'd', 'f.txt'), 'f before\n');
  return { root, work, store };
}

const scan = (o: { work: string; store: string }, extra: Partial<ScanOptions> = {}) =>
  scanFolder({ root: o.work, maxFileBytes: 1024 * 1024, excludes: [], previous: null, objects: new LooseObjects(o.store), ...extra });
const blobId = (text: string) => execFileSync('git', ['hash-object', '--stdin'], { input: text }).toString().trim();
const nowNs = () => BigInt(Date.now()) * 1_000_000n;

describe('a "before" snapshot the turn went ahead of', () => {
  it('names what the turn changed or removed before the snapshot read it, and nothing it read before', async () => {
    const o = folder();
    let went: bigint | null = null;
    const r = await scan(o, {
      wentAt: () => went,
      beforeOpen: (path) => {
        if (path !== 'd') return;
        // The turn goes, and its agent rewrites a file and removes another before the scan gets to them.
        went = nowNs();
        writeFileSync(join(o.work, 'd', 'e.txt'), 'e by turn\n');
        unlinkSync(join(o.work, 'd', 'f.txt'));
      },
    });
    expect(r.unsure).toEqual(['d', 'd/e.txt']);
    expect(r.files.get('a.txt')?.sha).toBe(blobId('a before\n'));
  });

  it('is exact for every file whose last change is well before the turn went', async () => {
    const o = folder();
    const last = ['a.txt', 'd', 'd/e.txt', 'd/f.txt'].map((p) => lstatSync(join(o.work, p), { bigint: true }).ctimeNs).reduce((a, b) => (a > b ? a : b));
    // Read wholly after the turn went, two seconds after the folder last changed.
    const r = await scan(o, { wentAt: () => last + 2_000_000_000n });
    expect(r.unsure).toEqual([]);
    expect(r.files.get('d/e.txt')?.sha).toBe(blobId('e before\n'));
  });

  it('goes ahead of a snapshot that reads the whole folder, and then its changes are exact or it says which may not be', async () => {
    rig = makeRig({ fullReadWaitMs: 0 });
    const w = rig.work;
    for (let i = 0; i < 50; i++) writeFileSync(join(w, `f${i}.txt`), `file ${i}\n`);
    const turn = { sessionId: 's1', promptId: randomUUID(), roots: [w] };
    let beforeTaken = false;
    rig.bus.connect((name) => {
      if (name === 'checkpoints.changed') beforeTaken = true;
    });
    await rig.svc.turnStarting(turn);
    // The prompt may go before the "before" snapshot is taken (no watch yet: it reads the whole folder).
    expect(beforeTaken).toBe(false);
    writeFileSync(join(w, 'f7.txt'), 'changed by the turn\n');
    rig.svc.turnEnded(turn);
    await rig.svc.idle();
    const [t] = await rig.svc.listTurns('s1');
    expect(t!.state).toBe('recorded');
    const seen = t!.changes!.files.map((f) => f.path).includes('f7.txt');
    const told = t!.beforeLate && /started before its "before" snapshot was done/.test(t!.notice ?? '');
    expect(seen || told).toBe(true);
  });
});

describe('the stat cache of a whole-folder read', () => {
  /** A previous scan whose every stat is trusted (as if it began a minute from now: no racy window left). */
  const trusted = (s: ScanState): ScanState => ({ ...s, startedAtNs: String(nowNs() + 60_000_000_000n) });

  it('reads again a file rewritten with the same size and mtime in the same second (its ctime changed)', async () => {
    const o = folder();
    const path = join(o.work, 'd', 'e.txt');
    // A whole second: set again exactly after the rewrite (as a tool that keeps mtimes, or a coarse clock, does).
    const second0 = Math.floor(Date.now() / 1000);
    utimesSync(path, second0, second0);
    const first = await scan(o);
    writeFileSync(path, 'e by turn\n'.slice(0, 'e before\n'.length));
    utimesSync(path, second0, second0);
    expect(statSync(path, { bigint: true }).mtimeNs).toBe(BigInt(first.files.get('d/e.txt')!.mtimeNs));
    expect(statSync(path).size).toBe(first.files.get('d/e.txt')!.size);
    const second = await scan(o, { previous: trusted(first) });
    expect(second.files.get('d/e.txt')?.sha).toBe(blobId('e by turn\n'.slice(0, 'e before\n'.length)));
    expect(second.files.get('a.txt')?.sha).toBe(blobId('a before\n'));
  });

  it('records a file swapped for a symlink as the link, never the cached content or what it points at', async () => {
    const o = folder();
    const outside = join(o.root, 'outside.txt');
    writeFileSync(outside, 'outside secret\n');
    const first = await scan(o);
    symlinkSync(outside, join(o.work, 'a.link'));
    renameSync(join(o.work, 'a.link'), join(o.work, 'a.txt'));
    const second = await scan(o, { previous: trusted(first) });
    expect(second.files.get('a.txt')).toMatchObject({ mode: '120000', sha: blobId(outside) });
  });
});
