import type { Disposable } from '../../base/lifecycle';
import type { ConfinedFiles } from '../files';
import type { FileList, GitOptions, GitResult, Host, HostProcess, HostPty, ListFilesOptions, PtyOptions, SpawnOptions, WatchEvent, WatchOptions } from '../host';
import { ConfinedFs } from './confined-fs';
import { listLocalFiles } from './list-files';
import { runLocalGit } from './local-git';
import { LocalProcess } from './local-process';
import { LocalPty } from './local-pty';
import { watchLocal } from './local-watch';

/** This machine: child_process, node-pty, the file system and the git on PATH. */
export class LocalHost implements Host {
  readonly id = 'local';

  spawn(argv: readonly string[], options: SpawnOptions): HostProcess {
    return new LocalProcess(argv, options);
  }

  openPty(argv: readonly string[], options: PtyOptions): HostPty {
    return new LocalPty(argv, options);
  }

  files(roots: readonly string[]): Promise<ConfinedFiles> {
    return ConfinedFs.open(roots);
  }

  git(args: readonly string[], options?: GitOptions): Promise<GitResult> {
    return runLocalGit(args, options);
  }

  listFiles(root: string, options: ListFilesOptions): Promise<FileList> {
    return listLocalFiles(root, options);
  }

  watch(root: string, onEvent: (event: WatchEvent) => void, options?: WatchOptions): Promise<Disposable> {
    return watchLocal(root, onEvent, options);
  }
}
