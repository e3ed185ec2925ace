import { spawn, type ChildProcess } from 'node:child_process';
import { homedir } from 'node:os';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { guardProcessGroup } from '../../platform/group-watchdog';
import type { HostProcess, ProcessExit, SpawnOptions } from '../host';

const GROUPS = process.platform !== 'win32';

/** Signals the process group led by `pid` (the process alone where there are no groups); false when none is left. */
export function signalGroup(pid: number | null | undefined, signal: NodeJS.Signals): boolean {
  if (!pid) return false;
  try {
    process.kill(GROUPS ? -pid : pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * A child process of this machine leading its own process group, registered with the group watchdog (ended
 * should Switchboard die without ending it) until it and its pipes are done.
 */
export class LocalProcess implements HostProcess {
  private readonly child: ChildProcess;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly started: Promise<void>;
  readonly exited: Promise<ProcessExit>;
  readonly closed: Promise<ProcessExit>;

  constructor(argv: readonly string[], options: SpawnOptions) {
    const [command, ...args] = argv;
    if (command === undefined) throw new Error('nothing to run: the command line is empty');
    this.child = spawn(command, args, {
      cwd: options.cwd ?? homedir(),
      env: options.env,
      stdio: [options.stdin ?? 'pipe', 'pipe', 'pipe'],
      detached: GROUPS,
      windowsHide: true,
    });
    const child = this.child;
    const unguard = guardProcessGroup(child.pid);
    // With stdin ignored there is no pipe: an ended stream stands in, so callers need not check.
    this.stdin = child.stdin ?? new PassThrough().end();
    this.stdout = child.stdout!;
    this.stderr = child.stderr!;
    // A dead process's stdin errors with EPIPE; its exit reports the death.
    this.stdin.on('error', () => undefined);

    let markStarted!: () => void;
    let failStart!: (e: Error) => void;
    this.started = new Promise<void>((resolve, reject) => {
      markStarted = resolve;
      failStart = reject;
    });
    this.started.catch(() => undefined);
    let onExit!: (e: ProcessExit) => void;
    let onClose!: (e: ProcessExit) => void;
    this.exited = new Promise((resolve) => (onExit = resolve));
    this.closed = new Promise((resolve) => (onClose = resolve));
    void this.closed.then(unguard);

    child.once('spawn', () => markStarted());
    child.on('error', (e: NodeJS.ErrnoException) => {
      // An 'error' before there is a pid: starting failed, and no 'exit' (nor maybe 'close') follows.
      if (child.pid !== undefined) return;
      failStart(e);
      const failed: ProcessExit = { code: null, signal: null, error: e.message, ...(e.code ? { errorCode: e.code } : {}) };
      this.stdout.destroy();
      this.stderr.destroy();
      onExit(failed);
      onClose(failed);
    });
    child.on('exit', (code, signal) => onExit({ code, signal, error: null }));
    child.on('close', (code, signal) => onClose({ code, signal, error: null }));
  }

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (!signalGroup(this.child.pid, signal)) {
      try {
        this.child.kill(signal);
      } catch {
        /* gone */
      }
    }
  }

  dispose(): void {
    this.kill('SIGKILL');
  }
}
