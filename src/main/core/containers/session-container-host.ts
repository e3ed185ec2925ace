/**
 * A session's container as the Host its session runs on: the ContainerHost (processes inside, files on the
 * host below) under the session's host id (`container:<key>@<host id>`), with what a session needs beyond it:
 *   - a program or script of the machine below that a custom agent's command names (an absolute path outside
 *     the mounted folders) is copied into the container at the same path before the agent starts;
 *   - each process started marks the container as used (the idle stop counts from the last use), and an
 *     agent about to start has its container started again when it was stopped.
 */
import type { Disposable } from '../base/lifecycle';
import type { ConfinedFiles, FileList, GitOptions, GitResult, Host, HostProcess, HostPty, ListFilesOptions, PtyOptions, SpawnOptions, WatchEvent, WatchOptions } from '../host/host';
import type { ContainerHost } from './container-host';
import type { Engine } from './engine';
import { NODE_PROBE, nodeVersionOf } from './node-check';
import { lastLine, runOnHost } from './run';

const STANDARD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Largest file copied in (a bundled agent script, a static binary). */
const MAX_COPY_BYTES = 256 * 1024 * 1024;

export class SessionContainerHost implements Host {
  readonly id: string;
  /** When a process was last started inside (ms since the epoch). */
  lastUsed = Date.now();
  private readonly copied = new Set<string>();
  /** The container's node was found good enough (its image does not change while it runs). */
  private nodeSeen = false;

  private current: ContainerHost;

  constructor(
    container: ContainerHost,
    readonly inner: Host,
    private readonly engine: Engine,
    /** The mounted folders (absolute paths, the same inside). */
    private readonly mounted: readonly string[],
    /** Starts the container again when it was stopped (idle, or from outside). */
    private readonly ensureRunning: () => Promise<void> = async () => {},
  ) {
    this.id = container.id;
    this.current = container;
    if (container.helperCall) this.helperCall = (...args) => this.current.helperCall!(...args);
  }

  /** The container processes start in (a new one when the last was removed and made again: see moveTo). */
  get container(): ContainerHost {
    return this.current;
  }

  /** Goes on in a container made anew (the one before was removed): nothing copied into it yet, its node not asked. */
  moveTo(container: ContainerHost): void {
    this.current = container;
    this.copied.clear();
    this.nodeSeen = false;
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

  /**
   * Before an agent starts inside: its container running, the container's node checked (an npm agent runs
   * through its npx), and the program's files copied in, the checks and the copies at once. Each spends one
   * engine call (the agent's start waits for them), and a container's node is asked once.
   */
  async prepareProgram(argv: readonly string[]): Promise<void> {
    this.lastUsed = Date.now();
    await this.ensureRunning();
    const program = argv[0]?.split('/').pop();
    const node = (program === 'npx' || program === 'node') && !this.nodeSeen ? this.checkNode() : Promise.resolve();
    const files = [...new Set(argv.slice(0, 2))].filter((file) => file.startsWith('/') && !file.includes('\0') && !this.copied.has(file) && !this.mounted.some((m) => file === m || file.startsWith(`${m}/`)));
    const [checked, ...copies] = await Promise.allSettled([node, ...files.map((file) => this.copyIn(file))]);
    // An image without node is named for that first: what the copies said is beside the point then.
    for (const r of [checked!, ...copies]) if (r.status === 'rejected') throw r.reason;
  }

  private async checkNode(): Promise<void> {
    nodeVersionOf(await this.container.run(NODE_PROBE, { path: STANDARD_PATH, timeoutMs: 60_000, maxStdout: 4096 }));
    this.nodeSeen = true;
  }

  /**
   * A regular file of the host below (not a folder, device or link to one, of a size worth copying) copied
   * into the container at its own path by one engine call: a one-entry tar streamed into the
   * engine's `cp -`, which makes the folders above it (nothing of the container's own runs for it). Any other
   * file is left (exit 3): the program is not one of the host's files.
   */
  private async copyIn(file: string): Promise<void> {
    const script = '[ -f "$1" ] && [ ! -L "$1" ] && s=$(wc -c < "$1") && [ "$s" -le "$2" ] || exit 3; tar -cf - -C / --no-recursion -- ".$1" | "$3" cp - "$4:/"';
    const r = await runOnHost(this.inner, ['/bin/sh', '-c', script, 'sh', file, String(MAX_COPY_BYTES), this.engine.path, this.container.containerId], { env: { ...this.engine.env, PATH: this.engine.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 300_000, maxStdout: 4096 });
    if (r.code === 3) return;
    if (r.code !== 0) throw new Error(`could not copy ${file} into the container: ${lastLine(r.stderr) || r.error || `exit ${r.code ?? r.signal}`}`);
    this.copied.add(file);
  }
}
