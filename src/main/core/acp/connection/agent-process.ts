import { constants } from 'node:os';
import type { Host, HostProcess, ProcessExit } from '../../host/host';
import type { AgentLog } from './agent-log';

export interface AgentLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** How an agent process ended (`error`: spawning failed, command not found…). */
export type AgentExit = ProcessExit;

export const signalName = (signal: number | null): string | null => {
  if (signal === null) return null;
  for (const [name, n] of Object.entries(constants.signals)) if (n === signal) return name;
  return String(signal);
};

/** Why stdout is not being read: the agent floods (flood-guard.ts), or what was read is not handled yet. */
export type StdoutPause = 'flood' | 'read-ahead';

/**
 * An agent process speaking ACP over stdio, started on a host (`Host.spawn`: this machine's by default). It
 * leads its own process group so that stopping it also ends whatever it started (npx wrappers, language
 * servers) — some agents ignore stdin EOF (trap 4). The host may hand back an in-process stand-in (a fake
 * agent on in-memory streams, for tests): nothing here needs a real process.
 */
export class AgentProcess {
  private readonly proc: HostProcess;
  private readonly pauses = new Set<StdoutPause>();
  private exitInfo: AgentExit | null = null;
  private readonly exitWaiters: Array<(e: AgentExit) => void> = [];
  /** The agent itself has exited: what is left in the pipe is read at full speed. */
  private leaderExited = false;

  constructor(
    host: Pick<Host, 'spawn'>,
    launch: AgentLaunch,
    private readonly log: AgentLog,
    handlers: { onStdout: (chunk: Buffer) => void; onStdoutEnd: () => void; onExit: (exit: AgentExit) => void },
  ) {
    const proc = host.spawn([launch.command, ...launch.args], { cwd: launch.cwd, env: launch.env });
    this.proc = proc;
    log.write('note', `spawn ${JSON.stringify([launch.command, ...launch.args])} in ${launch.cwd} (pid ${proc.pid ?? '?'})`);
    proc.stdout.on('data', handlers.onStdout);
    let ended = false;
    const endStdout = () => {
      if (ended) return;
      ended = true;
      handlers.onStdoutEnd();
    };
    proc.stdout.on('end', endStdout);
    proc.stdout.on('close', endStdout);
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk: string) => log.stderr(chunk));
    // A dead agent's stdin errors with EPIPE; the exit handler reports the death.
    proc.stdin.on('error', (e) => log.write('note', `stdin: ${e.message}`));
    let settled = false;
    const finish = (exit: AgentExit) => {
      if (settled) return;
      settled = true;
      this.exitInfo = exit;
      log.write('note', exit.error ? `failed: ${exit.error}` : `exited code=${exit.code} signal=${exit.signal}`);
      handlers.onExit(exit);
      for (const w of this.exitWaiters.splice(0)) w(exit);
    };
    // `closed` comes after the stdio streams ended, so all output has been delivered. A grandchild that
    // keeps the pipes open would delay it forever: a little after the agent itself exits, end its group.
    void proc.exited.then((exit) => {
      if (exit.error) {
        // Starting failed: stdout's end may never come.
        endStdout();
        finish(exit);
        return;
      }
      this.leaderExited = true;
      proc.stdout.resume();
      const timer = setTimeout(() => {
        if (settled) return;
        proc.kill('SIGKILL');
        proc.stdout.destroy();
        proc.stderr.destroy();
        endStdout();
        finish(exit);
      }, 1500);
      timer.unref();
    });
    void proc.closed.then(finish);
  }

  get pid(): number | null {
    return this.proc.pid;
  }

  get exit(): AgentExit | null {
    return this.exitInfo;
  }

  /** Writes to the agent's stdin; resolves when it may take more (backpressure). */
  write(data: string): Promise<void> {
    const stdin = this.proc.stdin;
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

  /**
   * Stops reading stdout for now, for `reason` (flood control, or output read but not yet handled): the pipe
   * fills and the agent's writes wait. Reading goes on once no reason is left.
   */
  pauseStdout(reason: StdoutPause): void {
    this.pauses.add(reason);
    if (!this.leaderExited && !this.proc.stdout.destroyed) this.proc.stdout.pause();
  }

  resumeStdout(reason: StdoutPause): void {
    this.pauses.delete(reason);
    if (this.pauses.size === 0 && !this.proc.stdout.destroyed) this.proc.stdout.resume();
  }

  waitForExit(): Promise<AgentExit> {
    if (this.exitInfo) return Promise.resolve(this.exitInfo);
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  private signalGroup(signal: NodeJS.Signals): void {
    this.proc.kill(signal);
  }

  /** stdin EOF, SIGTERM to the group, SIGKILL after the grace period. */
  async stop(graceMs = 2000): Promise<AgentExit> {
    if (this.exitInfo) {
      // The leader is gone; make sure nothing it started lingers in the group.
      this.signalGroup('SIGKILL');
      return this.exitInfo;
    }
    this.proc.stdin.end();
    this.signalGroup('SIGTERM');
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
    const exit = await this.waitForExit();
    clearTimeout(timer);
    this.signalGroup('SIGKILL');
    return exit;
  }
}
