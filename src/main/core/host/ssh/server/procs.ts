import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, readlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { ProcEvent, StartSpec } from '../protocol';

/** Unacknowledged output kept per process before its output is paused (the process then waits, nothing is lost). */
const MAX_UNACKED_BYTES = 8 * 1024 * 1024;

const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function signalGroup(pid: number | null | undefined, signal: string): boolean {
  if (!pid) return false;
  try {
    process.kill(-pid, signal as NodeJS.Signals);
    return true;
  } catch {
    return false;
  }
}

/** The environment of a started process: the host's own, with the caller's variables over it. */
function envFor(given: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, ...given };
}

/**
 * A process (or pty) the daemon started for the client: it leads its own process group, and every event
 * of it is numbered and kept until the client acknowledges it (replayed after a reconnect).
 */
export class Proc {
  private seq = 0;
  private readonly kept: Array<{ s: number; ev: ProcEvent; bytes: number }> = [];
  private keptBytes = 0;
  private paused = false;
  /** The last input applied (numbered by the client). */
  inApplied = 0;
  closed = false;
  forgotten = false;
  /** Left by a previous client, not claimed yet: stopped when this timer fires. */
  leftTimer: NodeJS.Timeout | null = null;
  readonly child: ChildProcess;
  /** The pty's own process (script's child), the one that leads the terminal's session. */
  private ptyLeader: number | null = null;
  private pendingSize: { cols: number; rows: number } | null = null;

  constructor(
    readonly id: string,
    readonly spec: StartSpec,
    private readonly deliver: (p: string, s: number, ev: ProcEvent) => void,
  ) {
    const env = envFor(spec.env);
    const cwd = spec.cwd ?? homedir();
    if (spec.kind === 'pty') {
      // A real terminal on the host without a native module: util-linux's script(1) opens the pty, makes it
      // the controlling terminal of a new session and relays it to its own stdio.
      const restoreShell = env.SHELL ? `SHELL=${shq(env.SHELL)}; export SHELL; ` : 'unset SHELL; ';
      const inner = `stty cols ${spec.cols ?? 80} rows ${spec.rows ?? 24} 2>/dev/null; ${restoreShell}exec ${spec.argv.map(shq).join(' ')}`;
      this.child = spawn('script', ['-q', '-f', '-e', '-c', inner, '/dev/null'], { cwd, env: { ...env, SHELL: '/bin/sh' }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } else {
      const [command, ...args] = spec.argv;
      this.child = spawn(command ?? '', args, { cwd, env, stdio: [spec.stdin ?? 'pipe', 'pipe', 'pipe'], detached: true });
    }
    const child = this.child;
    child.stdin?.on('error', () => undefined);
    child.once('spawn', () => {
      this.emit({ e: 'started', pid: child.pid! });
      if (spec.kind === 'pty') void this.findPtyLeader();
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return;
      const what = spec.kind === 'pty' && e.code === 'ENOENT' && e.path === 'script' ? 'script (util-linux) is missing on the host: terminals need it' : e.message;
      this.emit({ e: 'failed', error: what, ...(e.code ? { code: e.code } : {}) });
      this.closed = true;
    });
    child.stdout!.on('data', (b: Buffer) => this.emit({ e: 'out', fd: 1, d: b }, b.length));
    child.stderr!.on('data', (b: Buffer) => this.emit({ e: 'out', fd: 2, d: b }, b.length));
    child.on('exit', (code, signal) => this.emit({ e: 'exit', code, signal }));
    child.on('close', (code, signal) => {
      this.closed = true;
      this.emit({ e: 'closed', code, signal });
    });
  }

  private emit(ev: ProcEvent, bytes = 0): void {
    const s = ++this.seq;
    this.kept.push({ s, ev, bytes });
    this.keptBytes += bytes;
    if (this.keptBytes > MAX_UNACKED_BYTES && !this.paused) {
      this.paused = true;
      this.child.stdout?.pause();
      this.child.stderr?.pause();
    }
    this.deliver(this.id, s, ev);
  }

  /** Everything after `after`, in order (a reattaching client's missing events). */
  replay(after: number): void {
    for (const k of this.kept) if (k.s > after) this.deliver(this.id, k.s, k.ev);
  }

  /** Its pid (null before it started, or when it could not). */
  get pid(): number | null {
    return this.child.pid ?? null;
  }

  /**
   * A new client takes it back: everything it wrote that was never acknowledged, in order; and, if it ended
   * and its end was acknowledged by the client that left, the end again (the new client has to hear it).
   */
  claim(): void {
    if (this.leftTimer) clearTimeout(this.leftTimer);
    this.leftTimer = null;
    this.replay(0);
    if (this.closed && !this.kept.some((k) => k.ev.e === 'closed')) {
      const code = this.child.exitCode;
      const signal = this.child.signalCode;
      this.emit({ e: 'exit', code, signal });
      this.emit({ e: 'closed', code, signal });
    }
  }

  ack(s: number): void {
    while (this.kept.length > 0 && this.kept[0]!.s <= s) this.keptBytes -= this.kept.shift()!.bytes;
    if (this.paused && this.keptBytes < MAX_UNACKED_BYTES / 2) {
      this.paused = false;
      this.child.stdout?.resume();
      this.child.stderr?.resume();
    }
  }

  input(s: number, data: Buffer | null): void {
    if (s <= this.inApplied) return;
    this.inApplied = s;
    const stdin = this.child.stdin;
    if (!stdin || stdin.destroyed) return;
    if (data) stdin.write(data);
    else stdin.end();
  }

  kill(signal: string): void {
    const leader = this.ptyLeader ?? this.child.pid;
    if (!signalGroup(leader, signal)) {
      try {
        this.child.kill(signal as NodeJS.Signals);
      } catch {
        /* gone */
      }
    }
  }

  resize(cols: number, rows: number): void {
    if (this.spec.kind !== 'pty') return;
    if (this.ptyLeader === null) {
      this.pendingSize = { cols, rows };
      return;
    }
    void readlink(`/proc/${this.ptyLeader}/fd/0`).then(
      (tty) => {
        if (tty.startsWith('/dev/')) spawn('stty', ['-F', tty, 'cols', String(cols), 'rows', String(rows)], { stdio: 'ignore' }).on('error', () => undefined);
      },
      () => undefined,
    );
  }

  /** script(1)'s child, found in /proc (Linux): the process leading the terminal's session. */
  private async findPtyLeader(): Promise<void> {
    const pid = this.child.pid!;
    for (let i = 0; i < 200 && !this.closed; i++) {
      const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
      const first = Number(children.trim().split(/\s+/)[0]);
      if (first > 0) {
        this.ptyLeader = first;
        this.emit({ e: 'pid', pid: first });
        if (this.pendingSize) this.resize(this.pendingSize.cols, this.pendingSize.rows);
        return;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
