import { randomUUID } from 'node:crypto';
import { SETUP_OUTPUT_CHARS, type SetupEnd, type SetupRun } from '../../../shared/contract/worktrees';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Host, HostProcess } from '../host/host';
import { isInside, realish } from './folder';

const TAIL_CHARS = 8 * 1024;
/** After SIGTERM (cancel, timeout), how long the command's group gets before SIGKILL. */
const KILL_GRACE_MS = 3000;

interface Running {
  run: SetupRun;
  /** The output from its first byte (up to SETUP_OUTPUT_CHARS), and how many characters came in all. */
  output: string;
  length: number;
  proc: HostProcess;
  timer: NodeJS.Timeout;
  stopping: 'cancelled' | 'timed_out' | null;
  done: Promise<SetupEnd>;
}

/**
 * A repository's setup command, run with /bin/sh in a new worktree: its output streamed as events, a Cancel, a
 * timeout. The command is the user's own (set in their settings), run as they would run it in that folder.
 */
export class SetupRunner implements Disposable {
  private readonly running = new Map<string, Running>();
  private readonly ended: SetupRun[] = [];

  constructor(
    private readonly host: Host,
    private readonly bus: EventBus,
    private readonly env: () => Record<string, string>,
  ) {}

  start(path: string, command: string, timeoutMs: number): SetupRun {
    const run: SetupRun = { id: randomUUID(), path, command, startedAt: Date.now(), ended: null };
    const proc = this.host.spawn(['/bin/sh', '-c', command], { cwd: path, env: this.env(), stdin: 'ignore' });
    let tail = '';
    const decoder = new TextDecoder();
    const onData = (chunk: Buffer) => {
      // One decoder for both streams' bytes: a character split across two chunks is not lost.
      const text = decoder.decode(chunk, { stream: true });
      if (!text) return;
      tail = (tail + text).slice(-TAIL_CHARS);
      const offset = entry.length;
      entry.length += text.length;
      if (entry.output.length < SETUP_OUTPUT_CHARS) entry.output = (entry.output + text).slice(0, SETUP_OUTPUT_CHARS);
      this.bus.emit('worktrees.setupOutput', { id: run.id, path, chunk: text, offset });
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    const entry: Running = {
      run,
      output: '',
      length: 0,
      proc,
      stopping: null,
      timer: setTimeout(() => this.stop(entry, 'timed_out'), timeoutMs),
      done: proc.closed.then((exit) => {
        clearTimeout(entry.timer);
        const status: SetupEnd['status'] = entry.stopping ?? (exit.error === null && exit.code === 0 ? 'succeeded' : 'failed');
        if (exit.error) tail = (tail + `\n${exit.error}`).slice(-TAIL_CHARS);
        const end: SetupEnd = { status, exitCode: exit.code, tail };
        run.ended = end;
        run.output = entry.output;
        this.running.delete(run.id);
        this.ended.push(run);
        if (this.ended.length > 50) this.ended.shift();
        this.bus.emit('worktrees.setupEnded', { id: run.id, path, end });
        return end;
      }),
    };
    this.running.set(run.id, entry);
    return run;
  }

  private stop(entry: Running, why: 'cancelled' | 'timed_out'): void {
    if (entry.stopping) return;
    entry.stopping = why;
    entry.proc.kill('SIGTERM');
    const kill = setTimeout(() => entry.proc.dispose(), KILL_GRACE_MS);
    void entry.proc.exited.then(() => clearTimeout(kill));
  }

  cancel(id: string): boolean {
    const entry = this.running.get(id);
    if (!entry) return false;
    this.stop(entry, 'cancelled');
    return true;
  }

  /** Cancels what runs in `path` (its worktree is being removed). */
  async cancelIn(path: string): Promise<void> {
    const entries = [...this.running.values()].filter((e) => e.run.path === path);
    for (const e of entries) this.stop(e, 'cancelled');
    await Promise.all(entries.map((e) => e.done));
  }

  /** The setup command running in the worktree at `path` (the sessions there wait for it), or null. */
  holdFor(path: string): { reason: string; done: Promise<SetupEnd> } | null {
    if (this.running.size === 0) return null;
    const real = realish(path);
    const entry = [...this.running.values()].find((e) => e.run.path === path || isInside(real, realish(e.run.path)));
    return entry ? { reason: `the setup command (${entry.run.command.slice(0, 80)})`, done: entry.done } : null;
  }

  wait(id: string): Promise<SetupEnd> | undefined {
    return this.running.get(id)?.done;
  }

  list(path?: string): SetupRun[] {
    return [...this.ended, ...[...this.running.values()].map((e) => ({ ...e.run, output: e.output }))].filter((r) => path === undefined || r.path === path);
  }

  dispose(): void {
    for (const e of this.running.values()) {
      clearTimeout(e.timer);
      e.proc.dispose();
    }
  }
}
