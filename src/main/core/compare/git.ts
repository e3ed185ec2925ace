import { execFile } from 'node:child_process';

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
 * names (a hook an agent planted, an fsmonitor command in .git/config): no hooks, no fsmonitor. The user
 * can let hooks run (setting compare.runRepoHooks).
 */
const NO_REPO_CODE = ['-c', `core.hooksPath=${process.platform === 'win32' ? 'NUL' : '/dev/null'}`, '-c', 'core.fsmonitor=false'];

export interface GitOptions {
  input?: string;
  maxBuffer?: number;
  /** Let the repository's hooks and fsmonitor run (off unless the user opted in). */
  repoHooks?: boolean;
}

/** Runs git with arguments (never through a shell) and returns stdout. */
export function git(cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      [...(options.repoHooks ? [] : NO_REPO_CODE), ...args],
      {
        cwd,
        maxBuffer: options.maxBuffer ?? 64 * 1024 * 1024,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error) reject(new GitError(`git ${args[0]} failed: ${(stderr || error.message).trim().split('\n').slice(-3).join(' ')}`, stderr));
        else resolve(stdout);
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

export async function repoRoot(path: string): Promise<string> {
  return (await git(path, ['rev-parse', '--show-toplevel'])).trim();
}
