import type { Disposable } from '../base/lifecycle';
import type { HostPty, PtyExit } from '../host/host';
import { type ContainerControl, parsePidLine } from './container-process';

/** A terminal inside a container (see container-process.ts: its first line is its pid inside, taken off). */
export class ContainerPty implements HostPty {
  private inside: number | null = null;
  private head: string | null = '';
  private readonly listeners = new Set<(data: string) => void>();
  /** Input held until the pid line came (the terminal would echo it before, and the line would not be first). */
  private held: string[] | null = [];
  readonly exited: Promise<PtyExit>;

  constructor(
    private readonly exec: HostPty,
    private readonly control: ContainerControl,
  ) {
    this.exited = exec.exited;
    exec.onData((data) => {
      if (this.head === null) return this.emit(data);
      const all = this.head + data;
      const nl = all.indexOf('\n');
      if (nl < 0 && all.length < 64) {
        this.head = all;
        return;
      }
      this.head = null;
      for (const d of this.held ?? []) this.exec.write(d);
      this.held = null;
      const { pid, oomKills } = parsePidLine(all.slice(0, Math.max(nl, 0)));
      if (oomKills !== null) this.control.noteOomKills(oomKills);
      if (pid !== null) this.inside = pid;
      const rest = all.slice(nl + 1);
      if (rest) this.emit(rest);
    });
  }

  get pid(): number {
    return this.exec.pid;
  }

  onData(listener: (data: string) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  write(data: string): void {
    if (this.held) this.held.push(data);
    else this.exec.write(data);
  }

  resize(cols: number, rows: number): void {
    this.exec.resize(cols, rows);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.inside) this.control.signal(this.inside, signal);
    this.exec.kill(signal);
  }

  async dispose(): Promise<void> {
    if (this.inside) this.control.signal(this.inside, 'SIGHUP');
    await this.exec.dispose();
  }

  private emit(data: string): void {
    for (const l of this.listeners) l(data);
  }
}
