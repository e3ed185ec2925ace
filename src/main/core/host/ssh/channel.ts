import { spawn, type ChildProcess } from 'node:child_process';
import { FsRefusal, type RefusalReason } from '../files';
import { decode, encode, frame, FrameReader, FRAMES_START, PROTOCOL_VERSION, type ClientMessage, type LeftProc, type ProcEvent, type ServerMessage, type WireError } from './protocol';
import { sshSpawnOptions } from './ssh-command';

/** A process or pty of the host as the channel sees it: it receives its events and resends what was lost. */
export interface ChannelStream {
  /** The last event received (0: none). */
  readonly lastSeq: number;
  onEvent(s: number, ev: ProcEvent): void;
  /** The channel is up again; `known` is what the helper has of this stream (undefined: nothing). */
  onWelcome(known: { in: number; alive: boolean } | undefined, previousEnd?: string): void;
  onInputApplied(s: number): void;
}

export interface ChannelWatch {
  root: string;
  ignore: readonly string[];
  onEvent(ev: unknown): void;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Request ids, one sequence for every channel of this process: a request of a new connection never has the
 * id of one of a connection before it (of the same host or another), so an answer the host sends late, for
 * a request of a lost connection, can never be taken for the answer to a new one.
 */
let nextRequestId = 1;

/** Stray answers said on the console per channel (the count goes on). */
const MAX_STRAY_LINES = 3;

/** A wire error as the error it was on the host (an FsRefusal stays one). */
export function errorFromWire(e: WireError): Error {
  if (e.name === 'FsRefusal' && e.reason) return new FsRefusal(e.reason as RefusalReason, e.message);
  const err = new Error(e.message);
  if (e.code) (err as NodeJS.ErrnoException).code = e.code;
  return err;
}

/**
 * One ssh session (over the ControlMaster) running the helper's proxy, carrying JSON lines both ways.
 * `open` resolves once the helper has welcomed it; `down` settles when the session ends.
 */
export class Channel {
  private child: ChildProcess | null = null;
  private up = false;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; onNote?: ((v: unknown) => void) | undefined }>();
  private stderr = '';
  private strays = 0;
  readonly down: Promise<string>;
  private markDown!: (why: string) => void;

  constructor(
    private readonly streams: ReadonlyMap<string, ChannelStream>,
    private readonly watches: ReadonlyMap<number, ChannelWatch>,
    private readonly lostMessage: () => string,
    /** Hears the processes a previous client left (a fresh welcome's `left`). */
    private readonly onLeft: (left: readonly LeftProc[]) => void = () => undefined,
  ) {
    this.down = new Promise((resolve) => (this.markDown = resolve));
  }

  get isUp(): boolean {
    return this.up;
  }

  /** Answers (and notes) the host sent for no request under way on this channel: dropped. */
  get strayAnswers(): number {
    return this.strays;
  }

  private stray(what: string, id: unknown): void {
    this.strays++;
    if (this.strays <= MAX_STRAY_LINES) console.warn(`ssh channel: dropped ${what} for request ${String(id).slice(0, 32)}, which this connection is not waiting for`);
  }

  /** Starts `ssh … <remote command>` and says hello; resolves when welcomed, rejects with ssh's (or the helper's) words. */
  open(command: string, args: readonly string[], timeoutMs: number, fresh: boolean): Promise<void> {
    const child = spawn(command, args, sshSpawnOptions());
    this.child = child;
    child.stdin.on('error', () => undefined);
    child.stderr.on('data', (b: Buffer) => {
      if (this.stderr.length < 64 * 1024) this.stderr += b.toString('utf8');
    });
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`the helper did not answer within ${Math.round(timeoutMs / 1000)} s`));
        child.kill('SIGKILL');
      }, timeoutMs);
      const onMessage = (msg: ServerMessage): void => {
        if (!this.up) {
          if (msg.t !== 'welcome') return;
          clearTimeout(timer);
          if (msg.v !== PROTOCOL_VERSION) {
            reject(new Error(`the helper on the host speaks protocol ${msg.v}, not ${PROTOCOL_VERSION}`));
            child.kill('SIGKILL');
            return;
          }
          this.up = true;
          resolve();
        }
        this.onMessage(msg);
      };
      const reader = new FrameReader((msg) => onMessage(msg as unknown as ServerMessage));
      // Until the helper's frames start, what comes is a login script's chatter.
      let before: Buffer | null = Buffer.alloc(0);
      child.stdout.on('data', (chunk: Buffer) => {
        try {
          if (before !== null) {
            before = Buffer.concat([before, chunk]);
            const at = before.indexOf(FRAMES_START);
            if (at === -1) {
              if (before.length > 1024 * 1024) before = before.subarray(-FRAMES_START.length);
              return;
            }
            chunk = before.subarray(at + FRAMES_START.length);
            before = null;
          }
          reader.push(chunk);
        } catch (e) {
          this.stderr += `\n${messageOf(e)}`;
          child.kill('SIGKILL');
        }
      });
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        const why = this.stderr.trim() || `ssh ended (exit code ${code ?? 'none'})`;
        reject(new Error(why));
        this.close(why);
      });
      const procs: Record<string, { out: number }> = {};
      for (const [p, s] of this.streams) procs[p] = { out: s.lastSeq };
      this.write({ t: 'hello', v: PROTOCOL_VERSION, procs, ...(fresh ? { fresh: true as const } : {}) });
    });
  }

  private close(why: string): void {
    this.up = false;
    for (const { reject } of this.pending.values()) reject(new Error(this.lostMessage()));
    this.pending.clear();
    this.markDown(why);
  }

  private write(msg: ClientMessage): void {
    const stdin = this.child?.stdin;
    if (stdin && !stdin.destroyed) stdin.write(frame(msg));
  }

  /** Sends when up; otherwise drops it (streams resend what matters on the next welcome). */
  send(msg: ClientMessage): void {
    if (this.up) this.write(msg);
  }

  /** A request to the helper; `onNote` hears the notes it sends while under way (progress). */
  request(op: string, a: unknown, onNote?: (v: unknown) => void): Promise<unknown> {
    if (!this.up) return Promise.reject(new Error(this.lostMessage()));
    const id = nextRequestId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onNote });
      this.write({ t: 'req', id, op, a: encode(a) });
    });
  }

  private onMessage(msg: ServerMessage): void {
    switch (msg.t) {
      case 'welcome':
        for (const [p, s] of this.streams) s.onWelcome(msg.procs[p], msg.previousEnd);
        if (msg.left) this.onLeft(msg.left);
        return;
      case 'res': {
        const waiting = this.pending.get(msg.id);
        if (!waiting) return this.stray('an answer', msg.id);
        this.pending.delete(msg.id);
        if (!msg.ok) return waiting.reject(errorFromWire(msg.err));
        try {
          waiting.resolve(decode(msg.v));
        } catch (e) {
          waiting.reject(new Error(`the helper's answer could not be read: ${messageOf(e)}`));
        }
        return;
      }
      case 'note': {
        const waiting = this.pending.get(msg.id);
        if (!waiting) return this.stray('a note', msg.id);
        const onNote = waiting.onNote;
        try {
          onNote?.(decode(msg.v));
        } catch {
          /* an unreadable note is only progress */
        }
        return;
      }
      case 'ev': {
        const { t: _t, p, s, ...ev } = msg;
        this.streams.get(p)?.onEvent(s, ev as ProcEvent);
        return;
      }
      case 'ina':
        this.streams.get(msg.p)?.onInputApplied(msg.s);
        return;
      case 'watch':
        this.watches.get(msg.w)?.onEvent(msg.ev);
        return;
    }
  }

  /** Ends the session (the helper's daemon keeps running). */
  kill(): void {
    this.child?.kill('SIGKILL');
  }
}
