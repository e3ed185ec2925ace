/**
 * A container as a Host, stacked on the host that runs it (this machine, or an SSH host). Processes and
 * terminals run inside through `<engine> exec`, started on the inner host; files, git, listings, watches and
 * helper calls go to the inner host on the bind-mounted folder (mounted at the same path), so the side that
 * owns the files reads them: a container cannot hide a change from a checkpoint, and a rewind happens outside it.
 *
 * Environment values reach the process through the exec's own environment (`-e NAME` only): an agent's keys
 * never appear on a command line, in `ps` on the host nor in the container. The few variables the engine
 * itself needs (PATH, HOME…) are passed as `-e NAME=VALUE` when the process's value differs: never secrets.
 */
import type { Disposable } from '../base/lifecycle';
import type { ConfinedFiles, FileList, GitOptions, GitResult, Host, HostProcess, HostPty, ListFilesOptions, PtyOptions, SpawnOptions, WatchEvent, WatchOptions } from '../host/host';
import { ContainerProcess, type ContainerControl, OOM_KILLS, SAY_PID } from './container-process';
import { ContainerPty } from './container-pty';
import type { Engine } from './engine';
import { type RunResult, runOnHost } from './run';

export interface ContainerHostOptions {
  /** The host the engine runs on (and that owns the mounted files). */
  inner: Host;
  engine: Engine;
  containerId: string;
  /** The session folder, mounted at this same path: the default working folder. */
  folder: string;
  /** Default: `container:<inner id>:<first 12 of the container id>`. */
  id?: string;
  /** Environment every process inside gets over its own (`UpResult.env`: the `api` mode's proxy). */
  env?: Record<string, string>;
}

/**
 * Variables the engine's own command reads (its PATH, home, runtime folder, configuration): the process's
 * values for them go by `-e NAME=VALUE` and never into the engine's environment, which keeps its own.
 */
const ENGINE_OWN = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'TMPDIR', 'SHELL', 'LD_PRELOAD', 'LD_LIBRARY_PATH']);
const ENGINE_PREFIX = /^(XDG_|DOCKER_|CONTAINERS?_|PODMAN_|BUILDAH_|STORAGE_|REGISTRY_|GODEBUG|GOMAXPROCS)/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,255}$/;

export class ContainerHost implements Host, ContainerControl {
  readonly id: string;
  private readonly inner: Host;
  private readonly engine: Engine;
  readonly containerId: string;
  readonly folder: string;
  private readonly fenceEnv: Record<string, string>;
  private oomSeen: number | null = null;

  constructor(options: ContainerHostOptions) {
    this.inner = options.inner;
    this.engine = options.engine;
    this.containerId = options.containerId;
    this.folder = options.folder;
    this.fenceEnv = options.env ?? {};
    this.id = options.id ?? `container:${options.inner.id}:${options.containerId.slice(0, 12)}`;
    if (options.inner.helperCall) this.helperCall = options.inner.helperCall.bind(options.inner);
  }

  /**
   * The host of a running container. The container's count of out-of-memory kills so far, to tell new ones
   * from, is the one its first process says as it starts (SAY_PID): no exec is spent on it here.
   */
  static open(options: ContainerHostOptions): Promise<ContainerHost> {
    return Promise.resolve(new ContainerHost(options));
  }

  noteOomKills(kills: number): void {
    this.oomSeen ??= kills;
  }

  spawn(argv: readonly string[], options: SpawnOptions): HostProcess {
    const interactive = (options.stdin ?? 'pipe') === 'pipe';
    const { flags, env } = this.execEnv(options.env);
    const exec = this.inner.spawn([this.engine.path, 'exec', ...(interactive ? ['-i'] : []), '-w', options.cwd ?? this.folder, ...flags, this.containerId, ...SAY_PID, ...argv], {
      env,
      stdin: options.stdin ?? 'pipe',
    });
    return new ContainerProcess(exec, this);
  }

  openPty(argv: readonly string[], options: PtyOptions): HostPty {
    const { flags, env } = this.execEnv(options.env);
    const exec = this.inner.openPty([this.engine.path, 'exec', '-i', '-t', '-w', options.cwd, ...flags, this.containerId, ...SAY_PID, ...argv], { ...options, cwd: this.folder, env });
    return new ContainerPty(exec, this);
  }

  files(roots: readonly string[]): Promise<ConfinedFiles> {
    return this.inner.files(roots);
  }

  git(args: readonly string[], options?: GitOptions): Promise<GitResult> {
    return this.inner.git(args, options);
  }

  listFiles(root: string, options: ListFilesOptions): Promise<FileList> {
    return this.inner.listFiles(root, options);
  }

  watch(root: string, onEvent: (event: WatchEvent) => void, options?: WatchOptions): Promise<Disposable> {
    return this.inner.watch(root, onEvent, options);
  }

  helperCall?: Host['helperCall'];

  /**
   * A short command of Switchboard's own inside, by the engine's exec alone (no pid line, nothing left to
   * signal after): a probe. `path` is its PATH inside.
   */
  run(argv: readonly string[], options: { path?: string; timeoutMs?: number; maxStdout?: number } = {}): Promise<RunResult> {
    return runOnHost(this.inner, [this.engine.path, 'exec', ...(options.path ? ['-e', `PATH=${options.path}`] : []), this.containerId, ...argv], { env: this.engine.env, timeoutMs: options.timeoutMs ?? 30_000, ...(options.maxStdout ? { maxStdout: options.maxStdout } : {}) });
  }

  signal(pgid: number, signal: NodeJS.Signals): void {
    const name = signal.replace(/^SIG/, '');
    if (!/^[A-Z0-9]+$/.test(name)) return;
    void this.run(['/bin/sh', '-c', 'kill -s "$1" -- "-$2" 2>/dev/null || kill -s "$1" "$2"', 'sh', name, String(pgid)]);
  }

  async whyStopped(): Promise<string | null> {
    const state = await runOnHost(this.inner, [this.engine.path, 'inspect', '--format', '{{.State.Status}} {{.State.OOMKilled}}', this.containerId], { env: this.engine.env, timeoutMs: 30_000 });
    const [status = 'gone', oomKilled] = state.code === 0 ? state.stdout.trim().split(/\s+/) : [];
    const short = this.containerId.slice(0, 12);
    if (status !== 'running') {
      if (oomKilled === 'true') return `the container ${short} ran out of memory (its limit) and was stopped`;
      return `the container ${short} is ${status === 'gone' ? 'gone' : `no longer running (${status})`}: it was stopped or removed outside this session; start the session again`;
    }
    const kills = await this.readOomKills();
    // No process said the count at its start yet: a fresh container's (what open() read before) is 0.
    if (kills !== null && kills > (this.oomSeen ?? 0)) {
      this.oomSeen = kills;
      return 'ended: out of memory (the container\'s memory limit); the kernel killed it';
    }
    return null;
  }

  /** How many processes the kernel killed in the container for want of memory (cgroups v2 or v1), or null. */
  private async readOomKills(): Promise<number | null> {
    const script = `${OOM_KILLS}; [ -n "$n" ] && echo "$n"`;
    const r = await this.run(['/bin/sh', '-c', script]);
    const n = Number(r.stdout.trim());
    return r.code === 0 && Number.isInteger(n) ? n : null;
  }

  /** `-e` flags and the exec's environment for a process environment meant for the container. */
  private execEnv(own: Record<string, string>): { flags: string[]; env: Record<string, string> } {
    const wanted = { ...own, ...this.fenceEnv };
    const env: Record<string, string> = {};
    const flags: string[] = [];
    for (const [name, value] of Object.entries(wanted)) {
      if (!NAME.test(name)) continue;
      if (ENGINE_OWN.has(name) || ENGINE_PREFIX.test(name) || name in this.engine.env) flags.push('-e', `${name}=${value}`);
      else {
        flags.push('-e', name);
        env[name] = value;
      }
    }
    return { flags, env: { ...env, ...this.engine.env } };
  }
}
