import { randomUUID } from 'node:crypto';
import type { Disposable } from '../base/lifecycle';
import type { Host, HostPty, PtyExit } from '../host/host';

export type { PtyExit } from '../host/host';

export interface PtySpawnOptions {
  /** Where it runs (default: the PtyHost's host). */
  host?: Host;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols?: number;
  rows?: number;
  /** Bytes of output kept for late readers (terminal/output, a view attaching late). */
  outputLimit?: number;
  /**
   * For commands whose whole output matters (agent terminals): Linux discards what a pty's last writer
   * wrote but the reader had not read yet when the writer exits, so a fast command can lose the end of its
   * output. The command then runs under a tiny shell that, once it is done, prints a marker and waits for a
   * line: the marker read means everything before it was read, and the answer lets the shell exit with the
   * command's code (re-raising the signal that ended it). Nothing after the marker is output.
   */
  drainOnExit?: boolean;
}

const DRAIN_WRAPPER =
  't=$1; shift; "$@"; s=$?; stty sane -echo 2>/dev/null; printf \'\\033]7770;%s\\007\' "$t"; read -r _; ' +
  'if [ $s -gt 128 ] && [ $s -lt 160 ]; then kill -$((s - 128)) $$; fi; exit $s';

export interface PtyListener {
  onData?(id: string, data: string): void;
  onExit?(id: string, exit: PtyExit): void;
}

const DEFAULT_OUTPUT_LIMIT = 1_000_000;

/** Trims `text` from the start so its UTF-8 size is at most `limit` bytes, cutting only at a character boundary. */
export function keepTail(text: string, limit: number): { text: string; truncated: boolean } {
  const size = Buffer.byteLength(text, 'utf8');
  if (size <= limit) return { text, truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  let start = bytes.length - limit;
  // Skip UTF-8 continuation bytes (10xxxxxx) so the kept part starts on a character.
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return { text: bytes.subarray(start).toString('utf8'), truncated: true };
}

export class PtyProcess implements Disposable {
  readonly id = randomUUID();
  private output = '';
  private outputBytes = 0;
  private truncatedOutput = false;
  private exitInfo: PtyExit | null = null;
  private readonly exitWaiters: Array<(exit: PtyExit) => void> = [];
  private readonly proc: HostPty;
  private readonly limit: number;

  /** drainOnExit: the marker the wrapper prints once the command is done, and output held back that may start it. */
  private drain: { marker: string; held: string; seen: boolean } | null = null;

  constructor(host: Host, options: PtySpawnOptions, listener: PtyListener) {
    this.limit = options.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
    let argv = [options.command, ...options.args];
    if (options.drainOnExit && process.platform !== 'win32') {
      const token = randomUUID();
      this.drain = { marker: `\x1b]7770;${token}\x07`, held: '', seen: false };
      argv = ['/bin/sh', '-c', DRAIN_WRAPPER, 'sh', token, ...argv];
    }
    this.proc = host.openPty(argv, { cwd: options.cwd, env: options.env, cols: options.cols ?? 80, rows: options.rows ?? 24 });
    const deliver = (data: string) => {
      if (data === '') return;
      this.append(data);
      listener.onData?.(this.id, data);
    };
    this.proc.onData((data) => deliver(this.drained(data)));
    void this.proc.exited.then((exit) => {
      if (this.drain && !this.drain.seen) deliver(this.drain.held);
      this.exitInfo = exit;
      listener.onExit?.(this.id, exit);
      for (const w of this.exitWaiters.splice(0)) w(exit);
    });
  }

  /** What of `data` is the command's output: up to the drain marker (then answered), holding back a possible start of it. */
  private drained(data: string): string {
    const drain = this.drain;
    if (!drain) return data;
    if (drain.seen) return '';
    const text = drain.held + data;
    const at = text.indexOf(drain.marker);
    if (at >= 0) {
      drain.seen = true;
      drain.held = '';
      this.proc.write('\n');
      return text.slice(0, at);
    }
    const esc = text.lastIndexOf('\x1b');
    const keep = esc >= 0 && drain.marker.startsWith(text.slice(esc)) ? text.length - esc : 0;
    drain.held = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  private append(data: string): void {
    this.output += data;
    this.outputBytes += Buffer.byteLength(data, 'utf8');
    // Amortised trimming: only re-encode when well past the limit.
    if (this.outputBytes > this.limit * 2 || (this.outputBytes > this.limit && this.output.length > 65536)) {
      const kept = keepTail(this.output, this.limit);
      this.output = kept.text;
      this.outputBytes = Buffer.byteLength(kept.text, 'utf8');
      this.truncatedOutput ||= kept.truncated;
    }
  }

  get pid(): number {
    return this.proc.pid;
  }

  snapshot(): { output: string; truncated: boolean; exit: PtyExit | null } {
    const kept = keepTail(this.output, this.limit);
    return { output: kept.text, truncated: this.truncatedOutput || kept.truncated, exit: this.exitInfo };
  }

  get exit(): PtyExit | null {
    return this.exitInfo;
  }

  waitForExit(): Promise<PtyExit> {
    if (this.exitInfo) return Promise.resolve(this.exitInfo);
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  write(data: string): void {
    if (!this.exitInfo) this.proc.write(data);
  }

  resize(cols: number, rows: number): void {
    if (!this.exitInfo) this.proc.resize(cols, rows);
  }

  /** Signals the terminal's process group (so no grandchild survives). */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (!this.exitInfo) this.proc.kill(signal);
  }

  /** Hangs up, as a closed terminal window does, and waits for its session to end (see HostPty.dispose). */
  async dispose(): Promise<void> {
    await this.proc.dispose();
  }
}

/** Every pseudo-terminal of the app: shell tabs and the terminals agents ask for. */
export class PtyHost implements Disposable {
  private readonly procs = new Map<string, PtyProcess>();

  constructor(private readonly host: Host) {}

  spawn(options: PtySpawnOptions, listener: PtyListener = {}): PtyProcess {
    const proc = new PtyProcess(options.host ?? this.host, options, listener);
    this.procs.set(proc.id, proc);
    return proc;
  }

  get(id: string): PtyProcess | undefined {
    return this.procs.get(id);
  }

  /** Kills (if running) and forgets a terminal. */
  async release(id: string): Promise<void> {
    const proc = this.procs.get(id);
    if (!proc) return;
    this.procs.delete(id);
    await proc.dispose();
  }

  get size(): number {
    return this.procs.size;
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.procs.values()].map((p) => p.dispose()));
    this.procs.clear();
  }
}
