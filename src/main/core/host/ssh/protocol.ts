/**
 * The one channel between SshHost (here) and its helper on the host (server/*.ts), over the ssh session's
 * stdio: length-prefixed frames (`frame`, `FrameReader`), each a JSON message, with the bytes of a stream
 * (`d`: a process's output, input to it) carried raw after the JSON, not encoded. Other bytes (a file's
 * contents in a request) travel as base64 inside `{ $b }` (see `encode`/`decode`). The helper's frames start
 * after `FRAMES_START` (a login script may print before it). Nothing here needs Node beyond Buffer; both sides
 * import it (the helper is bundled from source).
 *
 * Process streams (spawn and pty) are numbered by the client (`p`). Every event of a process the helper
 * sends carries a sequence number (`s`, from 1) and is kept by the helper until the client acknowledges it
 * (`ack`): after a dropped connection the client says the last one it has (`hello.procs`) and the helper
 * replays the rest, in order, once. Input the client sends is numbered the same way (`in.s`), so input sent
 * while the connection was failing is applied once (`welcome.procs[p].in` is the last one applied).
 *
 * A request (`req`) belongs to the connection it was sent on: the helper answers it (`res`, its `note`s) on
 * that connection or not at all, and a watch's events go to the connection that started it, which stops it
 * when it ends. The client numbers requests once for all its connections and drops answers it is not
 * waiting for on this one; what it waited for on a lost connection fails, in words (the caller asks again).
 *
 * A new client (`hello.fresh`: Switchboard started again, with the same instance) is told the processes a
 * previous one left (`welcome.left`); it takes one back (`claim`) when it starts the same command again, and
 * the helper replays what the process wrote that was never acknowledged. What no one claims within the grace
 * period is stopped.
 */

export const PROTOCOL_VERSION = 2;

/** What the helper's proxy writes before its first frame. */
export const FRAMES_START = Buffer.from('\nswitchboard-helper-frames\n');

/** A process or pty the client asks the helper to start. */
export interface StartSpec {
  kind: 'spawn' | 'pty';
  argv: string[];
  cwd?: string;
  env: Record<string, string>;
  stdin?: 'pipe' | 'ignore';
  cols?: number;
  rows?: number;
}

export type ClientMessage =
  | { t: 'hello'; v: number; procs: Record<string, { out: number }>; /** A new client: processes a previous one left are offered (`welcome.left`). */ fresh?: true }
  /** Takes back a process a previous client left: its unacknowledged events are replayed, from the first. */
  | { t: 'claim'; p: string }
  | { t: 'req'; id: number; op: string; a: unknown }
  | { t: 'start'; p: string; spec: StartSpec }
  | { t: 'in'; p: string; s: number; d?: Buffer; eof?: true }
  | { t: 'kill'; p: string; sig: string }
  | { t: 'resize'; p: string; cols: number; rows: number }
  | { t: 'ack'; p: string; s: number }
  | { t: 'forget'; p: string };

/** What happened to a process, in order. */
export type ProcEvent =
  | { e: 'started'; pid: number }
  | { e: 'failed'; error: string; code?: string }
  | { e: 'out'; fd: 1 | 2; d: Buffer }
  | { e: 'exit'; code: number | null; signal: string | null }
  | { e: 'closed'; code: number | null; signal: string | null }
  | { e: 'pid'; pid: number };

export type ServerMessage =
  | {
      t: 'welcome';
      v: number;
      procs: Record<string, { in: number; alive: boolean }>;
      left?: LeftProc[];
      /** Why the helper's previous daemon ended (its processes with it), in words, when it is known. */
      previousEnd?: string;
    }
  | { t: 'res'; id: number; ok: true; v: unknown }
  | { t: 'res'; id: number; ok: false; err: WireError }
  /** A note of a request under way (a helper service's progress), before its 'res'. */
  | { t: 'note'; id: number; v: unknown }
  | ({ t: 'ev'; p: string; s: number } & ProcEvent)
  | { t: 'ina'; p: string; s: number }
  | { t: 'watch'; w: number; ev: unknown };

/** A process a previous client left running (or ended, with events it never received). */
export interface LeftProc {
  p: string;
  spec: StartSpec;
  pid: number | null;
  /** The last input applied. */
  in: number;
  alive: boolean;
}

/** A start spec as one string, the same for the same spec however its objects were built (to match a left process). */
export function specKey(spec: StartSpec): string {
  const sorted = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return JSON.stringify([spec.kind, spec.argv, spec.cwd ?? null, sorted(spec.env), spec.stdin ?? 'pipe']);
}

export interface WireError {
  name: string;
  message: string;
  /** An FsRefusal's reason. */
  reason?: string;
  code?: string;
}

/** Buffers (and Uint8Arrays) as `{ $b: base64 }`, everything else as it is. */
export function encode(value: unknown): unknown {
  if (value instanceof Uint8Array) return { $b: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  if (Array.isArray(value)) return value.map(encode);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = encode(v);
    return out;
  }
  return value;
}

/** Deepest nesting a message's value may have (no answer of the helper comes near; a deeper one is refused). */
export const MAX_DEPTH = 200;

/** The reverse of `encode`; a value nested deeper than MAX_DEPTH throws (in words), never overflows the stack. */
export function decode(value: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH) throw new Error(`a value nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((v) => decode(v, depth + 1));
  if (value && typeof value === 'object') {
    const b = (value as { $b?: unknown }).$b;
    if (typeof b === 'string' && Object.keys(value).length === 1) return Buffer.from(b, 'base64');
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = decode(v, depth + 1);
    return out;
  }
  return value;
}

/** Longest frame accepted (a bigger one means the stream is not frames). */
const MAX_FRAME = 64 * 1024 * 1024;

/** One message as a frame: u32 length, u32 length of its JSON, the JSON, then `d`'s raw bytes when it is a Buffer. */
export function frame(msg: object): Buffer {
  const { d, ...rest } = msg as { d?: unknown };
  const data = Buffer.isBuffer(d) ? d : null;
  const json = Buffer.from(JSON.stringify(data ? rest : msg), 'utf8');
  const head = Buffer.allocUnsafe(8);
  head.writeUInt32BE(4 + json.length + (data?.length ?? 0), 0);
  head.writeUInt32BE(json.length, 4);
  return data ? Buffer.concat([head, json, data]) : Buffer.concat([head, json]);
}

/** Reads frames from a byte stream, calling `onMessage` for each (with `d` set to its raw bytes, if any). */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly onMessage: (msg: Record<string, unknown>) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size >= 4) {
      const first = this.chunks[0]!.length >= 8 ? this.chunks[0]! : Buffer.concat(this.chunks);
      const len = first.readUInt32BE(0);
      if (len < 4 || len > MAX_FRAME) throw new Error(`a frame of ${len} bytes: the channel is out of step`);
      if (this.size < 4 + len) return;
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      const body = all.subarray(4, 4 + len);
      const rest = all.subarray(4 + len);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.size = rest.length;
      const jsonLen = body.readUInt32BE(0);
      const msg = JSON.parse(body.subarray(4, 4 + jsonLen).toString('utf8')) as Record<string, unknown>;
      if (len > 4 + jsonLen) msg.d = Buffer.from(body.subarray(4 + jsonLen));
      this.onMessage(msg);
    }
  }
}

/**
 * The variables that describe the machine a process runs on (its HOME, PATH, user…). A caller builds a
 * process's `env` from this machine's environment; the client drops those of these it passed through
 * unchanged, and the helper fills them from the host's own environment.
 */
export const MACHINE_ENV = ['HOME', 'USER', 'LOGNAME', 'SHELL', 'PATH', 'TMPDIR', 'PWD', 'OLDPWD', 'MAIL', 'XDG_RUNTIME_DIR', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'SSH_AUTH_SOCK', 'DISPLAY'] as const;
