/**
 * A session's container as the Host its session runs on: the ContainerHost (processes inside, files on the
 * host below) under the session's host id (`container:<key>@<host id>`), with what a session needs beyond it:
 *   - a program or script of the machine below that a custom agent's command names (an absolute path outside
 *     the mounted folders) is copied into the container at the same path before the agent starts, read-only;
 *   - each process started marks the container as used (the idle stop counts from the last use), and an
 *     agent about to start has its container started again when it was stopped.
 */
import type { Disposable } from '../base/lifecycle';
import type { ConfinedFiles, FileList, GitOptions, GitResult, Host, HostProcess, HostPty, ListFilesOptions, PtyOptions, SpawnOptions, WatchEvent, WatchOptions } from '../host/host';
import type { ContainerHost } from './container-host';
import type { Engine } from './engine';
import { requireNode } from './node-check';
import { lastLine, runOnHost } from './run';

const STANDARD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Largest file copied in (a bundled agent script, a static binary). */
const MAX_COPY_BYTES = 256 * 1024 * 1024;

export class SessionContainerHost implements Host {
  readonly id: string;
  /** When a process was last started inside (ms since the epoch). */
  lastUsed = Date.now();
  private readonly copied = new Set<string>();

  constructor(
    readonly container: ContainerHost,
    readonly inner: Host,
    private readonly engine: Engine,
    /** The mounted folders (absolute paths, the same inside). */
    private readonly mounted: readonly string[],
    /** Starts the container again when it was stopped (idle, or from outside). */
    private readonly ensureRunning: () => Promise<void> = async () => {},
  ) {
    this.id = container.id;
    if (container.helperCall) this.helperCall = container.helperCall.bind(container);
  }

  spawn(argv: readonly string[], options: SpawnOptions): HostProcess {
    this.lastUsed = Date.now();
    return this.container.spawn(argv, options);
  }

  openPty(argv: readonly string[], options: PtyOptions): HostPty {
    this.lastUsed = Date.now();
    return this.container.openPty(argv, options);
  }

  files(roots: readonly string[]): Promise<ConfinedFiles> {
    return this.container.files(roots);
  }

  git(args: readonly string[], options?: GitOptions): Promise<GitResult> {
    return this.container.git(args, options);
  }

  listFiles(root: string, options: ListFilesOptions): Promise<FileList> {
    return this.container.listFiles(root, options);
  }

  watch(root: string, onEvent: (event: WatchEvent) => void, options?: WatchOptions): Promise<Disposable> {
    return this.container.watch(root, onEvent, options);
  }

  helperCall?: Host['helperCall'];

  async prepareProgram(argv: readonly string[]): Promise<void> {
    this.lastUsed = Date.now();
    await this.ensureRunning();
    // An npm agent runs through the container's npx: an image without node is named for what it lacks.
    const program = argv[0]?.split('/').pop();
    if (program === 'npx' || program === 'node') await requireNode(this.container, { PATH: STANDARD_PATH });
    for (const file of argv.slice(0, 2)) {
      if (!file.startsWith('/') || file.includes('\0') || this.copied.has(file) || this.mounted.some((m) => file === m || file.startsWith(`${m}/`))) continue;
      if (!(await this.isRegularFile(file))) continue;
      const dir = file.slice(0, file.lastIndexOf('/')) || '/';
      const mkdir = await runOnHost(this.inner, [this.engine.path, 'exec', this.container.containerId, 'mkdir', '-p', '--', dir], { env: this.engine.env, timeoutMs: 60_000 });
      const cp = mkdir.code === 0 ? await runOnHost(this.inner, [this.engine.path, 'cp', '--', file, `${this.container.containerId}:${file}`], { env: this.engine.env, timeoutMs: 300_000 }) : mkdir;
      if (cp.code !== 0) throw new Error(`could not copy ${file} into the container: ${lastLine(cp.stderr) || cp.error || `exit ${cp.code ?? cp.signal}`}`);
      this.copied.add(file);
    }
  }

  /** A regular file of the host below (not a folder, device or link to one), of a size worth copying. */
  private async isRegularFile(file: string): Promise<boolean> {
    const r = await runOnHost(this.inner, ['/bin/sh', '-c', '[ -f "$1" ] && [ ! -L "$1" ] && wc -c < "$1"', 'sh', file], { env: { PATH: '/usr/bin:/bin' }, timeoutMs: 30_000, maxStdout: 256 });
    const size = Number(r.stdout.trim());
    return r.code === 0 && Number.isFinite(size) && size <= MAX_COPY_BYTES;
  }
}
