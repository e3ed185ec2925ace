import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import type { GitOptions, GitResult } from '../host';

const DEFAULT_MAX_BUFFER = 256 * 1024 * 1024;

/** The app's environment as git's default: never a prompt for credentials, messages in English. */
function defaultEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
}

/** Runs this machine's git (no shell); see Host.git. */
export function runLocalGit(args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const maxBuffer = options.maxBuffer ?? DEFAULT_MAX_BUFFER;
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: options.cwd ?? homedir(), env: options.env ?? defaultEnv(), stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let overflow = false;
    child.stdout.on('data', (b: Buffer) => {
      outBytes += b.length;
      if (outBytes > maxBuffer) {
        if (!overflow) child.kill('SIGKILL');
        overflow = true;
        return;
      }
      out.push(b);
    });
    // stderr is for messages: its first MiB is plenty.
    child.stderr.on('data', (b: Buffer) => {
      if (errBytes < 1024 * 1024) err.push(b);
      errBytes += b.length;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (overflow) reject(new Error(`git ${args[0] ?? ''} wrote more than ${maxBuffer} bytes`));
      else resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}
