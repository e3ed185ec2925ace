import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { workerCodeLoader } from './worker-code';
import type { Disposable } from '../base/lifecycle';
import type { ParsedFile, ParseJob } from './parse-file';

/**
 * The pool of threads (ParseThreads) that read, parse and compress the session files of a large import
 * (parse-worker.ts), so that this work overlaps the main thread's writes to the store, on other cores. A thread
 * writes nothing: the main thread writes every result, in order, so the store's ordering and crash safety are those
 * of an import in one thread. Disposed, a thread stops (its read part way) and ends.
 */

/** The thread's code (see worker-code.ts). */
const workerCode = workerCodeLoader('import-worker.cjs', 'parse-worker.ts');

let alive = 0;
/** Parsing threads started and not ended yet (none once every import ended, was cancelled or disposed). */
export const parseThreadsAlive = (): number => alive;

export class ParseThread implements Disposable {
  private readonly pending = new Map<number, { resolve: (p: ParsedFile) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private ended: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly stopFlag: Int32Array,
  ) {
    worker.on('message', ({ id, parsed }: { id: number; parsed: ParsedFile }) => {
      const p = this.pending.get(id);
      this.pending.delete(id);
      p?.resolve(parsed);
    });
    worker.on('error', (e) => this.end(e));
    alive++;
    worker.on('exit', (code) => {
      alive--;
      this.end(new Error(`the parsing thread ended (exit code ${code})`));
    });
  }

  /** A new thread; null when there is no code to run in one. */
  static start(): ParseThread | null {
    const code = workerCode();
    if (!code) return null;
    const stopFlag = new Int32Array(new SharedArrayBuffer(4));
    return new ParseThread(new Worker(code, { eval: true, workerData: { stop: stopFlag } }), stopFlag);
  }

  /** Whether the thread is gone (an error, or disposed): what is left is parsed in the main thread. */
  get gone(): boolean {
    return this.ended !== null;
  }

  /** Files sent and not answered yet. */
  get load(): number {
    return this.pending.size;
  }

  /** Parses a file there; results come in the order asked. Rejects if the thread ends first. */
  parse(job: ParseJob): Promise<ParsedFile> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...job, id });
    });
  }

  private end(e: Error): void {
    this.ended ??= e;
    for (const p of this.pending.values()) p.reject(this.ended);
    this.pending.clear();
  }

  dispose(): void {
    Atomics.store(this.stopFlag, 0, 1);
    this.end(new Error('the import ended'));
    void this.worker.terminate();
  }
}

/**
 * Threads a large import parses in: one per core, four at most. With the parsing and the compression off it, the
 * main thread writes about 400 MB a CPU-second, and a thread parses about 80: four threads are what it keeps up with.
 */
export const PARSE_THREADS = Math.max(1, Math.min(4, availableParallelism()));

/** The parsing threads of an import: each file goes to the one with the fewest waiting. */
export class ParseThreads implements Disposable {
  private constructor(private readonly threads: ParseThread[]) {}

  /** Up to `count` threads; null when there is no code to run in one. */
  static start(count = PARSE_THREADS): ParseThreads | null {
    const threads: ParseThread[] = [];
    for (let i = 0; i < count; i++) {
      const t = ParseThread.start();
      if (!t) break;
      threads.push(t);
    }
    return threads.length ? new ParseThreads(threads) : null;
  }

  /** Every thread is gone: what is left is parsed in the main thread. */
  get gone(): boolean {
    return this.threads.every((t) => t.gone);
  }

  /** Parses a file in the least busy thread. Rejects if that thread ends first. */
  parse(job: ParseJob): Promise<ParsedFile> {
    let best: ParseThread | null = null;
    for (const t of this.threads) if (!t.gone && (!best || t.load < best.load)) best = t;
    return best ? best.parse(job) : Promise.reject(new Error('the parsing threads ended'));
  }

  dispose(): void {
    for (const t of this.threads) t.dispose();
  }
}
