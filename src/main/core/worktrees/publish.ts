import type { WorktreeError } from '../../../shared/contract/worktrees';
import type { Host } from '../host/host';
import { gitOwn, gitRun } from './git';
import { upstreamOf } from './repo-git';
import { installedHook } from './hooks';

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: WorktreeError };

const MAX_OUTPUT = 64 * 1024;

/** The first web address the remote printed ("remote: Create a pull request … by visiting: https://…"). */
export function compareUrlIn(output: string): string | null {
  for (const line of output.split('\n')) {
    if (!/^remote:/.test(line)) continue;
    const m = /https?:\/\/[^\s'"<>]+/.exec(line);
    if (m) return m[0];
  }
  return null;
}

/**
 * Why `target` is no place to push to (null: it is one): a remote the repository names, or the address of a
 * repository by a transport that runs nothing of the address's (https, ssh, git, file, or scp's host:path).
 */
export function remoteProblem(target: string, remotes: readonly string[]): string | null {
  if (target.startsWith('-')) return `"${target}" is not a remote (it reads as an option)`;
  if ([...target].some((c) => c < ' ' || c === '\u007f')) return 'a remote has no control characters';
  if (remotes.includes(target)) return null;
  if (/^(https?|ssh|git|file):\/\//i.test(target)) return null;
  // scp-like [user@]host:path (a host is no transport name: "ext::", "fd::" run commands).
  if (/^([\w.-]+@)?[\w.-]+:(?!:)[^\s]/.test(target) && !target.includes('::')) return null;
  if (target.startsWith('/') && !target.includes('::')) return null;
  return `no remote named ${target}`;
}

/** Pushes `branch` to its upstream's remote (else `remote`, else origin) and sets the upstream. Never forced. */
export async function push(
  host: Host,
  worktree: string,
  branch: string,
  remote?: string,
): Promise<Outcome<{ remote: string; branch: string; output: string; compareUrl: string | null }>> {
  let target = remote;
  if (!target) {
    const upstream = await upstreamOf(host, worktree, branch);
    const configured = (await gitOwn(host, worktree, ['config', '--get', `branch.${branch}.remote`])).stdout.trim();
    target = configured || (upstream ? upstream.split('/')[0] : undefined);
  }
  const remotes = (await gitOwn(host, worktree, ['remote'])).stdout.split('\n').filter(Boolean);
  if (!target) target = remotes.includes('origin') ? 'origin' : remotes[0];
  if (!target) return { ok: false, error: { kind: 'no_remote', message: 'the repository has no remote to push to' } };
  const refused = remoteProblem(target, remotes);
  if (refused) return { ok: false, error: { kind: 'no_remote', message: refused } };
  // No '+' in the refspec and no --force: a push that is not a fast-forward is refused by git. What follows
  // --end-of-options is never an option, whatever it starts with.
  const out = await gitRun(host, worktree, ['push', '--set-upstream', '--end-of-options', target, `refs/heads/${branch}:refs/heads/${branch}`]);
  const output = out.output.slice(-MAX_OUTPUT);
  if (out.code !== 0) {
    if (/\[rejected\]|\[remote rejected\]|non-fast-forward|fetch first/.test(output)) return { ok: false, error: { kind: 'push_rejected', output } };
    return { ok: false, error: { kind: 'git_failed', command: 'git push', output, hook: await installedHook(host, worktree, ['pre-push']) } };
  }
  return { ok: true, value: { remote: target, branch, output, compareUrl: compareUrlIn(output) } };
}

export interface ProcessResult {
  code: number | null;
  output: string;
  /** It could not be started (not installed): the system's reason. */
  missing: boolean;
}

/** Runs a command to its end (or `timeoutMs`), its stdout and stderr together. */
export async function runCommand(host: Host, argv: string[], cwd: string, env: Record<string, string>, timeoutMs = 120_000): Promise<ProcessResult> {
  const proc = host.spawn(argv, { cwd, env, stdin: 'ignore' });
  let output = '';
  const onData = (b: Buffer) => {
    if (output.length < MAX_OUTPUT) output += b.toString('utf8');
  };
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);
  const timer = setTimeout(() => proc.dispose(), timeoutMs);
  try {
    const exit = await proc.closed;
    return { code: exit.code, output: output.trim(), missing: exit.error !== null && exit.errorCode === 'ENOENT' };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A pull request of `branch` into `base`: with the user's `gh` when it is installed and signed in (the branch is
 * pushed first, so that gh never asks where to push); otherwise the push alone and the compare URL it printed.
 */
export async function pullRequest(
  host: Host,
  worktree: string,
  p: { branch: string; base: string; title: string; body: string; draft: boolean },
  env: Record<string, string>,
): Promise<
  Outcome<{ via: 'gh'; url: string | null; output: string } | { via: 'push'; compareUrl: string | null; output: string; reason: string }>
> {
  const ghEnv = { ...env, GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1' };
  const auth = await runCommand(host, ['gh', 'auth', 'status'], worktree, ghEnv, 30_000);
  const reason = auth.missing ? 'gh is not installed' : auth.code !== 0 ? `gh is not signed in (${auth.output.split('\n')[0] ?? ''})` : null;
  const pushed = await push(host, worktree, p.branch);
  if (!pushed.ok) return pushed;
  if (reason) return { ok: true, value: { via: 'push', compareUrl: pushed.value.compareUrl, output: pushed.value.output, reason } };
  // Each value joined to its flag: a title or body that starts with '-' is text, never a flag of gh's.
  const args = ['gh', 'pr', 'create', `--base=${p.base}`, `--head=${p.branch}`, `--title=${p.title}`, `--body=${p.body}`];
  if (p.draft) args.push('--draft');
  const created = await runCommand(host, args, worktree, ghEnv);
  if (created.code !== 0) return { ok: false, error: { kind: 'git_failed', command: 'gh pr create', output: created.output, hook: null } };
  const urls = created.output.match(/https?:\/\/[^\s'"<>]+/g);
  return { ok: true, value: { via: 'gh', url: urls?.at(-1) ?? null, output: created.output } };
}
