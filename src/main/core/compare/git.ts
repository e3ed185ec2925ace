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

/** Runs git on `host` with arguments (never through a shell) and returns stdout; a non-zero exit is a GitError. */
export async function git(host: Host, cwd: string, args: string[], options: { input?: string; maxBuffer?: number } = {}): Promise<string> {
  const out = await host.git(args, { cwd, ...options });
  if (out.code !== 0) throw new GitError(`git ${args[0]} failed: ${(out.stderr || `exit ${out.code}`).trim().split('\n').slice(-3).join(' ')}`, out.stderr);
  return out.stdout.toString('utf8');
}

export async function repoRoot(host: Host, path: string): Promise<string> {
  return (await git(host, path, ['rev-parse', '--show-toplevel'])).trim();
}
