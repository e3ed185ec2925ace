/**
 * The one channel between SshHost (here) and its helper on the host (server/*.ts): JSON lines over the ssh
 * session's stdio. Bytes travel as base64 inside `{ $b }` (see `encode`/`decode`). Nothing here needs
 * Node beyond Buffer; both sides import it (the helper is bundled from source).
 *
 * Process streams (spawn and pty) are numbered by the client (`p`). Every event of a process the helper
 * sends carries a sequence number (`s`, from 1) and is kept by the helper until the client acknowledges it
 * (`ack`): after a dropped connection the client says the last one it has (`hello.procs`) and the helper
 * replays the rest, in order, once. Input the client sends is numbered the same way (`in.s`), so input sent
 * while the connection was failing is applied once (`welcome.procs[p].in` is the last one applied).
 */

export const PROTOCOL_VERSION = 1;

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
  | { t: 'hello'; v: number; procs: Record<string, { out: number }>; /** A new client: processes a previous one left are stopped. */ fresh?: true }
  | { t: 'req'; id: number; op: string; a: unknown }
  | { t: 'start'; p: string; spec: StartSpec }
  | { t: 'in'; p: string; s: number; d?: string; eof?: true }
  | { t: 'kill'; p: string; sig: string }
  | { t: 'resize'; p: string; cols: number; rows: number }
  | { t: 'ack'; p: string; s: number }
  | { t: 'forget'; p: string };

/** What happened to a process, in order. */
export type ProcEvent =
  | { e: 'started'; pid: number }
  | { e: 'failed'; error: string; code?: string }
  | { e: 'out'; fd: 1 | 2; d: string }
  | { e: 'exit'; code: number | null; signal: string | null }
  | { e: 'closed'; code: number | null; signal: string | null }
  | { e: 'pid'; pid: number };

export type ServerMessage =
  | { t: 'welcome'; v: number; procs: Record<string, { in: number; alive: boolean }> }
  | { t: 'res'; id: number; ok: true; v: unknown }
  | { t: 'res'; id: number; ok: false; err: WireError }
  | ({ t: 'ev'; p: string; s: number } & ProcEvent)
  | { t: 'ina'; p: string; s: number }
  | { t: 'watch'; w: number; ev: unknown };

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

export function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (value && typeof value === 'object') {
    const b = (value as { $b?: unknown }).$b;
    if (typeof b === 'string' && Object.keys(value).length === 1) return Buffer.from(b, 'base64');
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = decode(v);
    return out;
  }
  return value;
}

/** Splits a byte stream into lines (JSON messages), calling `onLine` for each complete one. */
export function lineSplitter(onLine: (line: string) => void): (chunk: Buffer) => void {
  let pending: Buffer[] = [];
  return (chunk) => {
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, i));
      const line = Buffer.concat(pending).toString('utf8');
      pending = [];
      start = i + 1;
      if (line.length > 0) onLine(line);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  };
}

/**
 * The variables that describe the machine a process runs on (its HOME, PATH, user…). A caller builds a
 * process's `env` from this machine's environment; the client drops those of these it passed through
 * unchanged, and the helper fills them from the host's own environment.
 */
export const MACHINE_ENV = ['HOME', 'USER', 'LOGNAME', 'SHELL', 'PATH', 'TMPDIR', 'PWD', 'OLDPWD', 'MAIL', 'XDG_RUNTIME_DIR', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'SSH_AUTH_SOCK', 'DISPLAY'] as const;
