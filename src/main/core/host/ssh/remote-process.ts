import { constants } from 'node:os';
import { PassThrough, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { toDisposable, type Disposable } from '../../base/lifecycle';
import type { HostProcess, HostPty, ProcessExit, PtyExit } from '../host';
import type { ChannelStream } from './channel';
import type { ClientMessage, ProcEvent, StartSpec } from './protocol';
import { hangUp } from '../hang-up';

/** What a stream needs of its host's connection. */
export interface StreamLink {
  send(msg: ClientMessage): void;
  /** The connection is up (what is sent now is on its way). */
  isUp(): boolean;
  /** The host forgets the stream (it ended and was disposed). */
  release(id: string): void;
}

const ACK_EVERY_BYTES = 512 * 1024;

/**
 * A process or pty on the host, seen from here: numbered events received once and in order (a replay after
 * a reconnect skips what arrived already), input numbered and kept until the helper has applied it.
 */
abstract class RemoteStream implements ChannelStream {
  lastSeq = 0;
  private acked = 0;
  private unackedBytes = 0;
  private ackTimer: NodeJS.Timeout | null = null;
  private inSeq = 0;
  /** Input sent and not applied yet (`once`: dropped rather than sent again after a reconnect). */
  private readonly inputs: Array<{ s: number; d?: Buffer; eof?: true; once?: true }> = [];
  /** The helper said it started (or failed): a restart of the helper then means it is lost. */
  protected began = false;
  protected ended = false;

  constructor(
    readonly id: string,
    private readonly spec: StartSpec,
    protected readonly link: StreamLink,
  ) {}

  /** A process a previous client left, taken back (see protocol.ts `claim`); null: started by this one. */
  protected adopted: { pid: number | null; in: number } | null = null;

  protected start(): void {
    if (this.adopted) {
      // Running already: what it wrote since is replayed; input goes on from the last it applied.
      this.began = true;
      this.inSeq = this.adopted.in;
      this.link.send({ t: 'claim', p: this.id });
    } else {
      this.link.send({ t: 'start', p: this.id, spec: this.spec });
    }
  }

  protected sendInput(data: Buffer | null): void {
    const s = ++this.inSeq;
    const msg = data ? { s, d: Buffer.from(data) } : { s, eof: true as const };
    this.inputs.push(msg);
    this.link.send({ t: 'in', p: this.id, ...msg });
  }

  /** Input sent now if the connection is up, never after a reconnect (see HostProcess.writeNowOrNever). */
  protected sendInputOnce(data: Buffer): void {
    if (!this.link.isUp()) return;
    const s = ++this.inSeq;
    this.inputs.push({ s, d: Buffer.from(data), once: true });
    this.link.send({ t: 'in', p: this.id, s, d: Buffer.from(data) });
  }

  onInputApplied(s: number): void {
    while (this.inputs.length > 0 && this.inputs[0]!.s <= s) this.inputs.shift();
  }

  onWelcome(known: { in: number; alive: boolean } | undefined, previousEnd?: string): void {
    if (known) {
      this.onInputApplied(known.in);
    } else if (this.began) {
      if (!this.ended) this.lost(`the process on the host is gone: ${previousEnd ?? 'the helper there was started again, without it'}`);
      return;
    } else {
      this.start();
    }
    // What was sent now-or-never and not applied is dropped; the numbers after it still apply in order.
    for (let k = this.inputs.length - 1; k >= 0; k--) if (this.inputs[k]!.once) this.inputs.splice(k, 1);
    for (const { s, d, eof } of this.inputs) this.link.send({ t: 'in', p: this.id, s, ...(d ? { d } : {}), ...(eof ? { eof } : {}) });
    if (this.lastSize) this.link.send({ t: 'resize', p: this.id, ...this.lastSize });
    if (this.lastSignal && !this.ended) this.link.send({ t: 'kill', p: this.id, sig: this.lastSignal });
    this.ack();
  }

  onEvent(s: number, ev: ProcEvent): void {
    if (s <= this.lastSeq) return;
    this.lastSeq = s;
    if (ev.e === 'started' || ev.e === 'failed') this.began = true;
    this.handle(ev);
    if (ev.e === 'out') this.unackedBytes += ev.d.length;
    if (this.unackedBytes >= ACK_EVERY_BYTES) this.ack();
    else this.ackTimer ??= setTimeout(() => this.ack(), 50);
  }

  private ack(): void {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = null;
    this.unackedBytes = 0;
    if (this.lastSeq > this.acked) {
      this.acked = this.lastSeq;
      this.link.send({ t: 'ack', p: this.id, s: this.lastSeq });
    }
  }

  /** The last signal and size asked for: sent again after a reconnect (the channel drops what it cannot send). */
  private lastSignal: string | null = null;
  protected lastSize: { cols: number; rows: number } | null = null;

  protected signal(sig: string): void {
    this.lastSignal = sig;
    this.link.send({ t: 'kill', p: this.id, sig });
  }

  protected release(): void {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = null;
    this.link.send({ t: 'forget', p: this.id });
    this.link.release(this.id);
  }

  protected abstract handle(ev: ProcEvent): void;
  /** The process cannot be reached any more (the host was closed, or its helper restarted). */
  abstract lost(why: string): void;
}

/** A process on an SSH host (HostProcess), run by the helper there. */
export class RemoteProcess extends RemoteStream implements HostProcess {
  private remotePid: number | null = null;
  readonly stdin: Writable;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly started: Promise<void>;
  readonly exited: Promise<ProcessExit>;
  readonly closed: Promise<ProcessExit>;
  private markStarted!: () => void;
  private failStart!: (e: Error) => void;
  private onExit!: (e: ProcessExit) => void;
  private onClose!: (e: ProcessExit) => void;

  constructor(id: string, spec: StartSpec, link: StreamLink, adopt: { pid: number | null; in: number } | null = null) {
    super(id, spec, link);
    this.adopted = adopt;
    this.started = new Promise<void>((resolve, reject) => {
      this.markStarted = resolve;
      this.failStart = reject;
    });
    this.started.catch(() => undefined);
    this.exited = new Promise((resolve) => (this.onExit = resolve));
    this.closed = new Promise((resolve) => (this.onClose = resolve));
    void this.closed.then(() => this.release());
    if (spec.stdin === 'ignore') {
      this.stdin = new PassThrough().end();
    } else {
      this.stdin = new Writable({
        write: (chunk: Buffer, _enc, cb) => {
          this.sendInput(chunk);
          cb();
        },
        final: (cb) => {
          this.sendInput(null);
          cb();
        },
      });
    }
    this.stdin.on('error', () => undefined);
    this.start();
    if (adopt) {
      this.remotePid = adopt.pid;
      this.markStarted();
    }
  }

  get pid(): number | null {
    return this.remotePid;
  }

  protected handle(ev: ProcEvent): void {
    switch (ev.e) {
      case 'started':
        this.remotePid = ev.pid;
        this.markStarted();
        return;
      case 'failed':
        this.finish({ code: null, signal: null, error: ev.error, ...(ev.code ? { errorCode: ev.code } : {}) }, true);
        return;
      case 'out':
        (ev.fd === 1 ? this.stdout : this.stderr).write(ev.d);
        return;
      case 'exit':
        this.onExit({ code: ev.code, signal: ev.signal, error: null });
        return;
      case 'closed':
        this.finish({ code: ev.code, signal: ev.signal, error: null }, false, true);
        return;
      case 'pid':
        return;
    }
  }

  /** `drained`: `closed` waits until its output was read (every byte delivered, as a local process's pipes). */
  private finish(exit: ProcessExit, failedStart: boolean, drained = false): void {
    if (this.ended) return;
    this.ended = true;
    if (failedStart) this.failStart(new Error(exit.error ?? 'the process could not be started'));
    this.stdout.end();
    this.stderr.end();
    this.onExit(exit);
    if (!drained) {
      this.onClose(exit);
      return;
    }
    // What is still buffered is delivered once read; a stream with nothing left is done.
    const ended = (r: PassThrough) => (r.readableEnded || r.readableLength === 0 ? Promise.resolve() : new Promise<void>((resolve) => r.once('end', resolve).once('close', resolve)));
    void Promise.all([ended(this.stdout), ended(this.stderr)]).then(() => this.onClose(exit));
  }

  lost(why: string): void {
    this.finish({ code: null, signal: null, error: why }, !this.began);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.signal(signal);
  }

  writeNowOrNever(data: string): void {
    if (!this.ended && !this.stdin.writableEnded) this.sendInputOnce(Buffer.from(data, 'utf8'));
  }

  dispose(): void {
    this.kill('SIGKILL');
  }
}

/** A pseudo-terminal on an SSH host (HostPty): a real pty there (script(1)), run by the helper. */
export class RemotePty extends RemoteStream implements HostPty {
  private remotePid = 0;
  private readonly listeners = new Set<(data: string) => void>();
  private readonly decoder = new StringDecoder('utf8');
  readonly exited: Promise<PtyExit>;
  private onExit!: (e: PtyExit) => void;

  constructor(id: string, spec: StartSpec, link: StreamLink) {
    super(id, spec, link);
    this.exited = new Promise((resolve) => (this.onExit = resolve));
    this.start();
  }

  /** The terminal's process on the host (0 until the helper has said it). */
  get pid(): number {
    return this.remotePid;
  }

  protected handle(ev: ProcEvent): void {
    switch (ev.e) {
      case 'started':
      case 'pid':
        this.remotePid = ev.pid;
        return;
      case 'failed':
        this.emit(`\r\n${ev.error}\r\n`);
        this.finish({ exitCode: null, signal: null });
        return;
      case 'out':
        this.emit(this.decoder.write(ev.d));
        return;
      case 'exit':
        // script(1) reports a child ended by signal N as 128 + N.
        this.finish(ev.signal ? { exitCode: null, signal: constants.signals[ev.signal as NodeJS.Signals] ?? 9 } : ev.code !== null && ev.code > 128 && ev.code < 160 ? { exitCode: null, signal: ev.code - 128 } : { exitCode: ev.code, signal: null });
        return;
      case 'closed':
        this.release();
        return;
    }
  }

  private emit(data: string): void {
    if (data) for (const l of this.listeners) l(data);
  }

  private finish(exit: PtyExit): void {
    if (this.ended) return;
    this.ended = true;
    this.emit(this.decoder.end());
    this.onExit(exit);
  }

  lost(why: string): void {
    this.emit(`\r\n${why}\r\n`);
    this.finish({ exitCode: null, signal: null });
  }

  onData(listener: (data: string) => void): Disposable {
    this.listeners.add(listener);
    return toDisposable(() => void this.listeners.delete(listener));
  }

  write(data: string): void {
    if (!this.ended) this.sendInput(Buffer.from(data, 'utf8'));
  }

  resize(cols: number, rows: number): void {
    if (this.ended) return;
    this.lastSize = { cols, rows };
    this.link.send({ t: 'resize', p: this.id, cols, rows });
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (!this.ended) this.signal(signal);
  }

  async dispose(): Promise<void> {
    if (!this.ended) {
      await hangUp(this);
    }
    this.listeners.clear();
  }
}
