import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { guardProcessGroup } from '../../platform/group-watchdog';
import type { AgentLog } from './agent-log';

export interface AgentLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export interface AgentExit {
  code: number | null;
  signal: string | null;
  /** Spawning failed (command not found…). */
  error: string | null;
  /** Why spawning failed, as the system says it (ENOENT, EACCES…). */
  errorCode?: string;
}

/** Why stdout is not being read: the agent floods (flood-guard.ts), or what was read is not handled yet. */
export type StdoutPause = 'flood' | 'read-ahead';

/**
 * An agent subprocess speaking ACP over stdio. It leads its own process group so that stopping it also
 * ends whatever it started (npx wrappers, language servers) — some agents ignore stdin EOF (trap 4).
 */
export class AgentProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pauses = new Set<StdoutPause>();
  private exitInfo: AgentExit | null = null;
  private readonly exitWaiters: Array<(e: AgentExit) => void> = [];
  /** The agent itself has exited: what is left in the pipe is read at full speed. */
  private leaderExited = false;

  constructor(
    launch: AgentLaunch,
    private readonly log: AgentLog,
    handlers: { onStdout: (chunk: Buffer) => void; onStdoutEnd: () => void; onExit: (exit: AgentExit) => void },
  ) {
    this.child = spawn(launch.command, launch.args, {
      cwd: launch.cwd,
      env: launch.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
    log.write('note', `spawn ${JSON.stringify([launch.command, ...launch.args])} in ${launch.cwd} (pid ${this.child.pid ?? '?'})`);
    // Ended by the watchdog should Switchboard die without stopping it.
    const unguard = guardProcessGroup(this.child.pid);
    this.child.stdout.on('data', handlers.onStdout);
    let ended = false;
    const endStdout = () => {
      if (ended) return;
      ended = true;
      handlers.onStdoutEnd();
    };
    this.child.stdout.on('end', endStdout);
    this.child.stdout.on('close', endStdout);
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => log.stderr(chunk));
    // A dead agent's stdin errors with EPIPE; the exit handler reports the death.
    this.child.stdin.on('error', (e) => log.write('note', `stdin: ${e.message}`));
    let settled = false;
    const finish = (exit: AgentExit) => {
      if (settled) return;
      settled = true;
      unguard();
      this.exitInfo = exit;
      log.write('note', exit.error ? `failed: ${exit.error}` : `exited code=${exit.code} signal=${exit.signal}`);
      handlers.onExit(exit);
      for (const w of this.exitWaiters.splice(0)) w(exit);
    };
    this.child.on('error', (e) => {
      // 'error' without a pid: the spawn itself failed; stdout 'end' may never come.
      if (this.child.pid === undefined) {
        endStdout();
        const code = (e as NodeJS.ErrnoException).code;
        finish({ code: null, signal: null, error: e.message, ...(code ? { errorCode: code } : {}) });
      } else {
        log.write('note', `process error: ${e.message}`);
      }
    });
    // 'close' comes after the stdio streams ended, so all output has been delivered. A grandchild that
    // keeps the pipes open would delay it forever: a little after the agent itself exits, end its group.
    this.child.on('close', (code, signal) => finish({ code, signal, error: null }));
    this.child.on('exit', (code, signal) => {
      this.leaderExited = true;
      this.child.stdout.resume();
      const timer = setTimeout(() => {
        if (settled) return;
        this.signalGroup('SIGKILL');
        this.child.stdout.destroy();
        this.child.stderr.destroy();
        endStdout();
        finish({ code, signal, error: null });
      }, 1500);
      timer.unref();
    });
  }

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  get exit(): AgentExit | null {
    return this.exitInfo;
  }

  /** Writes to the agent's stdin; resolves when it may take more (backpressure). */
  write(data: string): Promise<void> {
    if (this.exitInfo || this.child.stdin.destroyed) return Promise.reject(new Error('the agent process is not running'));
    if (this.child.stdin.write(data)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.child.stdin.off('drain', done);
        this.child.stdin.off('close', done);
        resolve();
      };
      this.child.stdin.once('drain', done);
      this.child.stdin.once('close', done);
    });
  }

  /**
   * Stops reading stdout for now, for `reason` (flood control, or output read but not yet handled): the pipe
   * fills and the agent's writes wait. Reading goes on once no reason is left.
   */
  pauseStdout(reason: StdoutPause): void {
    this.pauses.add(reason);
    if (!this.leaderExited && !this.child.stdout.destroyed) this.child.stdout.pause();
  }

  resumeStdout(reason: StdoutPause): void {
    this.pauses.delete(reason);
    if (this.pauses.size === 0 && !this.child.stdout.destroyed) this.child.stdout.resume();
  }

  waitForExit(): Promise<AgentExit> {
    if (this.exitInfo) return Promise.resolve(this.exitInfo);
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        this.child.kill(signal);
      } catch {
        /* gone */
      }
    }
  }

  /** stdin EOF, SIGTERM to the group, SIGKILL after the grace period. */
  async stop(graceMs = 2000): Promise<AgentExit> {
    if (this.exitInfo) {
      // The leader is gone; make sure nothing it started lingers in the group.
      this.signalGroup('SIGKILL');
      return this.exitInfo;
    }
    this.child.stdin.end();
    this.signalGroup('SIGTERM');
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
    const exit = await this.waitForExit();
    clearTimeout(timer);
    this.signalGroup('SIGKILL');
    return exit;
  }
}
