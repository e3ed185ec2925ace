import * as pty from 'node-pty';
import { toDisposable, type Disposable } from '../../base/lifecycle';
import { ensureGroupWatchdog, guardProcessGroup } from '../../platform/group-watchdog';
import { sessionMembers } from '../../platform/proc-stat';
import type { HostPty, PtyExit, PtyOptions } from '../host';
import { signalGroup } from './local-process';
import { hangUp } from '../hang-up';

/** A pseudo-terminal of this machine (node-pty); its process leads its own session and process group. */
export class LocalPty implements HostPty {
  private readonly proc: pty.IPty;
  private readonly listeners = new Set<(data: string) => void>();
  private ended = false;
  readonly exited: Promise<PtyExit>;

  constructor(argv: readonly string[], options: PtyOptions) {
    const [command, ...args] = argv;
    if (command === undefined) throw new Error('nothing to run: the command line is empty');
    // Before the fork: a watchdog started later would inherit this terminal's master and keep it from its hangup.
    ensureGroupWatchdog();
    this.proc = pty.spawn(command, args, { name: 'xterm-256color', cols: options.cols, rows: options.rows, cwd: options.cwd, env: options.env });
    this.proc.onData((data) => {
      for (const l of this.listeners) l(data);
    });
    // Ended by the watchdog (a hangup first) should Switchboard die first.
    const unguard = guardProcessGroup(this.proc.pid, { hangup: true });
    this.exited = new Promise((resolve) => {
      this.proc.onExit(({ exitCode, signal }) => {
        unguard();
        this.ended = true;
        resolve({ exitCode: signal ? null : exitCode, signal: signal ? signal : null });
      });
    });
  }

  get pid(): number {
    return this.proc.pid;
  }

  onData(listener: (data: string) => void): Disposable {
    this.listeners.add(listener);
    return toDisposable(() => void this.listeners.delete(listener));
  }

  write(data: string): void {
    if (!this.ended) this.proc.write(data);
  }

  resize(cols: number, rows: number): void {
    if (!this.ended) this.proc.resize(cols, rows);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.ended) return;
    if (!signalGroup(this.proc.pid, signal)) {
      try {
        this.proc.kill(signal);
      } catch {
        /* already gone */
      }
    }
  }

  /**
   * An interactive shell ignores SIGTERM: hang up instead, SIGKILL after 2 s. A shell's jobs run in process
   * groups of their own; the kernel hangs up on the foreground one as the shell ends: wait a moment for what
   * is ending (a job that ignores hangups, as nohup's, is left to run).
   */
  async dispose(): Promise<void> {
    if (!this.ended) {
      await hangUp(this);
      for (let waited = 0; waited < 500 && sessionMembers(this.proc.pid) > 0; waited += 25) await new Promise((r) => setTimeout(r, 25));
    }
    this.listeners.clear();
  }
}
