import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FolderFeed } from './folder-changes';
import { countFiles, scanFolder, scanPaths, type ScannedFile, type ScanResult, type ScanState, type StatOnlyFile } from './folder-scan';
import { LooseObjects, TreeIndex } from './git-objects';
import { ShadowGit } from './shadow-git';
import type { Host } from '../host/host';
import type { ShadowStore, Snapshot, SnapshotOptions, TreeEntry } from './shadow-store';

/** What the last snapshot saw, kept in memory between snapshots (so the next one reads only changes). */
interface LiveState extends ScanState {
  statOnly: Map<string, StatOnlyFile>;
  gitDirs: Set<string>;
  tree: TreeIndex;
  /** The statOnly paths as folders (to find what is under a path). */
  statTree: TreeIndex;
  /** statOnly in path order, until it changes. */
  sorted: StatOnlyFile[] | null;
  /** A .gitignore changed: its rules apply from the next snapshot on, which reads the whole folder. */
  rulesChanged?: boolean;
}

/** The saved scan state is rewritten at most this often (it only spares a restart's first snapshot reading content). */
const SAVE_EVERY_MS = 30_000;

const under = (path: string, roots: ReadonlySet<string>): boolean => {
  for (let i = path.length; i > 0; i = path.lastIndexOf('/', i - 1)) if (roots.has(path.slice(0, i))) return true;
  return false;
};

type SavedFile = [path: string, mode: ScannedFile['mode'], sha: string, size: number, mtimeNs: string, ctimeNs: string, ino: string];
interface SavedState {
  v: 1;
  startedAtNs: string;
  files: SavedFile[];
  rules: Array<[string, string]>;
}

/**
 * The shadow repository of one folder: its own object store under the data folder. A snapshot is a
 * confined scan of the folder (folder-scan.ts) whose bytes are stored as git objects by this process,
 * then a tree of them: git itself never reads the folder, it only diffs and reads back the stored trees.
 */
export class ShadowRepo implements ShadowStore {
  readonly git: ShadowGit;
  private readonly objects: LooseObjects;
  private excludes: string[] = [];
  private ready: Promise<void> | null = null;
  /** What the last snapshot saw (ignore rules, stat of every kept file): read from disk at start. */
  private state: ScanState | null = null;
  /** The last snapshot in memory (null until one was taken by this process, or after one failed). */
  private live: LiveState | null = null;
  private savedAt = 0;
  private unsaved: { state: ScanState; tree: string } | null = null;
  /** The folder's watch (watch()), and the ignore list it was started with. */
  private feed: { feed: FolderFeed; ignore: string } | null = null;

  constructor(
    readonly dir: string,
    readonly folder: string,
    private maxFileBytes: number,
    excludes: readonly string[],
    private readonly host: Pick<Host, 'git' | 'watch' | 'files'>,
  ) {
    this.git = new ShadowGit(dir, host);
    this.objects = new LooseObjects(dir);
    this.excludes = [...excludes];
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      if (!existsSync(join(this.dir, 'HEAD'))) {
        await mkdir(this.dir, { recursive: true });
        await this.git.run(['init', '-q', '--template=']);
      }
      await mkdir(join(this.dir, 'no-hooks'), { recursive: true });
      // Left by versions that ran `git add` over the folder: an index would keep its objects alive.
      await rm(join(this.dir, 'index'), { force: true });
      await rm(join(this.dir, 'index.lock'), { force: true });
      try {
        const saved = JSON.parse(await readFile(join(this.dir, 'scan-state.json'), 'utf8')) as SavedState;
        if (saved.v === 1) {
          this.state = {
            startedAtNs: saved.startedAtNs,
            files: new Map(saved.files.map(([path, mode, sha, size, mtimeNs, ctimeNs, ino]) => [path, { path, mode, sha, size, mtimeNs, ctimeNs, ino }])),
            ignoreRules: new Map(saved.rules),
          };
        }
      } catch {
        this.state = null;
      }
    })();
    return this.ready;
  }

  async configure(maxFileBytes: number, excludes: readonly string[]): Promise<void> {
    this.maxFileBytes = maxFileBytes;
    this.excludes = [...excludes];
    this.live = null;
  }

  watch(ignore: readonly string[]): void {
    const key = JSON.stringify(ignore);
    if (this.feed?.ignore === key) return;
    this.unwatch();
    this.feed = { feed: new FolderFeed(this.folder, (root, onEvent, opts) => this.host.watch(root, onEvent, opts), (roots) => this.host.files(roots), { ignore }), ignore: key };
  }

  unwatch(): void {
    this.feed?.feed.dispose();
    this.feed = null;
  }

  async reported(): Promise<string[]> {
    return [...(this.feed?.feed.reported() ?? [])];
  }

  /**
   * Records the folder as it is now: only the paths `changes` (else the watch) names when it names them and
   * a snapshot of this process came before, else the whole folder (reading only files whose stat changed).
   * A verification that finds a change the watch missed stops the watch (the whole folder is read from then
   * on, until watch() again). Callers serialize snapshots of one folder.
   */
  async snapshot(o: SnapshotOptions = {}): Promise<Snapshot> {
    const feed = o.changes ? null : (this.feed?.feed ?? null);
    // Known before the watch catches up (or starts): this snapshot reads the whole folder.
    if (!o.changes && (!feed || feed.doubtful() || !this.live)) o.onFullRead?.();
    const changes = o.changes ?? (feed ? await feed.take() : undefined);
    try {
      const snap = await this.record({ ...o, ...(changes ? { changes } : {}) });
      if (o.keep) await this.keep(o.keep, snap.tree);
      if (snap.missed.length > 0 && feed && this.feed?.feed === feed) this.unwatch();
      return snap;
    } catch (e) {
      feed?.rescan('the last snapshot failed');
      throw e;
    }
  }

  private async record(o: SnapshotOptions): Promise<Snapshot> {
    await this.init();
    const live = this.live;
    this.live = null;
    const scanOptions = { root: this.folder, maxFileBytes: this.maxFileBytes, excludes: this.excludes, objects: this.objects };
    const went = o.wentAt ? { wentAt: o.wentAt } : {};
    let how: Snapshot['how'];
    let next: LiveState;
    let unsure: string[] = [];
    if (!live || !o.changes || 'full' in o.changes || live.rulesChanged) {
      const reason = !o.changes ? 'no watch' : 'full' in o.changes ? o.changes.full : !live ? 'first snapshot in this process' : 'a .gitignore changed';
      o.onFullRead?.();
      const scan = await scanFolder({ ...scanOptions, ...went, previous: live ?? this.state, ...(o.onProgress ? { onProgress: o.onProgress } : {}) });
      unsure = scan.unsure;
      next = live ? renewed(live, scan) : liveOf(scan);
      how = { kind: 'full', reason };
    } else {
      const scan = await scanPaths({ ...scanOptions, ...went, previous: live, paths: o.changes.paths });
      unsure = scan.unsure;
      next = merge(live, scan);
      how = { kind: 'changes', paths: o.changes.paths.length };
    }
    let missed: string[] = [];
    if (o.verify && how.kind === 'changes') {
      const all = liveOf(await scanFolder({ ...scanOptions, previous: next }));
      missed = differences(next, all);
      if (missed.length > 0) next = all;
    }
    const tree = await next.tree.write(this.objects);
    // A first full read in this process is saved at once (a restart then spares reading every file again).
    await this.remember(next, tree, how.kind === 'full' && !live);
    this.live = next;
    next.sorted ??= [...next.statOnly.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { tree, large: next.sorted, how, missed, files: next.files.size + next.statOnly.size, ...(o.wentAt ? { unsure } : {}) };
  }

  /** The last snapshot's tree stays named (gc keeps it); its scan state goes to disk now and then. */
  private async remember(state: LiveState, tree: string, now: boolean): Promise<void> {
    // A 41-byte file in our own data folder: written in place (a thread-pool trip is slow on a loaded machine).
    mkdirSync(join(this.dir, 'refs'), { recursive: true });
    writeFileSync(join(this.dir, 'refs', 'switchboard-live'), `${tree}\n`);
    this.unsaved = { state, tree };
    if (now || Date.now() - this.savedAt > SAVE_EVERY_MS) await this.flush();
  }

  /** Writes the last snapshot's scan state to disk (a restart's first snapshot then reads only what changed). */
  async flush(): Promise<void> {
    const u = this.unsaved;
    if (!u) return;
    this.unsaved = null;
    this.savedAt = Date.now();
    await this.saveState(u.state, u.tree);
    this.state = u.state;
  }

  /** The scan state goes to disk (a restart reads only what changed), its tree under a ref (gc keeps what it names). */
  private async saveState(scan: ScanState, tree: string): Promise<void> {
    const saved: SavedState = {
      v: 1,
      startedAtNs: scan.startedAtNs,
      files: [...scan.files.values()].map((f) => [f.path, f.mode, f.sha, f.size, f.mtimeNs, f.ctimeNs, f.ino]),
      rules: [...scan.ignoreRules],
    };
    const file = join(this.dir, 'scan-state.json');
    await writeFile(`${file}.tmp`, JSON.stringify(saved));
    await rename(`${file}.tmp`, file);
    await mkdir(join(this.dir, 'refs'), { recursive: true });
    await writeFile(join(this.dir, 'refs', 'switchboard-scan'), `${tree}\n`);
  }

  /** Keeps a snapshot's objects alive (a ref per checkpoint, written as git writes loose refs). */
  async keep(checkpointId: string, tree: string): Promise<void> {
    // The id names a file under refs/ (on a host, it came over the wire).
    if (!/^[\w-]+$/.test(checkpointId) || !/^[0-9a-f]{40,64}$/.test(tree)) throw new Error(`not a checkpoint to keep: ${checkpointId} ${tree}`);
    const dir = join(this.dir, 'refs', 'switchboard');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, checkpointId), `${tree}\n`);
  }

  async forget(checkpointIds: readonly string[]): Promise<void> {
    if (checkpointIds.length === 0) return;
    await this.init();
    const input = checkpointIds.map((id) => `delete refs/switchboard/${id}\n`).join('');
    await this.git.run(['update-ref', '--stdin'], { input });
  }

  /** Drops objects no checkpoint refers to any more. */
  async gc(): Promise<void> {
    await this.init();
    await this.git.run(['gc', '--quiet', '--prune=now']);
    this.objects.reset();
  }

  async lsTree(tree: string): Promise<Map<string, TreeEntry>> {
    const out = (await this.git.run(['ls-tree', '-r', '-z', '--full-tree', tree])).stdout.toString('utf8');
    const map = new Map<string, TreeEntry>();
    for (const rec of out.split('\0')) {
      if (!rec) continue;
      const tab = rec.indexOf('\t');
      const [mode, , sha] = rec.slice(0, tab).split(' ');
      map.set(rec.slice(tab + 1), { mode: mode!, sha: sha! });
    }
    return map;
  }

  async blob(sha: string): Promise<Buffer> {
    return (await this.objects.readLooseBlob(sha)) ?? (await this.git.run(['cat-file', 'blob', sha])).stdout;
  }

  async sizes(shas: readonly string[]): Promise<Map<string, number>> {
    const map = new Map<string, number>();
    if (shas.length === 0) return map;
    const out = await this.git.text(['cat-file', '--batch-check=%(objectname) %(objectsize)'], `${shas.join('\n')}\n`);
    for (const line of out.split('\n')) {
      const [sha, size] = line.split(' ');
      if (sha && size && /^\d+$/.test(size)) map.set(sha, Number(size));
    }
    return map;
  }

  async hashObject(content: Buffer): Promise<string> {
    return this.objects.write('blob', content);
  }

  /** Three-way merge of texts (git merge-file): the merged text, or null when it conflicts. */
  async mergeText(base: Buffer, ours: Buffer, theirs: Buffer): Promise<Buffer | null> {
    const tmp = join(this.dir, 'merge-tmp');
    await mkdir(tmp, { recursive: true });
    const files = ['current', 'base', 'target'].map((n) => join(tmp, n));
    await Promise.all([writeFile(files[0]!, ours), writeFile(files[1]!, base), writeFile(files[2]!, theirs)]);
    try {
      const out = await this.git.run(['merge-file', '-p', files[0]!, files[1]!, files[2]!], { okCodes: Array.from({ length: 127 }, (_, i) => i + 1) });
      if (out.code < 0 || out.code > 127) throw new Error(`git merge-file failed: ${out.stderr.trim()}`);
      return out.code === 0 ? out.stdout : null;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }

  /** Bytes on disk. */
  async size(): Promise<number> {
    return dirSize(this.dir);
  }

  countFiles(upTo = Infinity): Promise<number> {
    return countFiles(this.folder, this.excludes, upTo);
  }

  async readJournal(): Promise<string[] | null> {
    const text = await readFile(join(this.dir, 'restore-journal.json'), 'utf8').catch(() => null);
    return text === null ? null : (JSON.parse(text) as string[]);
  }

  async writeJournal(paths: readonly string[]): Promise<void> {
    await writeFile(join(this.dir, 'restore-journal.json'), JSON.stringify(paths));
  }

  async clearJournal(): Promise<void> {
    await rm(join(this.dir, 'restore-journal.json'), { force: true });
  }

  remove(): Promise<void> {
    return removeShadow(this.dir);
  }
}

async function dirSize(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const sizes = await Promise.all(
    entries.map(async (e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return dirSize(p);
      return e.isFile() ? (await stat(p).catch(() => ({ size: 0 }))).size : 0;
    }),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

const statTreeOf = (files: readonly StatOnlyFile[]): TreeIndex => new TreeIndex(files.map((f) => ({ path: f.path, mode: '100644' as const, sha: '' })));

function liveOf(scan: ScanResult): LiveState {
  return {
    startedAtNs: scan.startedAtNs,
    files: scan.files,
    ignoreRules: scan.ignoreRules,
    gitDirs: scan.gitDirs ?? new Set(),
    statOnly: new Map(scan.statOnly.map((f) => [f.path, f])),
    sorted: scan.statOnly,
    tree: new TreeIndex(scan.files.values()),
    statTree: statTreeOf(scan.statOnly),
  };
}

/**
 * The state of a full scan, built on the previous one's trees: only the folders whose files differ are
 * marked, so writing the trees hashes those alone (not every folder of the tree again).
 */
function renewed(live: LiveState, scan: ScanResult): LiveState {
  const { tree, statTree } = live;
  for (const path of live.files.keys()) if (!scan.files.has(path)) tree.delete(path);
  for (const f of scan.files.values()) {
    const was = live.files.get(f.path);
    if (!was || was.sha !== f.sha || was.mode !== f.mode) tree.set(f);
  }
  const statOnly = new Map(scan.statOnly.map((f) => [f.path, f]));
  for (const path of live.statOnly.keys()) if (!statOnly.has(path)) statTree.delete(path);
  for (const path of statOnly.keys()) if (!live.statOnly.has(path)) statTree.set({ path, mode: '100644', sha: '' });
  return { startedAtNs: scan.startedAtNs, files: scan.files, ignoreRules: scan.ignoreRules, gitDirs: scan.gitDirs ?? new Set(), statOnly, sorted: scan.statOnly, tree, statTree };
}

/** The previous state with what a scan of some paths found in place of what was under them. */
function merge(live: LiveState, scan: ScanResult & { covered: string[] }): LiveState {
  const covered = new Set(scan.covered);
  const rulesBefore = new Map(live.ignoreRules);
  for (const path of covered) for (const gone of live.tree.delete(path)) live.files.delete(gone);
  const statOnlyGone = new Map<string, StatOnlyFile>();
  for (const path of covered) {
    for (const gone of live.statTree.delete(path)) {
      statOnlyGone.set(gone, live.statOnly.get(gone)!);
      live.statOnly.delete(gone);
    }
  }
  // Most snapshots stat the same hooks again: the sorted list is kept unless one differs.
  const statOnlyChanged =
    statOnlyGone.size !== scan.statOnly.length ||
    scan.statOnly.some((f) => {
      const was = statOnlyGone.get(f.path);
      return !was || was.size !== f.size || was.mtimeMs !== f.mtimeMs || was.ignored !== f.ignored;
    });
  for (const dir of live.ignoreRules.keys()) if (under(dir, covered) || (dir === '' ? covered.has('.gitignore') : covered.has(`${dir}/.gitignore`))) live.ignoreRules.delete(dir);
  for (const dir of live.gitDirs) if (under(dir, covered)) live.gitDirs.delete(dir);
  for (const f of scan.files.values()) {
    live.files.set(f.path, f);
    live.tree.set(f);
  }
  for (const f of scan.statOnly) {
    live.statOnly.set(f.path, f);
    live.statTree.set({ path: f.path, mode: '100644', sha: '' });
  }
  for (const [dir, text] of scan.ignoreRules) live.ignoreRules.set(dir, text);
  for (const dir of scan.gitDirs ?? []) live.gitDirs.add(dir);
  const rulesChanged = rulesBefore.size !== live.ignoreRules.size || [...live.ignoreRules].some(([dir, text]) => rulesBefore.get(dir) !== text);
  const { rulesChanged: _was, ...rest } = live;
  return {
    ...rest,
    startedAtNs: scan.startedAtNs,
    sorted: statOnlyChanged ? null : live.sorted,
    // A .gitignore that changed applies from the next snapshot on, which reads the whole folder by it.
    ...(rulesChanged ? { rulesChanged: true } : {}),
  };
}

/** Paths whose recorded content or stat differs between two states of the same folder. */
function differences(a: LiveState, b: LiveState): string[] {
  const out: string[] = [];
  for (const [path, f] of a.files) {
    const g = b.files.get(path);
    if (!g || g.sha !== f.sha || g.mode !== f.mode) out.push(path);
  }
  for (const path of b.files.keys()) if (!a.files.has(path)) out.push(path);
  for (const [path, f] of a.statOnly) {
    const g = b.statOnly.get(path);
    if (!g || g.size !== f.size || g.mtimeMs !== f.mtimeMs) out.push(path);
  }
  for (const path of b.statOnly.keys()) if (!a.statOnly.has(path)) out.push(path);
  return [...new Set(out)].sort();
}

export async function removeShadow(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await unlink(`${dir}.lock`).catch(() => {});
}
