import type { Host, HostProcess, ProcessExit } from '../../host/host';
import type { AgentLog } from './agent-log';

export interface AgentLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export type AgentExit = ProcessExit;

/** Why stdout is not being read: the agent floods (flood-guard.ts), or what was read is not handled yet. */
export type StdoutPause = 'flood' | 'read-ahead';

/**
 * An agent subprocess speaking ACP over stdio, on its host. It leads its own process group so that stopping
 * it also ends whatever it started (npx wrappers, language servers) — some agents ignore stdin EOF (trap 4).
 */
export class AgentProcess {
  private readonly child: HostProcess;
  private readonly pauses = new Set<StdoutPause>();
  private exitInfo: AgentExit | null = null;
  private readonly exitWaiters: Array<(e: AgentExit) => void> = [];
  /** The agent itself has exited: what is left in the pipe is read at full speed. */
  private leaderExited = false;

  constructor(
    host: Host,
    launch: AgentLaunch,
    private readonly log: AgentLog,
    handlers: { onStdout: (chunk: Buffer) => void; onStdoutEnd: () => void; onExit: (exit: AgentExit) => void },
  ) {
    this.child = host.spawn([launch.command, ...launch.args], { cwd: launch.cwd, env: launch.env });
    log.write('note', `spawn ${JSON.stringify([launch.command, ...launch.args])} in ${launch.cwd} (pid ${this.child.pid ?? '?'})`);
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
      this.exitInfo = exit;
      log.write('note', exit.error ? `failed: ${exit.error}` : `exited code=${exit.code} signal=${exit.signal}`);
      handlers.onExit(exit);
      for (const w of this.exitWaiters.splice(0)) w(exit);
    };
    // 'closed' comes after the stdio streams ended, so all output has been delivered. A grandchild that
    // keeps the pipes open would delay it forever: a little after the agent itself exits, end its group.
    void this.child.closed.then((exit) => {
      endStdout();
      finish(exit);
    });
    void this.child.exited.then((exit) => {
      // A failed start: 'closed' follows at once.
      if (exit.error) return;
      this.leaderExited = true;
      this.child.stdout.resume();
      const timer = setTimeout(() => {
        if (settled) return;
        this.child.kill('SIGKILL');
        this.child.stdout.destroy();
        this.child.stderr.destroy();
        endStdout();
        finish(exit);
      }, 1500);
      timer.unref();
    });
  }

  get pid(): number | null {
    return this.child.pid;
  }

  get exit(): AgentExit | null {
    return this.exitInfo;
  }

  /** Writes to the agent's stdin; resolves when it may take more (backpressure). */
  write(data: string): Promise<void> {
    const stdin = this.child.stdin;
    if (this.exitInfo || stdin.destroyed) return Promise.reject(new Error('the agent process is not running'));
    if (stdin.write(data)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        stdin.off('drain', done);
        stdin.off('close', done);
        resolve();
      };
      stdin.once('drain', done);
      stdin.once('close', done);
    });
  }

  /** Writes to the agent's stdin now, or never when its host's connection is down (HostProcess.writeNowOrNever). */
  writeNowOrNever(data: string): void {
    if (this.exitInfo || this.child.stdin.destroyed) return;
    if (this.child.writeNowOrNever) this.child.writeNowOrNever(data);
    else this.child.stdin.write(data);
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

  /** stdin EOF, SIGTERM to the group, SIGKILL after the grace period. */
  async stop(graceMs = 2000): Promise<AgentExit> {
    if (this.exitInfo) {
      // The leader is gone; make sure nothing it started lingers in the group.
      this.child.kill('SIGKILL');
      return this.exitInfo;
    }
    this.child.stdin.end();
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const exit = await this.waitForExit();
    clearTimeout(timer);
    this.child.kill('SIGKILL');
    return exit;
  }
}
