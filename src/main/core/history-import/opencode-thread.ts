import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { workerCodeLoader } from './worker-code';
import Database from 'better-sqlite3';
import { OpencodeDb, type OpencodeSession } from './parsers/opencode';
import type { OpencodeCursor, SessionRead } from './parsers/opencode-messages';

/**
 * OpenCode's database read off the main thread, each call within a time limit: a file made to make a query run
 * for ever (or just far too large) cannot hold the app's event loop. A call that runs over is refused with
 * OpencodeTimeout and its thread ended. (better-sqlite3 cannot interrupt a query: the thread is what can be left.)
 * Where no thread can run it, it is read here, still within the limit each query checks row by row.
 */

/** Most a call (a listing, or a batch of sessions read) may take. */
export const OPENCODE_CALL_MS = 5_000;

export class OpencodeTimeout extends Error {}

export interface OpencodeReader {
  sessions(): Promise<OpencodeSession[]>;
  read(jobs: ReadonlyArray<{ sessionId: string; cursor: OpencodeCursor | null }>, now: number): Promise<SessionRead[]>;
  close(): void;
}

/** The thread's code (see worker-code.ts). */
const workerCode = workerCodeLoader('opencode-worker.cjs', 'opencode-worker.ts', ['better-sqlite3']);

const tooLong = (limitMs: number): OpencodeTimeout => new OpencodeTimeout(`reading it took more than ${Number((limitMs / 1000).toFixed(1))} s`);

class ThreadReader implements OpencodeReader {
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout; message: Record<string, unknown> }>();
  private nextId = 1;
  private ended: Error | null = null;
  /** The thread could not load better-sqlite3: read here instead. */
  private local: LocalReader | null = null;

  constructor(
    private readonly worker: Worker,
    private readonly path: string,
    private readonly limitMs: number,
  ) {
    worker.on('message', ({ id, value, error, unavailable }: { id: number; value?: unknown; error?: string; unavailable?: boolean }) => {
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      clearTimeout(p.timer);
      if (unavailable) {
        this.local ??= new LocalReader(this.path, this.limitMs);
        this.local.call(p.message).then(p.resolve, p.reject);
      } else if (error === undefined) p.resolve(value);
      else p.reject(error === 'the read took too long' ? tooLong(this.limitMs) : new Error(error));
    });
    worker.on('error', (e) => this.end(e));
    worker.on('exit', (code) => this.end(new Error(`the reading thread ended (exit code ${code})`)));
  }

  private call<T>(message: Record<string, unknown>): Promise<T> {
    if (this.local) return this.local.call(message);
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      // The thread's own check ends a long query at the limit; this one ends a thread that does not answer.
      const timer = setTimeout(() => this.end(tooLong(this.limitMs)), this.limitMs + 1000);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer, message });
      this.worker.postMessage({ ...message, id, limitMs: this.limitMs });
    });
  }

  sessions(): Promise<OpencodeSession[]> {
    return this.call({ op: 'sessions' });
  }

  read(jobs: ReadonlyArray<{ sessionId: string; cursor: OpencodeCursor | null }>, now: number): Promise<SessionRead[]> {
    return this.call({ op: 'read', jobs, now });
  }

  private end(e: Error): void {
    if (!this.ended) {
      this.ended = e;
      // A thread held in a query is left to end on its own, without keeping the process up.
      this.worker.unref();
      void this.worker.terminate();
    }
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(this.ended);
    }
    this.pending.clear();
  }

  close(): void {
    this.local?.close();
    this.end(new Error('closed'));
  }
}

/** Read here (no thread could be started): each query still stops at the limit. */
class LocalReader implements OpencodeReader {
  private db: OpencodeDb | null = null;
  constructor(
    private readonly path: string,
    private readonly limitMs: number,
  ) {}

  /** A call as the thread takes it. */
  call<T>(message: Record<string, unknown>): Promise<T> {
    try {
      this.db ??= new OpencodeDb(this.path, Database);
      const db = this.db;
      const value = message.op === 'sessions' ? db.sessions(this.limitMs) : db.read(message.jobs as Parameters<OpencodeDb['read']>[0], message.now as number, this.limitMs);
      return Promise.resolve(value as T);
    } catch (e) {
      return Promise.reject(e instanceof Error && e.message === 'the read took too long' ? tooLong(this.limitMs) : e);
    }
  }

  sessions(): Promise<OpencodeSession[]> {
    return this.call({ op: 'sessions' });
  }

  read(jobs: ReadonlyArray<{ sessionId: string; cursor: OpencodeCursor | null }>, now: number): Promise<SessionRead[]> {
    return this.call({ op: 'read', jobs, now });
  }

  close(): void {
    this.db?.close();
  }
}

/** Opens OpenCode's database at `path` for reading (the file is checked at the first call, which rejects if it is refused). */
export function openOpencode(path: string, limitMs = OPENCODE_CALL_MS): OpencodeReader {
  const code = workerCode();
  if (code) {
    try {
      const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
      return new ThreadReader(new Worker(code, { eval: true, workerData: { sqlite, path } }), path, limitMs);
    } catch (e) {
      console.error('history import: no thread to read OpenCode in, reading here:', e);
    }
  }
  return new LocalReader(path, limitMs);
}
