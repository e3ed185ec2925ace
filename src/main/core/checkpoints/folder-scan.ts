/**
 * Reads a session folder for a snapshot with the same confinement as an agent's fs/read_text_file, at the
 * moment of reading: git never walks the user's folder.
 *
 * - Every folder is opened from the one above it with O_DIRECTORY|O_NOFOLLOW (Linux: through
 *   /proc/self/fd/N, so the walk stays in the inode it holds whatever is swapped on the path) and checked to
 *   be inside the root; every file is opened in its held folder with O_NOFOLLOW|O_NONBLOCK, fstat'ed (only a
 *   regular file is read: a FIFO or device never blocks) and checked again to be inside the root. Symlinks
 *   are recorded as links (their target text), never followed. Elsewhere than Linux the folder is addressed
 *   by path and re-verified (real path, dev/ino) after each read.
 * - What counts as ignored comes from the state before the scan (the .gitignore files the previous snapshot
 *   read, and the user's exclude list): a .gitignore a turn writes cannot hide what that turn did. Ignored
 *   files are recorded by path, size and time only (content not kept), unless an earlier snapshot already
 *   kept their content (as git, ignore rules apply to new files only). The user's exclude list is never
 *   walked at all.
 * - A `.git` entry is never read: its hooks, config and info files are recorded by size and time, so a turn
 *   that plants a hook is seen.
 * - A file whose stat (size, mtime, ctime, inode) matches the previous snapshot, and whose ctime was
 *   comfortably before that snapshot began (no write could have kept the same ctime), is not read again.
 */
import { constants, existsSync, lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { lstat, open, readdir, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { TEMP_PREFIX } from '../host/files';
import type { BlobMode, LooseObjects, TreeFile } from './git-objects';

/** A file recorded by size and time only: over the size cap, or ignored (then `ignored`). */
export interface StatOnlyFile {
  path: string;
  size: number;
  mtimeMs: number;
  ignored?: boolean;
}

/** A file whose content the snapshot keeps, with the stat it was read under. */
export interface ScannedFile extends TreeFile {
  size: number;
  mtimeNs: string;
  ctimeNs: string;
  ino: string;
}

/** What a scan saw; the next scan reuses it. */
export interface ScanState {
  /** When the scan began (ns since the epoch). */
  startedAtNs: string;
  files: Map<string, ScannedFile>;
  /** The .gitignore texts read, by folder ('' is the root). */
  ignoreRules: Map<string, string>;
  /** The `.git` entries met (absent from a state saved by an older version). */
  gitDirs?: Set<string>;
}

export interface ScanResult extends ScanState {
  statOnly: StatOnlyFile[];
  /** Paths seen changed, or gone, after `wentAt` (see ScanOptions). */
  unsure: string[];
}

export interface ScanOptions {
  /** The folder, a real path. */
  root: string;
  maxFileBytes: number;
  /** The user's exclude list (gitignore patterns): never walked. */
  excludes: readonly string[];
  /** The previous scan's state, or null for a first snapshot (then the folder's own .gitignore files apply). */
  previous: ScanState | null;
  objects: LooseObjects;
  /** Tests only: runs between listing a name and opening it (to swap it there). */
  beforeOpen?: (path: string) => Promise<void> | void;
  /**
   * The moment (ns since the epoch) a turn went ahead of this scan, else null. What the scan reads after it
   * is exact when its ctime is older than that moment (a write sets the ctime, and no call sets it back);
   * otherwise, or when a listed name is gone by the time it is read, its path is `unsure`.
   */
  wentAt?: () => bigint | null;
  /** Told now and then how many files the scan has recorded so far. */
  onProgress?: (files: number) => void;
}

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd') ? '/proc/self/fd' : null;
/** Files of one folder read at a time. */
const PARALLEL = 16;
/** A file changed this close to a scan's start may change again under the same ctime (coarse clocks). */
const RACY_NS = 2_000_000_000n;
/** A ctime this close before a turn went ahead may be the turn's (coarse file system clocks, a server's clock). */
const WENT_MARGIN_NS = 1_000_000_000n;
/** Of a `.git` folder, what is recorded (never its objects, refs or index). */
const GIT_KEPT = new Set(['config', 'hooks', 'info', 'commondir', 'gitdir']);

/** Gitignore rules as the scan reads them (the `ignore` package: gitignore semantics). */
const matcherCache = new Map<string, Ignore>();
function matcherOf(text: string): Ignore {
  let m = matcherCache.get(text);
  if (!m) {
    m = ignore({ allowRelativePaths: true }).add(text);
    if (matcherCache.size > 200) matcherCache.clear();
    matcherCache.set(text, m);
  }
  return m;
}

interface Rules {
  base: string;
  ig: Ignore;
}

/** Deeper .gitignore files override shallower ones; in each, the last matching line wins. */
function isIgnored(rules: readonly Rules[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const r of rules) {
    const rel = r.base === '' ? path : path.slice(r.base.length + 1);
    try {
      const t = r.ig.test(isDir ? `${rel}/` : rel);
      if (t.ignored) ignored = true;
      else if (t.unignored) ignored = false;
    } catch {
      // A name the matcher cannot take is not ignored (captured: the honest side).
    }
  }
  return ignored;
}

/** A folder held open while its entries are read. */
interface HeldDir {
  fh: FileHandle;
  /** The absolute path it had when opened (for messages and the non-Linux checks). */
  path: string;
  child(name: string): string;
}

async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

class Scan {
  readonly files = new Map<string, ScannedFile>();
  readonly statOnly: StatOnlyFile[] = [];
  readonly ignoreRules = new Map<string, string>();
  readonly startedAtNs = BigInt(Date.now()) * 1_000_000n;
  private readonly excluded: Ignore;
  private readonly rootPrefix: string;

  constructor(private readonly o: ScanOptions) {
    this.excluded = ignore({ allowRelativePaths: true }).add([`${TEMP_PREFIX}*`, ...o.excludes]);
    this.rootPrefix = o.root.endsWith(sep) ? o.root : o.root + sep;
  }

  readonly unsure = new Set<string>();

  /** After the turn went ahead: `path` is unsure unless its ctime (undefined: it could not be read) is older. */
  private afterGo(path: string, ctimeNs?: bigint): void {
    const went = this.o.wentAt?.() ?? null;
    if (went !== null && (ctimeNs === undefined || ctimeNs + WENT_MARGIN_NS >= went)) this.unsure.add(path === '' ? '.' : path);
  }

  private inside(real: string): boolean {
    return isAbsolute(real) && (real === this.o.root || real.startsWith(this.rootPrefix));
  }

  private isExcluded(path: string, isDir: boolean): boolean {
    // Without an exclude list only the temporary names are left out (a name check, not a pattern match).
    if (this.o.excludes.length === 0) return path.slice(path.lastIndexOf('/') + 1).startsWith(TEMP_PREFIX);
    try {
      return this.excluded.ignores(isDir ? `${path}/` : path);
    } catch {
      return false;
    }
  }

  /** Opens a folder with no link followed; null when it is not (or no longer) a folder inside the root. */
  private async hold(path: string, parent: HeldDir | null, name: string): Promise<HeldDir | null> {
    const target = parent ? parent.child(name) : path;
    let fh: FileHandle;
    try {
      fh = await open(target, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (e) {
      if (!parent) throw e;
      return null;
    }
    const held: HeldDir = PROC_FD ? { fh, path, child: (n) => `${PROC_FD}/${fh.fd}/${n}` } : { fh, path, child: (n) => join(path, n) };
    if (!(await this.stillInside(held))) {
      await fh.close().catch(() => {});
      if (!parent) throw new Error(`${path} moved while it was being read`);
      return null;
    }
    return held;
  }

  /** Whether a held folder is (still) inside the root, where its path says. */
  private async stillInside(held: HeldDir): Promise<boolean> {
    if (PROC_FD) return this.inside(await readlink(`${PROC_FD}/${held.fh.fd}`).catch(() => ''));
    const [real, now, mine] = await Promise.all([realpath(held.path).catch(() => ''), lstat(held.path).catch(() => null), held.fh.stat()]);
    return real === held.path && this.inside(real) && now !== null && now.dev === mine.dev && now.ino === mine.ino;
  }

  async run(): Promise<void> {
    const root = await this.hold(this.o.root, null, '');
    try {
      await this.walk(root!, '', [], false);
    } finally {
      await root!.fh.close().catch(() => {});
    }
  }

  /*
   * Listing a folder and lstat'ing a name never block on what the name is (a FIFO, a device) and take
   * microseconds: they run synchronously, in slices that yield to the event loop, which costs far less than
   * a thread-pool round trip each. Opening and reading a file's content stays asynchronous.
   */
  private sinceYield = 0;

  private async breathe(): Promise<void> {
    if (++this.sinceYield < 256) return;
    this.sinceYield = 0;
    this.o.onProgress?.(this.files.size + this.statOnly.length);
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** `.git` folders met (their hooks and config are stat-recorded at every snapshot: the watch skips them). */
  readonly gitDirs = new Set<string>();

  /**
   * Reads only `paths` (relative; changed since the previous scan, as the watch said) and what is under
   * them, each folder opened from the root down as the full walk opens it, with the ignore rules the full
   * walk would apply there. Known `.git` folders are stat-recorded again whatever the paths.
   */
  async runPaths(paths: readonly string[], gitDirs: Iterable<string>): Promise<void> {
    const root = (await this.hold(this.o.root, null, ''))!;
    const held: HeldDir[] = [];
    type Place = { held: HeldDir; rules: readonly Rules[]; ignored: boolean } | null;
    const places = new Map<string, Promise<Place>>();
    const previous = this.o.previous!;
    const rulesAt = (rel: string, parent: readonly Rules[], ignored: boolean): readonly Rules[] => {
      const applied = ignored ? undefined : previous.ignoreRules.get(rel);
      return applied ? [...parent, { base: rel, ig: matcherOf(applied) }] : parent;
    };
    places.set('', Promise.resolve({ held: root, rules: rulesAt('', [], false), ignored: false }));
    const place = (rel: string): Promise<Place> => {
      let known = places.get(rel);
      if (!known) {
        known = (async (): Promise<Place> => {
          const cut = rel.lastIndexOf('/');
          const name = rel.slice(cut + 1);
          const parent = await place(cut < 0 ? '' : rel.slice(0, cut));
          if (!parent || name === '.git') return null;
          const st = await this.lstatOf(parent.held.child(name));
          if (!st?.isDirectory() || this.isExcluded(rel, true)) return null;
          const ignored = parent.ignored || isIgnored(parent.rules, rel, true);
          const dir = await this.hold(join(parent.held.path, name), parent.held, name);
          if (!dir) return null;
          held.push(dir);
          return { held: dir, rules: rulesAt(rel, parent.rules, ignored), ignored };
        })();
        places.set(rel, known);
      }
      return known;
    };
    try {
      const git = new Set(gitDirs);
      // Each path's stat first (in parallel), then the folders among them walked, then the rest read (in parallel).
      type Seen = { path: string; name: string; parent: NonNullable<Place>; st: BigIntStats };
      const seen: Seen[] = [];
      await mapLimit([...new Set(paths)].sort(), PARALLEL, async (path) => {
        const parts = path.split('/');
        const g = parts.indexOf('.git');
        if (g >= 0) {
          git.add(parts.slice(0, g + 1).join('/'));
          return;
        }
        if (this.isExcluded(path, false)) return;
        const cut = path.lastIndexOf('/');
        const parent = await place(cut < 0 ? '' : path.slice(0, cut));
        if (!parent) return;
        const name = path.slice(cut + 1);
        const st = await this.lstatOf(parent.held.child(name));
        if (st && !this.isExcluded(path, st.isDirectory())) seen.push({ path, name, parent, st });
        else if (!st) this.afterGo(path);
      });
      seen.sort((a, b) => (a.path < b.path ? -1 : 1));
      const walked: string[] = [];
      const isWalked = (path: string) => walked.some((w) => path.startsWith(`${w}/`));
      for (const { path, name, parent, st } of seen) {
        if (!st.isDirectory() || isWalked(path)) continue;
        walked.push(path);
        const ignored = parent.ignored || isIgnored(parent.rules, path, true);
        const dir = await this.hold(join(parent.held.path, name), parent.held, name);
        if (!dir) continue;
        try {
          await this.walk(dir, path, parent.rules, ignored);
        } finally {
          await dir.fh.close().catch(() => {});
        }
      }
      await mapLimit(
        seen.filter((x) => !x.st.isDirectory() && !isWalked(x.path)),
        PARALLEL,
        async ({ path, name, parent, st }) => {
          const ignored = parent.ignored || isIgnored(parent.rules, path, false);
          if (st.isFile()) {
            if (name === '.gitignore' && !parent.ignored) {
              const text = await this.file(parent.held, name, path, false, true, st);
              const cut = path.lastIndexOf('/');
              if (text) this.ignoreRules.set(cut < 0 ? '' : path.slice(0, cut), text.toString('utf8'));
            } else await this.file(parent.held, name, path, ignored, false, st);
          } else if (st.isSymbolicLink()) await this.link(parent.held, name, path, ignored, st);
        },
      );
      for (const dir of [...git].sort()) {
        if (this.gitDirs.has(dir) || walked.some((w) => dir.startsWith(`${w}/`))) continue;
        const cut = dir.lastIndexOf('/');
        const parent = await place(cut < 0 ? '' : dir.slice(0, cut));
        const st = parent ? await this.lstatOf(parent.held.child('.git')) : null;
        if (parent && st) await this.gitEntry(parent.held, '.git', dir, st);
      }
    } finally {
      for (const dir of held) await dir.fh.close().catch(() => {});
      await root.fh.close().catch(() => {});
    }
  }

  private async names(held: HeldDir): Promise<string[]> {
    await this.breathe();
    return readdirSync(PROC_FD ? `${PROC_FD}/${held.fh.fd}` : held.path);
  }

  private async lstatOf(path: string): Promise<BigIntStats | null> {
    await this.breathe();
    return lstatNow(path);
  }

  private async walk(held: HeldDir, rel: string, parentRules: readonly Rules[], ignoredDir: boolean): Promise<void> {
    const names = await this.names(held).catch(() => [] as string[]);
    // Listed after the turn went: a name it added or removed changed the folder's ctime.
    if (this.o.wentAt?.() != null) this.afterGo(rel, (await held.fh.stat({ bigint: true }).catch(() => null))?.ctimeNs);
    const at = (name: string) => (rel === '' ? name : `${rel}/${name}`);
    let rules = parentRules;
    let gitignoreDone = false;
    if (!ignoredDir) {
      // This folder's .gitignore: read now (kept for the next scan), applied as the previous scan read it.
      let now: string | null = null;
      const st = names.includes('.gitignore') ? await this.lstatOf(held.child('.gitignore')) : null;
      if (st?.isFile() && !this.isExcluded(at('.gitignore'), false)) {
        gitignoreDone = true;
        now = (await this.file(held, '.gitignore', at('.gitignore'), false, true, st))?.toString('utf8') ?? null;
      }
      if (now !== null) this.ignoreRules.set(rel, now);
      const applied = this.o.previous ? (this.o.previous.ignoreRules.get(rel) ?? null) : now;
      if (applied) rules = [...parentRules, { base: rel, ig: matcherOf(applied) }];
    }
    const dirs: Array<{ name: string; ignored: boolean }> = [];
    // Every name's stat first, synchronously (most files are settled by it: unchanged, or ignored and new);
    // then only the rest opened and read, in parallel.
    const reads: Array<{ name: string; path: string; ignored: boolean; st: BigIntStats }> = [];
    for (const name of names) {
      if (name === '.gitignore' && gitignoreDone) continue;
      const path = at(name);
      if (++this.sinceYield >= 256) await this.breathe();
      const st = lstatNow(held.child(name));
      if (!st) this.afterGo(path);
      if (!st || this.isExcluded(path, st.isDirectory())) continue;
      if (name === '.git') {
        await this.gitEntry(held, name, path, st);
        continue;
      }
      const ignored = ignoredDir || isIgnored(rules, path, st.isDirectory());
      if (st.isDirectory()) dirs.push({ name, ignored });
      else if (st.isFile()) {
        if (!this.settledByStat(path, ignored, st)) reads.push({ name, path, ignored, st });
      } else if (st.isSymbolicLink()) reads.push({ name, path, ignored, st });
      // FIFOs, sockets and devices are not files an agent's change could be reviewed in: skipped.
    }
    await mapLimit(reads, PARALLEL, async ({ name, path, ignored, st }) => {
      if (st.isSymbolicLink()) await this.link(held, name, path, ignored, st);
      else await this.file(held, name, path, ignored, false, st);
    });
    for (const { name, ignored } of dirs.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      await this.o.beforeOpen?.(at(name));
      const child = await this.hold(join(held.path, name), held, name);
      if (!child) {
        this.afterGo(at(name));
        continue;
      }
      try {
        await this.walk(child, at(name), rules, ignored);
      } finally {
        await child.fh.close().catch(() => {});
      }
    }
  }

  private recordStatOnly(path: string, st: BigIntStats, ignored: boolean): void {
    this.afterGo(path, st.ctimeNs);
    this.statOnly.push({ path, size: Number(st.size), mtimeMs: Number(st.mtimeNs / 1_000_000n), ...(ignored ? { ignored: true } : {}) });
  }

  /**
   * A regular file: its content read confined and stored (returned when `wantData`), or recorded by
   * stat only (ignored and new, or over the size cap).
   */
  private async file(held: HeldDir, name: string, path: string, ignored: boolean, wantData: boolean, seen?: BigIntStats): Promise<Buffer | null> {
    const prev = this.o.previous?.files.get(path);
    if (seen && (wantData ? seen.size > BigInt(this.o.maxFileBytes) && (this.recordStatOnly(path, seen, ignored), true) : this.settledByStat(path, ignored, seen))) return null;
    await this.o.beforeOpen?.(path);
    let fh: FileHandle;
    try {
      fh = await open(held.child(name), constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch {
      // Gone, swapped for a link (ELOOP), unreadable: the next snapshot sees what it became.
      this.afterGo(path);
      return null;
    }
    try {
      const st = await fh.stat({ bigint: true });
      if (!st.isFile() || (PROC_FD && !this.inside(await readlink(`${PROC_FD}/${fh.fd}`).catch(() => '')))) {
        this.afterGo(path);
        return null;
      }
      if (ignored && !prev && !wantData) {
        this.recordStatOnly(path, st, true);
        return null;
      }
      const data = await readUpTo(fh, Number(st.size), this.o.maxFileBytes + 1);
      if (data.length > this.o.maxFileBytes) {
        this.recordStatOnly(path, st, ignored);
        return null;
      }
      if (!PROC_FD && !(await this.sameFile(held, name, st))) {
        this.afterGo(path);
        return null;
      }
      // Read after the turn went: exact only if no write reached the file before the read ended.
      if (this.o.wentAt?.() != null) this.afterGo(path, (await fh.stat({ bigint: true }).catch(() => null))?.ctimeNs);
      const sha = await this.o.objects.write('blob', data);
      this.files.set(path, { path, mode: modeOf(st), sha, size: Number(st.size), mtimeNs: String(st.mtimeNs), ctimeNs: String(st.ctimeNs), ino: String(st.ino) });
      return data;
    } catch {
      return null;
    } finally {
      await fh.close().catch(() => {});
    }
  }

  /** Without /proc: the held folder is still where it was, and the name still names the inode read. */
  private async sameFile(held: HeldDir, name: string, st: BigIntStats): Promise<boolean> {
    const now = await lstat(held.child(name), { bigint: true }).catch(() => null);
    return now !== null && now.dev === st.dev && now.ino === st.ino && (await this.stillInside(held));
  }

  /**
   * Records a regular file from its stat alone when that is enough (ignored and new, over the size cap, or
   * unchanged since the previous scan); false when its content must be read.
   */
  private settledByStat(path: string, ignored: boolean, st: BigIntStats): boolean {
    const prev = this.o.previous?.files.get(path);
    if ((ignored && !prev) || st.size > BigInt(this.o.maxFileBytes)) {
      this.recordStatOnly(path, st, ignored);
      return true;
    }
    if (!prev || !this.unchanged(prev, st)) return false;
    const mode = modeOf(st);
    this.files.set(path, prev.mode === mode ? prev : { ...prev, mode });
    return true;
  }

  private unchanged(prev: ScannedFile, st: BigIntStats): boolean {
    const previous = this.o.previous!;
    return (
      prev.size === Number(st.size) &&
      prev.mtimeNs === String(st.mtimeNs) &&
      prev.ctimeNs === String(st.ctimeNs) &&
      prev.ino === String(st.ino) &&
      prev.mode !== '120000' &&
      st.ctimeNs + RACY_NS < BigInt(previous.startedAtNs)
    );
  }

  /** A symbolic link, recorded as a link (its target text); never followed. */
  private async link(held: HeldDir, name: string, path: string, ignored: boolean, st: BigIntStats): Promise<void> {
    if (ignored && !this.o.previous?.files.has(path)) return this.recordStatOnly(path, st, true);
    const target = await readlink(held.child(name), { encoding: 'buffer' }).catch(() => null);
    if (this.o.wentAt?.() != null) this.afterGo(path, target ? lstatNow(held.child(name))?.ctimeNs : undefined);
    if (!target) return;
    const sha = await this.o.objects.write('blob', target);
    this.files.set(path, { path, mode: '120000', sha, size: target.length, mtimeNs: String(st.mtimeNs), ctimeNs: String(st.ctimeNs), ino: String(st.ino) });
  }

  /** A `.git` file or folder: its hooks, config and info recorded by stat only; nothing in it is read. */
  private async gitEntry(held: HeldDir, name: string, path: string, st: BigIntStats): Promise<void> {
    this.gitDirs.add(path);
    if (!st.isDirectory()) return this.recordStatOnly(path, st, true);
    const git = await this.hold(join(held.path, name), held, name);
    if (!git) return;
    const statWalk = async (dir: HeldDir, rel: string, top: boolean): Promise<void> => {
      const names = await this.names(dir).catch(() => [] as string[]);
      for (const n of names) {
        if (top && !GIT_KEPT.has(n)) continue;
        const s = await this.lstatOf(dir.child(n));
        if (!s) continue;
        if (s.isDirectory()) {
          const sub = await this.hold(join(dir.path, n), dir, n);
          if (!sub) continue;
          try {
            await statWalk(sub, `${rel}/${n}`, false);
          } finally {
            await sub.fh.close().catch(() => {});
          }
        } else if (s.isFile() || s.isSymbolicLink()) this.recordStatOnly(`${rel}/${n}`, s, true);
      }
    };
    try {
      await statWalk(git, path, true);
    } finally {
      await git.fh.close().catch(() => {});
    }
  }
}

function lstatNow(path: string): BigIntStats | null {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** Git's executable bit is the owner's. */
const modeOf = (st: BigIntStats): BlobMode => ((st.mode & 0o100n) !== 0n ? '100755' : '100644');

/** Up to `max` bytes of an open file, read into a buffer sized by its stat (the size is not trusted: it may grow). */
async function readUpTo(fh: FileHandle, size: number, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  let want = Math.min(size + 1, max);
  while (total < max) {
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(want, max - total)));
    const { bytesRead } = await fh.read(buf, 0, buf.length, null);
    if (bytesRead === 0) break;
    chunks.push(buf.subarray(0, bytesRead));
    total += bytesRead;
    // A regular file reads short only at its end.
    if (bytesRead < buf.length) break;
    want = 1024 * 1024;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

const byPathOrder = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Scans a folder (see the module doc): what is in it now, every byte read confined. */
export async function scanFolder(options: ScanOptions): Promise<ScanResult> {
  const scan = new Scan(options);
  await scan.run();
  scan.statOnly.sort(byPathOrder);
  return { startedAtNs: String(scan.startedAtNs), files: scan.files, ignoreRules: scan.ignoreRules, statOnly: scan.statOnly, gitDirs: scan.gitDirs, unsure: [...scan.unsure].sort() };
}

/** What a scan of some paths found: under each of `covered`, this replaces what the previous scan had. */
export interface PathsScan extends ScanResult {
  covered: string[];
}

/**
 * Scans only `paths` of a folder (relative, as a watch reported them) and what is under them, with the
 * same confinement and rules as scanFolder; `previous` is required (it says which rules apply).
 */
export async function scanPaths(options: ScanOptions & { previous: ScanState; paths: readonly string[] }): Promise<PathsScan> {
  const scan = new Scan(options);
  const known = options.previous.gitDirs ?? new Set<string>();
  await scan.runPaths(options.paths, known);
  scan.statOnly.sort(byPathOrder);
  const covered = [...new Set([...options.paths, ...known, ...scan.gitDirs])];
  return { startedAtNs: String(scan.startedAtNs), files: scan.files, ignoreRules: scan.ignoreRules, statOnly: scan.statOnly, gitDirs: scan.gitDirs, unsure: [...scan.unsure].sort(), covered };
}

/**
 * About how many files a snapshot of the folder records (for its progress only): names listed, no link
 * followed, `.git` folders and the exclude list skipped. Nothing is read, so no confinement is needed.
 */
export async function countFiles(root: string, excludes: readonly string[], upTo = Infinity): Promise<number> {
  const excluded = ignore({ allowRelativePaths: true }).add([`${TEMP_PREFIX}*`, ...excludes]);
  let count = 0;
  const walk = async (dir: string, rel: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (count > upTo) return;
      if (e.name === '.git') continue;
      const path = rel === '' ? e.name : `${rel}/${e.name}`;
      const isDir = e.isDirectory();
      try {
        if (excluded.ignores(isDir ? `${path}/` : path)) continue;
      } catch {
        // counted
      }
      if (isDir) await walk(join(dir, e.name), path);
      else if (e.isFile() || e.isSymbolicLink()) count++;
    }
  };
  await walk(root, '');
  return count;
}
