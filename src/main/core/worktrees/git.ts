import type { Host } from '../host/host';

export class GitError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

/**
 * What keeps Switchboard's own git commands in the user's repository from running code the repository
 * names (a hook an agent planted, an fsmonitor command in .git/config): no hooks, no fsmonitor.
 */
const NO_REPO_CODE = ['-c', `core.hooksPath=${process.platform === 'win32' ? 'NUL' : '/dev/null'}`, '-c', 'core.fsmonitor=false'];

export interface GitOptions {
  input?: string;
  maxBuffer?: number;
  /** Let the repository's hooks and fsmonitor run (off unless the user opted in). */
  repoHooks?: boolean;
}

/** Runs git on `host` with arguments (never through a shell) and returns stdout; a non-zero exit is a GitError. */
export async function git(host: Host, cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  const { repoHooks, ...rest } = options;
  const out = await host.git([...(repoHooks ? [] : NO_REPO_CODE), ...args], { cwd, ...rest });
  if (out.code !== 0) throw new GitError(`git ${args[0]} failed: ${(out.stderr || `exit ${out.code}`).trim().split('\n').slice(-3).join(' ')}`, out.stderr);
  return out.stdout.toString('utf8');
}

export async function repoRoot(host: Host, path: string): Promise<string> {
  return (await git(host, path, ['rev-parse', '--show-toplevel'])).trim();
}

/** Runs git as the user's own git runs (their hooks, their config) and returns what it did, whatever its exit code. */
export async function gitRun(host: Host, cwd: string, args: string[], options: { input?: string } = {}): Promise<{ code: number; stdout: string; output: string }> {
  const out = await host.git(args, { cwd, ...options });
  const stdout = out.stdout.toString('utf8');
  return { code: out.code, stdout, output: `${stdout}${stdout && out.stderr ? '\n' : ''}${out.stderr}`.trim() };
}
