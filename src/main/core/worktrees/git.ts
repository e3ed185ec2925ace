import type { GitResult, Host } from '../host/host';
import { GitError } from './git-error';
import { guardedArgs } from './git-guard';

export { GitError };

export interface GitOptions {
  input?: string;
  maxBuffer?: number;
  /** Let the repository's hooks run (a step the user asked for, as their own git runs it). */
  repoHooks?: boolean;
}

/**
 * Runs one of Switchboard's own git commands in a repository (never through a shell) and returns what git said,
 * whatever its exit code. No command the repository names runs: see git-guard.ts.
 */
export async function gitTry(host: Host, cwd: string, args: string[], options: GitOptions = {}): Promise<GitResult> {
  const { repoHooks, ...rest } = options;
  return host.git(await guardedArgs(host, cwd, args, { hooks: repoHooks === true }), { cwd, ...rest });
}

/** gitTry's stdout; a non-zero exit is a GitError. */
export async function git(host: Host, cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  const out = await gitTry(host, cwd, args, options);
  if (out.code !== 0) throw new GitError(`git ${args[0]} failed: ${(out.stderr || `exit ${out.code}`).trim().split('\n').slice(-3).join(' ')}`, out.stderr);
  return out.stdout.toString('utf8');
}

export async function repoRoot(host: Host, path: string): Promise<string> {
  return (await git(host, path, ['rev-parse', '--show-toplevel'])).trim();
}

/**
 * Runs git as the user's own git runs (their hooks, their config) and returns what it did, whatever its exit code:
 * only for a step the user asked for (their merge, commit or push), never for a question Switchboard asks.
 */
export async function gitRun(host: Host, cwd: string, args: string[], options: { input?: string } = {}): Promise<{ code: number; stdout: string; output: string }> {
  const out = await host.git(args, { cwd, ...options });
  return described(out);
}

/** gitTry's answer in gitRun's shape. */
export async function gitOwn(host: Host, cwd: string, args: string[], options: GitOptions = {}): Promise<{ code: number; stdout: string; output: string }> {
  return described(await gitTry(host, cwd, args, options));
}

function described(out: GitResult): { code: number; stdout: string; output: string } {
  const stdout = out.stdout.toString('utf8');
  return { code: out.code, stdout, output: `${stdout}${stdout && out.stderr ? '\n' : ''}${out.stderr}`.trim() };
}
