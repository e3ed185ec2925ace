/**
 * The port for "where work happens": a machine (this one, an SSH host) or a part of one (a worktree) on which
 * agents run, terminals open, files are read and written, and git runs. Every concern that touches a
 * session's processes or files goes through a `Host`; none knows which kind it has. Transport-neutral: every
 * call can be carried over one multiplexed channel (streams, promises and plain data; no file descriptors).
 *
 *   host.spawn(argv, { cwd, env })      → HostProcess   its own process group, stdio as streams
 *   host.openPty(argv, { cwd, env, … }) → HostPty       a pseudo-terminal leading its own session
 *   host.files(roots)                   → ConfinedFiles  file access confined to the roots, checked as it acts
 *   host.git(args, { cwd, env, input }) → GitResult      the real git, output buffered (bounded)
 *   host.listFiles(root, limits)        → FileList       a bounded walk (for @-mentions)
 *   host.watch(root, onChange)          → Disposable     file changes under a folder, or "rescan"
 *   host.helperCall?(service, args)     → unknown        work a concern runs beside the host's files (SSH hosts)
 */
import type { Readable, Writable } from 'node:stream';
import type { Disposable } from '../base/lifecycle';
import type { ConfinedFiles } from './files';

export type { ConfinedFiles } from './files';

export interface SpawnOptions {
  /** Default: the host's home folder. */
  cwd?: string;
  /** The whole environment of the process (nothing is inherited). */
  env: Record<string, string>;
  /** 'ignore' when nothing is ever written to the process (its stdin is then already ended). Default 'pipe'. */
  stdin?: 'pipe' | 'ignore';
}

/** How a process ended. */
export interface ProcessExit {
  code: number | null;
  /** The signal's name (SIGTERM…), when a signal ended it. */
  signal: string | null;
  /** Starting failed (command not found…): a sentence; then `code` and `signal` are null. */
  error: string | null;
  /** Why starting failed, as the system says it (ENOENT, EACCES…). */
  errorCode?: string;
}

/**
 * A process on a host, leading its own process group (so that stopping it also ends what it started). What a
 * caller needs of a process and nothing more, so that an in-process stand-in (a fake agent wired to streams)
 * can be one too: `pid` null, `kill` ending its streams.
 */
export interface HostProcess extends Disposable {
  /** Its process id on its host; null when it has none (it failed to start, or it is an in-process stand-in). */
  readonly pid: number | null;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles once it runs; rejects with the reason it could not be started. */
  readonly started: Promise<void>;
  /** It ended (a failed start too: `error` set). Its group and its pipes may live on. Never rejects. */
  readonly exited: Promise<ProcessExit>;
  /** It ended and its stdout and stderr are closed: every byte of output was delivered. Never rejects. */
  readonly closed: Promise<ProcessExit>;
  /** Signals its whole process group (the group outlives its leader: signalled even after `exited`). */
  kill(signal?: NodeJS.Signals): void;
  /** SIGKILL to the group; the host forgets it. */
  dispose(): void;
  /**
   * Writes to stdin now or never (a host whose connection may drop): when the connection is down, or drops
   * before the host has applied it, it is dropped instead of being delivered on reconnect. Absent: as stdin.
   */
  writeNowOrNever?(data: string): void;
}

export interface PtyOptions {
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

export interface PtyExit {
  exitCode: number | null;
  /** The signal's number, when a signal ended it. */
  signal: number | null;
}

/** A pseudo-terminal whose process leads its own session and process group. */
export interface HostPty extends Disposable {
  readonly pid: number;
  /** Output as it comes (UTF-8 decoded, split anywhere). */
  onData(listener: (data: string) => void): Disposable;
  readonly exited: Promise<PtyExit>;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Signals its whole process group. */
  kill(signal?: NodeJS.Signals): void;
  /**
   * Hangs up, as a closed terminal window does (a shell saves its history and passes the hangup on to its
   * jobs), kills what is left after a grace period, and resolves once its session has ended.
   */
  dispose(): Promise<void>;
}

export interface GitOptions {
  /** Default: the host's home folder. */
  cwd?: string;
  /**
   * The whole environment of git. Default: the host's own environment with GIT_TERMINAL_PROMPT=0 and LC_ALL=C
   * (never a prompt, messages in English).
   */
  env?: Record<string, string>;
  input?: string | Buffer;
  /** Longest stdout accepted: more ends git and rejects. Default 256 MiB. */
  maxBuffer?: number;
}

export interface GitResult {
  /** git's exit code (a signal counts as -1). */
  code: number;
  stdout: Buffer;
  stderr: string;
}

export interface ListFilesOptions {
  /** Folder names not entered (node_modules, .git…). */
  skipDirs?: ReadonlySet<string>;
  maxFiles: number;
  maxDepth: number;
}

export interface FileList {
  /** Paths relative to the root ('/'-separated on every host): regular files and symlinks; no folder behind a link is entered. */
  files: string[];
  /** A limit was reached: the list is partial. */
  truncated: boolean;
}

export type FileChangeKind = 'create' | 'update' | 'delete';

/**
 * What a watch reports: changed paths (absolute), or that it lost track (the kernel's queue overflowed, the
 * watched folder went away, a watch error) and the caller should rescan the folder in full.
 */
export type WatchEvent = { kind: 'changes'; changes: Array<{ path: string; kind: FileChangeKind }> } | { kind: 'rescan'; reason: string };

export interface WatchOptions {
  /** Paths relative to the root, or globs, not reported (`.git`, `node_modules`…). */
  ignore?: readonly string[];
}

export interface Host {
  /** 'local', or the id of a remote host or worktree. */
  readonly id: string;
  /** Starts `argv[0]` with the rest as its arguments (no shell), leading its own process group. */
  spawn(argv: readonly string[], options: SpawnOptions): HostProcess;
  /** Opens a pseudo-terminal running `argv`. */
  openPty(argv: readonly string[], options: PtyOptions): HostPty;
  /** File access confined to `roots` (real paths taken once; every access checked as it acts). */
  files(roots: readonly string[]): Promise<ConfinedFiles>;
  /** Runs git (resolves with its exit code whatever it is; rejects when git cannot be run or says too much). */
  git(args: readonly string[], options?: GitOptions): Promise<GitResult>;
  /** The regular files and symlinks under `root`, within the limits. */
  listFiles(root: string, options: ListFilesOptions): Promise<FileList>;
  /** Reports changes under `root` until disposed. Rejects when the folder cannot be watched. */
  watch(root: string, onEvent: (event: WatchEvent) => void, options?: WatchOptions): Promise<Disposable>;
  /**
   * Makes the files a command names reachable where the host runs it, before it is started (a container
   * copies in a program or script of the machine it runs on that its mounts do not hold).
   */
  prepareProgram?(argv: readonly string[]): Promise<void>;
  /**
   * Runs a call of a service a concern registered in the host's helper (src/main/ssh-helper.ts), beside the
   * host's files: checkpoints read, hash and store a folder there, and only what a review needs travels.
   * Absent on a host whose files are this machine's: the concern runs the same code in-process. `onNote`
   * hears what the service tells while the call is under way (progress), in order, before the answer.
   */
  helperCall?(service: string, args: unknown, onNote?: (note: unknown) => void): Promise<unknown>;
  /**
   * Whether the host's processes can be reached now: false while its connection is down (it reconnects, and
   * they go on meanwhile). Absent: always (this machine).
   */
  isConnected?(): boolean;
}
