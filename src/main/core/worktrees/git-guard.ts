import type { Host } from '../host/host';
import { GitError } from './git-error';

/**
 * What keeps Switchboard's own git commands in a user's repository from running a command the repository names
 * (in .git/config, config.worktree, a file they include, or .git/hooks): an agent working there can write all of
 * them. The user's own global and system configuration (git-lfs installed by them, say) stays as it is.
 */

const NULL_DEVICE = process.platform === 'win32' ? 'NUL' : '/dev/null';

/** Options no repository can undo, for every command of Switchboard's own. */
const ALWAYS = [
  '--no-pager',
  ...[
    'core.fsmonitor=false',
    'core.pager=cat',
    'log.showSignature=false',
    'submodule.recurse=false',
    'diff.external=',
  ].flatMap((c) => ['-c', c]),
];
const NO_HOOKS = ['-c', `core.hooksPath=${NULL_DEVICE}`];
/** A read has no business on the network: no lazy fetch of a partial clone runs a transport the repository configured. */
const NO_NETWORK = ['-c', 'protocol.allow=never'];

/**
 * Commands that can run a filter, merge driver or diff driver (read from .gitattributes, .git/info/attributes or
 * core.attributesFile, then named in the configuration). Only these pay for reading the configuration first.
 */
const RUNS_DRIVERS = new Set([
  'status',
  'merge-tree',
  'diff',
  'diff-files',
  'diff-index',
  'diff-tree',
  'show',
  'log',
  'checkout',
  'switch',
  'reset',
  'restore',
  'stash',
  'add',
  'commit',
  'merge',
  'rebase',
  'cherry-pick',
  'revert',
  'apply',
  'grep',
  'blame',
  'archive',
  'read-tree',
  'checkout-index',
  'update-index',
  'hash-object',
]);

/** The git command an argument list runs ('worktree add' for a worktree command), past the global options. */
export function commandOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-c' || a === '-C' || a === '--git-dir' || a === '--work-tree') i++;
    else if (!a.startsWith('-')) return a === 'worktree' ? `worktree ${args[i + 1] ?? ''}` : a;
  }
  return '';
}

const runsDrivers = (command: string) => RUNS_DRIVERS.has(command) || command === 'worktree add' || command === 'worktree move';

/** The repository's configuration names a driver git's `-c` cannot switch off (a name with '='): nothing is run. */
export class UnsafeConfigError extends GitError {
  constructor(readonly key: string) {
    const message = `the repository's configuration names a command (${JSON.stringify(key)}) under a name git cannot be told to skip; nothing was run`;
    super(message, message);
    this.name = 'UnsafeConfigError';
  }
}

/**
 * The `-c` overrides that switch off every filter, merge driver and diff driver the repository's own
 * configuration defines (its drivers are commands; a driver of the user's global configuration is theirs).
 * A merge driver becomes `false`: the file conflicts, so a trial merge never takes a driver's work as merged.
 */
export async function repoDriverOverrides(host: Host, cwd: string): Promise<string[]> {
  const out = await host.git([...ALWAYS, ...NO_HOOKS, 'config', '--show-scope', '-z', '--get-regexp', '^(filter|merge|diff)\\.'], { cwd });
  // 1: nothing matched. Anything else but 0: git cannot read the configuration, and the command would fail too.
  if (out.code === 1) return [];
  if (out.code !== 0) throw new GitError(`git config failed: ${out.stderr.trim().split('\n').slice(-2).join(' ')}`, out.stderr);
  const fields = out.stdout.toString('utf8').split('\0');
  const drivers = new Map<string, Set<string>>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i]!;
    const key = fields[i + 1]!.split('\n')[0]!;
    if (scope !== 'local' && scope !== 'worktree') continue;
    const m = /^(filter|merge|diff)\.(.*)\.([^.]*)$/s.exec(key);
    if (!m) continue;
    const [, section, name] = m as unknown as [string, string, string];
    // `-c` splits at the first '=': such a name cannot be overridden, so the command is not run at all.
    if (name.includes('=') || name.includes('\n')) throw new UnsafeConfigError(key);
    let set = drivers.get(section);
    if (!set) drivers.set(section, (set = new Set()));
    set.add(name);
  }
  const overrides: string[] = [];
  for (const name of drivers.get('filter') ?? []) overrides.push(`filter.${name}.clean=`, `filter.${name}.smudge=`, `filter.${name}.process=`, `filter.${name}.required=false`);
  for (const name of drivers.get('merge') ?? []) overrides.push(`merge.${name}.driver=false`, `merge.${name}.recursive=binary`);
  for (const name of drivers.get('diff') ?? []) overrides.push(`diff.${name}.command=`, `diff.${name}.textconv=`);
  return overrides.flatMap((c) => ['-c', c]);
}

export interface GuardOptions {
  /** The repository's hooks run (a step the user asked for, as their own git would run it). */
  hooks?: boolean;
}

/** The arguments that run `args` as a command of Switchboard's own in the repository at `cwd`. */
export async function guardedArgs(host: Host, cwd: string, args: readonly string[], o: GuardOptions = {}): Promise<string[]> {
  const command = commandOf(args);
  const drivers = runsDrivers(command) ? await repoDriverOverrides(host, cwd) : [];
  // A worktree's checkout the user asked for fetches missing objects as their git would (a partial clone).
  const network = o.hooks ? [] : NO_NETWORK;
  return [...ALWAYS, ...(o.hooks ? [] : NO_HOOKS), ...network, ...drivers, ...args];
}
