import { spawn } from 'node:child_process';
import { guardProcessGroup } from '../platform/group-watchdog';
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

const killGroup = (pid: number | undefined, sig: NodeJS.Signals): void => {
  if (!pid) return;
  try {
    if (process.platform === 'win32') process.kill(pid, sig);
    else process.kill(-pid, sig);
  } catch {
    /* already gone */
  }
};

/**
 * Runs a command in its own process group (no shell). Cancelling ends the whole group (SIGTERM, then
 * SIGKILL) and rejects with CancelledError only once the processes are gone, so the caller can then
 * delete their files safely.
 */
export function runProcess(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  const limit = options.tailBytes ?? 16_384;
  return new Promise<RunResult>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new CancelledError());
      return;
    }
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    // An install must not outlive a Switchboard that dies mid-way either.
    const unguard = guardProcessGroup(child.pid);
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
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 3000);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      unguard();
      options.signal?.removeEventListener('abort', onAbort);
      clearTimeout(killTimer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      options.signal?.removeEventListener('abort', onAbort);
      clearTimeout(killTimer);
      // Grandchildren (install scripts) may outlive the main process: end the group either way.
      killGroup(child.pid, 'SIGKILL');
      unguard();
      if (cancelled) reject(new CancelledError());
      else resolve({ code, signal, output: tail });
    });
  });
}
