import { join } from 'node:path';
import type { GitResult, Host } from '../host/host';

export class ShadowGitError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'ShadowGitError';
  }
}

export type GitOutput = GitResult;

/**
 * Settings that keep the shadow repository's git away from everything of the user's: no hooks, no
 * fsmonitor daemon, no line-ending conversion, no automatic gc (and no work tree at all, so no
 * .gitattributes of the folder applies).
 */
const configFlags = (hooksDir: string): string[] =>
  [
    `core.hooksPath=${hooksDir}`,
    'core.fsmonitor=false',
    'core.autocrlf=false',
    'core.safecrlf=false',
    'core.quotePath=false',
    'gc.auto=0',
    'maintenance.auto=false',
    'diff.external=',
  ].flatMap((c) => ['-c', c]);

/**
 * Runs the real `git` on a shadow repository (GIT_DIR), with no work tree: git never reads the user's
 * folder (snapshots are read by folder-scan.ts). The environment is built from scratch: no inherited GIT_*
 * variable, no system or global config.
 */
export class ShadowGit {
  private readonly env: Record<string, string>;
  private readonly flags: string[];

  constructor(
    readonly gitDir: string,
    private readonly host: Pick<Host, 'git'>,
  ) {
    this.env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...(process.env.SYSTEMROOT ? { SYSTEMROOT: process.env.SYSTEMROOT } : {}),
      LC_ALL: 'C',
      HOME: gitDir,
      XDG_CONFIG_HOME: join(gitDir, 'xdg'),
      GIT_DIR: gitDir,
      GIT_INDEX_FILE: join(gitDir, 'no-index'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_ATTR_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_OPTIONAL_LOCKS: '0',
      GIT_LITERAL_PATHSPECS: '1',
      GIT_AUTHOR_NAME: 'Switchboard',
      GIT_AUTHOR_EMAIL: 'checkpoints@switchboard.invalid',
      GIT_COMMITTER_NAME: 'Switchboard',
      GIT_COMMITTER_EMAIL: 'checkpoints@switchboard.invalid',
    };
    this.flags = configFlags(join(gitDir, 'no-hooks'));
  }

  /** Runs git; rejects on a non-zero exit unless `okCodes` lists it. */
  async run(args: string[], options: { input?: Buffer | string; okCodes?: number[] } = {}): Promise<GitOutput> {
    const out = await this.host.git([...this.flags, ...args], { cwd: this.gitDir, env: this.env, ...(options.input === undefined ? {} : { input: options.input }) });
    if (out.code !== 0 && !(options.okCodes ?? []).includes(out.code)) {
      throw new ShadowGitError(`git ${args[0]} failed: ${out.stderr.trim().split('\n').slice(-3).join(' ') || `exit ${out.code}`}`, out.code, out.stderr);
    }
    return out;
  }

  async text(args: string[], input?: string): Promise<string> {
    return (await this.run(args, input === undefined ? {} : { input })).stdout.toString('utf8');
  }
}

/** `git --version`, or null when there is no git on PATH. */
export async function gitVersion(host: Host, pathEnv = process.env.PATH ?? '/usr/bin:/bin'): Promise<string | null> {
  try {
    const out = await host.git(['--version'], { env: { PATH: pathEnv, LC_ALL: 'C' } });
    if (out.code !== 0) return null;
    return /(\d+\.\d+(?:\.\d+)?)/.exec(out.stdout.toString('utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}
