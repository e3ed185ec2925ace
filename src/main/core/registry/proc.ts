import type { Host } from '../host/host';
import { CancelledError } from './errors';

export interface RunOptions {
  cwd: string;
  env: Record<string, string>;
  signal?: AbortSignal;
  /** Each output line (stdout and stderr), e.g. for progress. */
  onLine?: (line: string) => void;
  /** Bytes of output kept for error messages. */
  tailBytes?: number;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last output (stdout and stderr interleaved). */
  output: string;
}

/**
 * Runs a command in its own process group (no shell). Cancelling ends the whole group (SIGTERM, then
 * SIGKILL) and rejects with CancelledError only once the processes are gone, so the caller can then
 * delete their files safely.
 */
export function runProcess(host: Host, command: string, args: string[], options: RunOptions): Promise<RunResult> {
  const limit = options.tailBytes ?? 16_384;
  return new Promise<RunResult>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new CancelledError());
      return;
    }
    // Its own process group, guarded: an install must not outlive a Switchboard that dies mid-way either.
    const child = host.spawn([command, ...args], { cwd: options.cwd, env: options.env, stdin: 'ignore' });
    let tail = '';
    let partial = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-limit);
      if (options.onLine) {
        const lines = (partial + text).split(/\r?\n/);
        partial = lines.pop() ?? '';
        for (const l of lines) if (l.trim()) options.onLine(l);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    let cancelled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      cancelled = true;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), 3000);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    void child.closed.then((exit) => {
      options.signal?.removeEventListener('abort', onAbort);
      clearTimeout(killTimer);
      if (exit.error) {
        reject(Object.assign(new Error(exit.error), exit.errorCode ? { code: exit.errorCode } : {}));
        return;
      }
      // Grandchildren (install scripts) may outlive the main process: end the group either way.
      child.dispose();
      if (cancelled) reject(new CancelledError());
      else resolve({ code: exit.code, signal: exit.signal as NodeJS.Signals | null, output: tail });
    });
  });
}
