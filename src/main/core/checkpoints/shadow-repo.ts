import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scanFolder, type ScannedFile, type ScanState, type StatOnlyFile } from './folder-scan';
import { LooseObjects, writeTrees } from './git-objects';
import { ShadowGit } from './shadow-git';
import type { Host } from '../host/host';

/** A file recorded by size and time only: over the size cap, or ignored (`ignored`: content not kept). */
export type LargeFile = StatOnlyFile;

export interface Snapshot {
  tree: string;
  large: LargeFile[];
}

export interface TreeEntry {
  mode: string;
  sha: string;
}

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
export class ShadowRepo {
  readonly git: ShadowGit;
  private readonly objects: LooseObjects;
  private excludes: string[] = [];
  private ready: Promise<void> | null = null;
  /** What the last snapshot saw (ignore rules, stat of every kept file). */
  private state: ScanState | null = null;

  constructor(
    readonly dir: string,
    readonly folder: string,
    private maxFileBytes: number,
    excludes: readonly string[],
    host: Host,
  ) {
    this.git = new ShadowGit(dir, host);
    this.objects = new LooseObjects(dir);
    this.excludes = [...excludes];
  }

  async configure(maxFileBytes: number, excludes: readonly string[]): Promise<void> {
    this.maxFileBytes = maxFileBytes;
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

  /** Records the folder as it is now. Callers serialize snapshots of one folder. */
  async snapshot(): Promise<Snapshot> {
    await this.init();
    const scan = await scanFolder({ root: this.folder, maxFileBytes: this.maxFileBytes, excludes: this.excludes, previous: this.state, objects: this.objects });
    const tree = await writeTrees(this.objects, [...scan.files.values()]);
    await this.saveState(scan, tree);
    this.state = scan;
    return { tree, large: scan.statOnly };
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
    const dir = join(this.dir, 'refs', 'switchboard');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, checkpointId), `${tree}\n`);
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

export async function removeShadow(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await unlink(`${dir}.lock`).catch(() => {});
}
