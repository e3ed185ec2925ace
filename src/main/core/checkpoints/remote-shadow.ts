import type { GitOutput } from './shadow-git';
import type { Snapshot, SnapshotOptions, TreeEntry } from './shadow-store';
import type { ShadowStore } from './shadow-store';

/** One call to a folder's shadow repository in a host's helper (shadow-helper.ts answers it). */
export interface ShadowCall {
  /** The folder's checkpoint id (its repository's name on the host). */
  id: string;
  folder: string;
  maxFileBytes: number;
  excludes: string[];
  /** The folder is watched (the ignore list): the helper's watch of it runs, started again by a restarted helper. */
  watch?: string[];
  m: string;
  args: unknown[];
}

/** The name the helper knows the shadow repositories' calls by. */
export const SHADOW_SERVICE = 'checkpoints.shadow';

/**
 * A folder's shadow repository kept on the folder's SSH host, run there by the helper (shadow-helper.ts):
 * snapshots read, hash and store the folder on the host, from the host's own watch of it (neither the watch's
 * changes nor the tree travel), and only what a review or a restore asks for comes back (a diff's two texts,
 * a tree listing).
 */
export class RemoteShadowStore implements ShadowStore {
  readonly git: ShadowStore['git'];
  /** What the folder's watch on the host ignores, while it is watched (each call says it). */
  private watching: string[] | null = null;

  constructor(
    private readonly call: (c: ShadowCall, onNote?: (note: unknown) => void) => Promise<unknown>,
    private readonly id: string,
    readonly folder: string,
    private maxFileBytes: number,
    private excludes: readonly string[],
    /** Where it is kept on the host, for messages (the helper names it). */
    readonly dir: string,
  ) {
    this.git = {
      run: (args, options = {}) => this.ask('git', args, options) as Promise<GitOutput>,
      text: async (args, input) => ((await this.ask('git', args, input === undefined ? {} : { input })) as GitOutput).stdout.toString('utf8'),
    };
  }

  private ask(m: string, ...args: unknown[]): Promise<unknown> {
    return this.askWithNotes(m, args);
  }

  private askWithNotes(m: string, args: unknown[], onNote?: (note: unknown) => void): Promise<unknown> {
    const watch = this.watching ? { watch: this.watching } : {};
    return this.call({ id: this.id, folder: this.folder, maxFileBytes: this.maxFileBytes, excludes: [...this.excludes], ...watch, m, args }, onNote);
  }

  async configure(maxFileBytes: number, excludes: readonly string[]): Promise<void> {
    this.maxFileBytes = maxFileBytes;
    this.excludes = [...excludes];
    await this.ask('configure', maxFileBytes, excludes);
  }

  /**
   * One request: the host's watch says what changed (its sync file is written and reported there, beside the
   * folder), the snapshot reads that, keeps it; the tree id and the large files come back, and the files
   * recorded so far while it runs (progress).
   */
  snapshot(options: SnapshotOptions = {}): Promise<Snapshot> {
    // The moment a turn went is this machine's: the host's snapshot cannot tell what it read after it.
    const { onProgress, wentAt: _went, onFullRead: _full, ...o } = options;
    const note = onProgress ? (n: unknown) => typeof n === 'number' && onProgress(n) : undefined;
    return this.askWithNotes('snapshot', [{ ...o, ...(onProgress ? { progress: true } : {}) }], note) as Promise<Snapshot>;
  }

  /** The host's watch starts with the next call (every call says the folder is watched). */
  watch(ignore: readonly string[]): void {
    this.watching = [...ignore];
  }

  unwatch(): void {
    if (!this.watching) return;
    this.watching = null;
    this.ask('unwatch').catch(() => {});
  }

  reported(): Promise<string[]> {
    return this.ask('reported') as Promise<string[]>;
  }

  async flush(): Promise<void> {
    await this.ask('flush');
  }

  async keep(checkpointId: string, tree: string): Promise<void> {
    await this.ask('keep', checkpointId, tree);
  }

  async forget(checkpointIds: readonly string[]): Promise<void> {
    await this.ask('forget', checkpointIds);
  }

  async gc(): Promise<void> {
    await this.ask('gc');
  }

  async lsTree(tree: string): Promise<Map<string, TreeEntry>> {
    return new Map((await this.ask('lsTree', tree)) as Array<[string, TreeEntry]>);
  }

  blob(sha: string): Promise<Buffer> {
    return this.ask('blob', sha) as Promise<Buffer>;
  }

  async sizes(shas: readonly string[]): Promise<Map<string, number>> {
    return new Map((await this.ask('sizes', shas)) as Array<[string, number]>);
  }

  hashObject(content: Buffer): Promise<string> {
    return this.ask('hashObject', content) as Promise<string>;
  }

  mergeText(base: Buffer, ours: Buffer, theirs: Buffer): Promise<Buffer | null> {
    return this.ask('mergeText', base, ours, theirs) as Promise<Buffer | null>;
  }

  size(): Promise<number> {
    return this.ask('size') as Promise<number>;
  }

  countFiles(upTo?: number): Promise<number> {
    return this.ask('countFiles', upTo ?? null) as Promise<number>;
  }

  readJournal(): Promise<string[] | null> {
    return this.ask('readJournal') as Promise<string[] | null>;
  }

  async writeJournal(paths: readonly string[]): Promise<void> {
    await this.ask('writeJournal', paths);
  }

  async clearJournal(): Promise<void> {
    await this.ask('clearJournal');
  }

  async remove(): Promise<void> {
    await this.ask('remove');
  }
}
