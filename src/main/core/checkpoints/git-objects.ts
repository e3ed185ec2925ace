import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflate, deflateSync, inflate } from 'node:zlib';

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

export type BlobMode = '100644' | '100755' | '120000';

/** One file of a snapshot, as a git tree records it. */
export interface TreeFile {
  path: string;
  mode: BlobMode;
  sha: string;
}

/** Git's object id (SHA-1) of an object of this type and body. */
export function objectId(type: 'blob' | 'tree', body: Buffer): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
}

/**
 * Writes objects straight into a repository's object store as loose objects (git's documented format:
 * zlib of "<type> <size>\0<body>", at objects/xx/yyyy…). The snapshot engine hashes the bytes it read
 * itself, so git never reads the user's folder; git's own `gc` packs these later.
 */
export class LooseObjects {
  /** Objects known to be in the store (written by this process). */
  private readonly known = new Set<string>();
  private readonly dirs = new Set<string>();

  constructor(private readonly gitDir: string) {}

  async write(type: 'blob' | 'tree', body: Buffer): Promise<string> {
    const sha = objectId(type, body);
    if (this.known.has(sha)) return sha;
    const dir = join(this.gitDir, 'objects', sha.slice(0, 2));
    const file = join(dir, sha.slice(2));
    // An object already there is written again with the same bytes (cheaper than asking first).
    if (!this.dirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.dirs.add(dir);
    }
    const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
    const tmp = join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
    if (raw.length <= 64 * 1024) {
      // Small objects (most source files, every tree) are deflated and written in place, into our own data
      // folder: far cheaper than three thread-pool trips each, which a loaded machine makes slow.
      try {
        writeFileSync(tmp, deflateSync(raw, { level: 1 }), { mode: 0o444 });
        renameSync(tmp, file);
      } catch (e) {
        rmSync(tmp, { force: true });
        throw e;
      }
    } else {
      await writeFile(tmp, await deflateAsync(raw, { level: 1 }), { mode: 0o444 });
      await rename(tmp, file).catch(async (e: unknown) => {
        await unlink(tmp).catch(() => {});
        throw e;
      });
    }
    this.known.add(sha);
    return sha;
  }

  /** A loose blob's body, or null when it is not a loose object (git's gc may have packed it). */
  async readLooseBlob(sha: string): Promise<Buffer | null> {
    if (!/^[0-9a-f]{40}$/.test(sha)) return null;
    const raw = await readFile(join(this.gitDir, 'objects', sha.slice(0, 2), sha.slice(2))).catch(() => null);
    if (!raw) return null;
    const data = await inflateAsync(raw);
    const nul = data.indexOf(0);
    if (nul < 0 || !data.subarray(0, nul).toString('latin1').startsWith('blob ')) return null;
    return data.subarray(nul + 1);
  }

  /** Forgets what was written (after a gc, objects may be gone). */
  reset(): void {
    this.known.clear();
    this.dirs.clear();
  }
}

interface DirNode {
  files: Map<string, { mode: BlobMode; sha: string }>;
  dirs: Map<string, DirNode>;
  /** Its tree's id as last written; null once something under it changed. */
  sha: string | null;
}

/** Git orders a tree's entries by name bytes, a folder's name compared as if it ended in '/'. */
const sortKey = (name: string, isDir: boolean): Buffer => Buffer.from(isDir ? `${name}/` : name, 'utf8');

const emptyDir = (): DirNode => ({ files: new Map(), dirs: new Map(), sha: null });

/**
 * The folders of a snapshot as git trees, kept between snapshots: a change marks the folders above it, and
 * writing again hashes only those (a snapshot of 10 changed files among 100,000 writes a few trees, not all).
 */
export class TreeIndex {
  private readonly root: DirNode = emptyDir();

  constructor(files: Iterable<TreeFile> = []) {
    for (const f of files) this.set(f);
  }

  /** The folders down to `parts` (created when `make`), or null. */
  private walk(parts: readonly string[], make: boolean): DirNode[] | null {
    const chain = [this.root];
    for (const part of parts) {
      let next = chain.at(-1)!.dirs.get(part);
      if (!next) {
        if (!make) return null;
        next = emptyDir();
        chain.at(-1)!.dirs.set(part, next);
      }
      chain.push(next);
    }
    return chain;
  }

  set(f: TreeFile): void {
    const parts = f.path.split('/');
    const chain = this.walk(parts.slice(0, -1), true)!;
    for (const node of chain) node.sha = null;
    chain.at(-1)!.files.set(parts.at(-1)!, { mode: f.mode, sha: f.sha });
  }

  /** Removes the file at `path`, or everything under the folder at `path`; the paths of the files removed. */
  delete(path: string): string[] {
    const parts = path.split('/');
    const chain = this.walk(parts.slice(0, -1), false);
    if (!chain) return [];
    const parent = chain.at(-1)!;
    const name = parts.at(-1)!;
    const removed: string[] = [];
    if (parent.files.delete(name)) removed.push(path);
    const dir = parent.dirs.get(name);
    if (dir) {
      parent.dirs.delete(name);
      const collect = (node: DirNode, at: string) => {
        for (const f of node.files.keys()) removed.push(`${at}/${f}`);
        for (const [n, d] of node.dirs) collect(d, `${at}/${n}`);
      };
      collect(dir, path);
    }
    if (removed.length > 0 || dir) for (const node of chain) node.sha = null;
    return removed;
  }

  /** Writes the trees that changed since the last write; the root tree's id. */
  async write(objects: LooseObjects): Promise<string> {
    const write = async (node: DirNode): Promise<string | null> => {
      if (node.sha) return node.sha;
      const entries: Array<{ key: Buffer; mode: string; name: string; sha: string }> = [];
      for (const [name, f] of node.files) entries.push({ key: sortKey(name, false), mode: f.mode, name, sha: f.sha });
      const subs = await Promise.all([...node.dirs].map(async ([name, d]) => ({ name, sha: await write(d) })));
      for (const { name, sha } of subs) {
        // A folder left with no file is no tree (as a scan of the folder would find it).
        if (sha === null) node.dirs.delete(name);
        else entries.push({ key: sortKey(name, true), mode: '40000', name, sha });
      }
      if (entries.length === 0 && node !== this.root) return null;
      entries.sort((a, b) => Buffer.compare(a.key, b.key));
      const body = Buffer.concat(entries.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`, 'utf8'), Buffer.from(e.sha, 'hex')]));
      node.sha = await objects.write('tree', body);
      return node.sha;
    };
    return (await write(this.root))!;
  }
}

/** Writes the tree objects of a list of files (folders come from the paths) and returns the root tree's id. */
export async function writeTrees(objects: LooseObjects, files: readonly TreeFile[]): Promise<string> {
  return new TreeIndex(files).write(objects);
}
