import type { Host } from '../host/host';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** It ran past its time and was killed. */
  timedOut: boolean;
  /** It could not be started (no `ssh` on PATH…): a sentence. */
  startError: string | null;
}

const MAX_OUTPUT = 1024 * 1024;

/** Runs a command of this machine's OpenSSH (through the local host) to its end, killed after `timeoutMs`. */
export async function runTool(host: Host, argv: readonly string[], env: Record<string, string>, timeoutMs: number, signal?: AbortSignal): Promise<RunResult> {
  const proc = host.spawn(argv, { env, stdin: 'ignore' });
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8');
  proc.stderr.setEncoding('utf8');
  proc.stdout.on('data', (d: string) => {
    if (stdout.length < MAX_OUTPUT) stdout += d;
  });
  proc.stderr.on('data', (d: string) => {
    if (stderr.length < MAX_OUTPUT) stderr += d;
  });
  let timedOut = false;
  const kill = () => {
    timedOut = true;
    proc.kill('SIGKILL');
  };
  const timer = setTimeout(kill, timeoutMs);
  signal?.addEventListener('abort', kill, { once: true });
  try {
    const exit = await proc.closed;
    return { code: exit.code, stdout, stderr, timedOut, startError: exit.error };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', kill);
    proc.dispose();
  }
}
