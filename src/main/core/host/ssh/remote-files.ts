import { FsRefusal, type ConfinedFiles, type DirEntry, type FileInfo, type ReadOptions, type WriteOptions } from '../files';

/** Sends one file operation to the helper, which runs it in its own ConfinedFs (the local host's code). */
export type FsCall = (roots: readonly string[], method: string, args: unknown[]) => Promise<unknown>;

/**
 * Confined file access on an SSH host: every operation is checked and done on the host, at the moment it
 * acts, by the same code that confines local sessions (shipped in the helper). A lost connection is a refusal too.
 */
export class RemoteFiles implements ConfinedFiles {
  constructor(
    readonly roots: readonly string[],
    private readonly call: FsCall,
  ) {}

  contains(real: string): boolean {
    return this.roots.some((r) => real === r || real.startsWith(r.endsWith('/') ? r : `${r}/`));
  }

  private async run<T>(method: string, ...args: unknown[]): Promise<T> {
    try {
      return (await this.call(this.roots, method, args)) as T;
    } catch (e) {
      if (e instanceof FsRefusal) throw e;
      throw new FsRefusal('io', `refused: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  resolve(path: unknown): Promise<{ real: string; exists: boolean }> {
    return this.run('resolve', path);
  }
  stat(path: unknown): Promise<FileInfo> {
    return this.run('stat', path);
  }
  listDir(path: unknown): Promise<DirEntry[]> {
    return this.run('listDir', path);
  }
  readFile(path: unknown, options: ReadOptions): Promise<{ real: string; data: Buffer }> {
    return this.run('readFile', path, options);
  }
  readFileIfExists(path: unknown, options: ReadOptions): Promise<{ real: string; data: Buffer } | null> {
    return this.run('readFileIfExists', path, options);
  }
  writeFile(path: unknown, data: string | Buffer, options?: WriteOptions): Promise<{ real: string }> {
    return this.run('writeFile', path, data, options ?? {});
  }
  removeFile(path: unknown): Promise<boolean> {
    return this.run('removeFile', path);
  }
  placeFile(rel: string, data: Buffer, mode: number): Promise<void> {
    return this.run('placeFile', rel, data, mode);
  }
  placeSymlink(rel: string, target: string): Promise<void> {
    return this.run('placeSymlink', rel, target);
  }
  removeEntry(rel: string): Promise<boolean> {
    return this.run('removeEntry', rel);
  }
  hasEntry(rel: string): Promise<boolean> {
    return this.run('hasEntry', rel);
  }
  removeTempFiles(rels: readonly string[]): Promise<void> {
    return this.run('removeTempFiles', [...rels]);
  }
}
