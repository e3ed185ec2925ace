import type { GitOutput } from './shadow-git';
import type { FolderChanges } from './folder-changes';
import type { StatOnlyFile } from './folder-scan';

/** A file recorded by size and time only: over the size cap, or ignored (`ignored`: content not kept). */
export type LargeFile = StatOnlyFile;

export interface Snapshot {
  tree: string;
  large: LargeFile[];
  /** How it was taken: 'full' (the whole folder read, and why) or 'changes' (only what the watch reported). */
  how: { kind: 'full'; reason: string } | { kind: 'changes'; paths: number };
  /** Paths the watch did not report that the verification found changed (only with `verify`). */
  missed: string[];
  /** Files recorded (kept and by stat). */
  files: number;
  /**
   * With `wentAt`: paths the snapshot saw changed, or could not read, after the moment the turn went ahead
   * (their recorded state may already be the turn's). Absent where the store cannot tell (a remote host).
   */
  unsure?: string[];
}

export interface SnapshotOptions {
  /**
   * What changed since the last snapshot; without it, what the store's own watch (watch()) reported, and
   * with neither the whole folder is read.
   */
  changes?: FolderChanges;
  /** Keeps the snapshot under this checkpoint id (as keep() does), in the same call. */
  keep?: string;
  /** After reading only the changes, read the whole folder's stat too, and take what the watch missed. */
  verify?: boolean;
  onProgress?: (files: number) => void;
  /**
   * When the turn this snapshot is the "before" of went ahead without it (ns since the epoch), else null:
   * what is read after that moment is checked by its ctime (not sent to a remote host).
   */
  wentAt?: () => bigint | null;
  /** Called as the snapshot starts reading the whole folder (not from a remote host). */
  onFullRead?: () => void;
}

export interface TreeEntry {
  mode: string;
  sha: string;
}

/**
 * What checkpoints need of a folder's shadow repository, wherever it lives: a ShadowRepo beside a folder on
 * this machine, or one run by the helper on the folder's SSH host (remote-shadow.ts), so that the folder is
 * read, hashed and stored there and only what a review or a restore needs travels.
 */
export interface ShadowStore {
  /** Where it is kept, on its host. */
  readonly dir: string;
  /** git on the shadow repository (no work tree: git never reads the folder). */
  readonly git: {
    run(args: string[], options?: { input?: Buffer | string; okCodes?: number[] }): Promise<GitOutput>;
    text(args: string[], input?: string): Promise<string>;
  };
  configure(maxFileBytes: number, excludes: readonly string[]): Promise<void>;
  /** Records the folder as it is now (see ShadowRepo.snapshot). */
  snapshot(options?: SnapshotOptions): Promise<Snapshot>;
  /**
   * Watches the folder from now on, where the store runs (beside the folder's files), so that snapshots read
   * only what changed; `ignore`: paths not reported. Stays until unwatch() (or a snapshot finds it missed a change).
   */
  watch(ignore: readonly string[]): void;
  unwatch(): void;
  /** Changes the watch reported that no snapshot has taken yet. */
  reported(): Promise<string[]>;
  /** Writes the last snapshot's scan state (a restart's first snapshot then reads only what changed). */
  flush(): Promise<void>;
  keep(checkpointId: string, tree: string): Promise<void>;
  forget(checkpointIds: readonly string[]): Promise<void>;
  gc(): Promise<void>;
  lsTree(tree: string): Promise<Map<string, TreeEntry>>;
  blob(sha: string): Promise<Buffer>;
  sizes(shas: readonly string[]): Promise<Map<string, number>>;
  hashObject(content: Buffer): Promise<string>;
  /** Three-way merge of texts (git merge-file): the merged text, or null when it conflicts. */
  mergeText(base: Buffer, ours: Buffer, theirs: Buffer): Promise<Buffer | null>;
  /** Bytes on disk. */
  size(): Promise<number>;
  /** About how many files a snapshot records (progress only; counted up to `upTo`). */
  countFiles(upTo?: number): Promise<number>;
  /** The paths a restore under way is touching (null: none), so that one cut short is cleaned up. */
  readJournal(): Promise<string[] | null>;
  writeJournal(paths: readonly string[]): Promise<void>;
  clearJournal(): Promise<void>;
  /** Deletes it (the folder's checkpoints are gone). */
  remove(): Promise<void>;
}
