/**
 * A process inside a container, run by `<engine> exec` on the container's host. The engine's exec does not pass
 * signals on (killing it leaves the process running inside), so the process first says its pid inside (a
 * first line of output, taken off) and is signalled there, with its whole process group. When the container
 * stops under it (killed from outside), its exit says so.
 */
import { Transform, type Readable, type Writable } from 'node:stream';
import type { HostProcess, ProcessExit } from '../host/host';

/**
 * The container's count of out-of-memory kills so far (cgroups v2, then v1) in `$n`, read with the shell's
 * builtins only: each process says it at its start, so no exec of its own is spent on it.
 */
export const OOM_KILLS = 'n=; for f in /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control; do [ -r "$f" ] && while read -r k v; do [ "$k" = oom_kill ] && n=$v && break; done < "$f"; [ -n "$n" ] && break; done';

/**
 * Runs argv in the container after printing its own pid (it leads its own session there: `exec` makes it so)
 * and the container's out-of-memory kills so far (empty where the cgroup does not say): `<pid> <kills>`.
 */
export const SAY_PID = ['/bin/sh', '-c', `${OOM_KILLS}; echo "$$ $n" && exec "$@"`, 'sh'];

/** The pid inside and the out-of-memory kills (null: not said) of SAY_PID's first line. */
export function parsePidLine(line: string): { pid: number | null; oomKills: number | null } {
  const [pid, kills] = line.trim().split(' ');
  const n = Number(pid);
  const k = kills === undefined || kills === '' ? NaN : Number(kills);
  return { pid: Number.isInteger(n) && n > 1 ? n : null, oomKills: Number.isInteger(k) && k >= 0 ? k : null };
}

export interface ContainerControl {
  /** Signals a process group inside the container (best effort). */
  signal(pgid: number, signal: NodeJS.Signals): void;
  /** Null while the container runs; else why processes in it ended. */
  whyStopped(): Promise<string | null>;
  /** The container's out-of-memory kills as a process started (the first said is what later ones are told from). */
  noteOomKills(kills: number): void;
}

export class ContainerProcess implements HostProcess {
  readonly stdout: Readable;
  readonly stdin: Writable;
  readonly stderr: Readable;
  readonly started: Promise<void>;
  readonly exited: Promise<ProcessExit>;
  readonly closed: Promise<ProcessExit>;
  private inside: number | null = null;
  private pendingSignal: NodeJS.Signals | null = null;

  constructor(
    private readonly exec: HostProcess,
    private readonly control: ContainerControl,
  ) {
    this.stdin = exec.stdin;
    this.stderr = exec.stderr;
    const out = firstLineTaker((line) => {
      const { pid, oomKills } = parsePidLine(line);
      if (oomKills !== null) this.control.noteOomKills(oomKills);
      if (pid !== null) this.inside = pid;
      if (this.pendingSignal && this.inside) this.control.signal(this.inside, this.pendingSignal);
    });
    exec.stdout.pipe(out);
    this.stdout = out;
    this.started = exec.started;
    const explain = async (exit: ProcessExit): Promise<ProcessExit> => {
      if (exit.error !== null || (exit.code === 0 && exit.signal === null)) return exit;
      const why = await control.whyStopped().catch(() => null);
      return why ? { ...exit, error: why } : exit;
    };
    // Asked once per process: the second answer would not see the out-of-memory kill the first one counted.
    this.exited = exec.exited.then(explain);
    this.closed = exec.closed.then(() => this.exited);
  }

  get pid(): number | null {
    return this.exec.pid;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.inside) this.control.signal(this.inside, signal);
    else this.pendingSignal = signal;
    // The exec itself ends with what it ran; a SIGKILL also ends it here, should the container not answer.
    if (signal === 'SIGKILL') this.exec.kill('SIGKILL');
  }

  dispose(): void {
    this.kill('SIGKILL');
    this.exec.dispose();
  }
}

/** A stream that hands its first line (bounded) to `onLine` and passes the rest on unchanged. */
export function firstLineTaker(onLine: (line: string) => void): Transform {
  let head: Buffer | null = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (head === null) return done(null, chunk);
      const all = Buffer.concat([head, chunk]);
      const nl = all.indexOf(0x0a);
      if (nl < 0 && all.length < 64) {
        head = all;
        return done();
      }
      head = null;
      const cut = nl < 0 ? 0 : nl + 1;
      onLine(all.subarray(0, cut).toString('utf8'));
      done(null, all.subarray(cut));
    },
  });
}
