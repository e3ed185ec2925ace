import type { Host } from '../host/host';

export interface RunResult {
  /** Exit code; null when a signal ended it or it could not be started. */
  code: number | null;
  signal: string | null;
  /** Starting failed (not found, not executable): the system's sentence and code. */
  error: string | null;
  errorCode?: string;
  stdout: string;
  /** The last of stderr (bounded). */
  stderr: string;
}

export interface RunOptions {
  env: Record<string, string>;
  cwd?: string;
  /** Written to stdin, which is then closed. */
  input?: string;
  /** Ended (SIGKILL to its group) after this long. Default 10 minutes (image builds). */
  timeoutMs?: number;
  /** Longest stdout kept: more ends the process. Default 8 MiB. */
  maxStdout?: number;
  /** Each line of stderr as it comes (progress of a build). */
  onStderrLine?: (line: string) => void;
}

/** Runs `argv` on `host` to its end (no shell) and collects its output, bounded. Never rejects. */
export async function runOnHost(host: Host, argv: readonly string[], options: RunOptions): Promise<RunResult> {
  const maxStdout = options.maxStdout ?? 8 * 1024 * 1024;
  const proc = host.spawn(argv, { env: options.env, ...(options.cwd ? { cwd: options.cwd } : {}), stdin: options.input === undefined ? 'ignore' : 'pipe' });
  const out: Buffer[] = [];
  let outBytes = 0;
  let err = '';
  let partial = '';
  let overflow = false;
  proc.stdout.on('data', (chunk: Buffer) => {
    outBytes += chunk.length;
    if (outBytes > maxStdout) {
      overflow = true;
      proc.kill('SIGKILL');
      return;
    }
    out.push(chunk);
  });
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (text: string) => {
    err = (err + text).slice(-16_384);
    if (options.onStderrLine) {
      const lines = (partial + text).split(/\r?\n/);
      partial = lines.pop() ?? '';
      for (const line of lines) options.onStderrLine(line);
    }
  });
  if (options.input !== undefined) proc.stdin.end(options.input);
  const timer = setTimeout(() => proc.kill('SIGKILL'), options.timeoutMs ?? 600_000);
  const exit = await proc.closed;
  clearTimeout(timer);
  proc.dispose();
  if (overflow) err += `\n(output beyond ${maxStdout} bytes: ended)`;
  return {
    code: exit.code,
    signal: exit.signal,
    error: exit.error,
    ...(exit.errorCode ? { errorCode: exit.errorCode } : {}),
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: err,
  };
}

/** The last non-empty line of some output, bounded: what an error message quotes. */
export function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  return (lines.at(-1) ?? '').slice(0, 300);
}
