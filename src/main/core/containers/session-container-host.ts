/**
 * A session's container as the Host its session runs on: the ContainerHost (processes inside, files on the
 * host below) under the session's host id (`container:<key>@<host id>`), with what a session needs beyond it:
 *   - a program or script of the machine below that a custom agent's command names (an absolute path outside
 *     the mounted folders and not mounted as the agent's program: agent-programs.ts) is copied into the
 *     container at the same path before the agent starts;
 *   - an agent run by node or npx is started behind the node gate (node-check.ts): an image without node 20+
 *     is named in its exit, and no engine call is spent on asking first;
 *   - each process started marks the container as used (the idle stop counts from the last use), and an
 *     agent about to start has its container started again when it was stopped.
 */
import type { Disposable } from '../base/lifecycle';
import type { ConfinedFiles, FileList, GitOptions, GitResult, Host, HostProcess, HostPty, ListFilesOptions, PtyOptions, SpawnOptions, WatchEvent, WatchOptions } from '../host/host';
import type { ContainerHost } from './container-host';
import type { Engine } from './engine';
import { NodeGatedProcess } from './node-gated-process';
import { nodeGate } from './node-check';
import { lastLine, runOnHost } from './run';

/** Largest file copied in (a bundled agent script, a static binary). */
const MAX_COPY_BYTES = 256 * 1024 * 1024;

export class SessionContainerHost implements Host {
  readonly id: string;
  /** When a process was last started inside (ms since the epoch). */
  lastUsed = Date.now();
  private readonly copied = new Set<string>();
  /** The agent commands prepared to start behind the node gate (by their argv, NUL-joined), each for its next spawn. */
  private readonly gated = new Set<string>();

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

  /** Goes on in a container made anew (the one before was removed): nothing copied into it yet. */
  moveTo(container: ContainerHost): void {
    this.current = container;
    this.copied.clear();
  }

  spawn(argv: readonly string[], options: SpawnOptions): HostProcess {
    this.lastUsed = Date.now();
    if (this.gated.delete(argv.join('\0'))) return new NodeGatedProcess(this.container.spawn(nodeGate(argv), options));
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
   * Before an agent starts inside: its container running, and the program's files that are neither in the
   * mounted folders nor mounted as the agent's program copied in (one engine call each, at once). An agent run
   * by node or npx is marked to start behind the node gate: the check of the container's node is part of the
   * agent's own exec.
   */
  async prepareProgram(argv: readonly string[]): Promise<void> {
    this.lastUsed = Date.now();
    await this.ensureRunning();
    const program = argv[0]?.split('/').pop();
    if (program === 'npx' || program === 'node') this.gated.add(argv.join('\0'));
    const files = [...new Set(argv.slice(0, 2))].filter((file) => file.startsWith('/') && !file.includes('\0') && !this.copied.has(file) && !this.mounted.some((m) => file === m || file.startsWith(`${m}/`)));
    await Promise.all(files.map((file) => this.copyIn(file)));
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
