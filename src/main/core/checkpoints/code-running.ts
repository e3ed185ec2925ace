/**
 * Files whose change makes tools run code without anyone running it on purpose: git's hooks and config,
 * direnv's .envrc, editor tasks, package scripts. A turn that changes one is flagged in its review.
 */

const inGit = (parts: readonly string[]): number => parts.indexOf('.git');

/** Why a change to this path deserves a look, or null. `package.json` is judged by its scripts (see scriptsChanged). */
export function codeRunningReason(path: string): string | null {
  const parts = path.split('/');
  const name = parts.at(-1)!;
  const git = inGit(parts);
  if (git >= 0) {
    const inside = parts.slice(git + 1);
    if (inside.length === 0) return 'a .git file: it can point git at another repository';
    if (inside[0] === 'hooks') return 'a git hook: git runs it on commit, checkout and more';
    if (inside[0] === 'config') return "git's config: it can name programs git runs (fsmonitor, hooks path, filters, editor)";
    return 'inside .git: git reads it';
  }
  if (name === '.envrc' || name === '.env.local.sh') return 'direnv runs it when a shell enters the folder';
  if (parts.at(-2) === '.vscode' && (name === 'tasks.json' || name === 'settings.json' || name === 'launch.json')) return 'the editor can run what it names (tasks, terminal and tool settings)';
  if (parts.at(-2) === '.devcontainer' || name === '.devcontainer.json') return 'a dev container runs its commands on start';
  if (parts[0] === '.husky') return 'a git hook (husky): git runs it on commit';
  if (name === '.pre-commit-config.yaml' || name === 'lefthook.yml' || name === '.lefthook.yml') return 'git hook configuration: it names commands git runs';
  if (name === '.gitattributes') return 'git attributes: they can apply filters and diff drivers';
  if (name === '.gitmodules') return 'submodules: they name repositories git fetches';
  if (name === '.npmrc' || name === '.yarnrc' || name === '.yarnrc.yml') return 'package manager settings: they can change what installs run';
  return null;
}

/** The `scripts` of a package.json text ('' when it has none, null when it is not JSON). */
function scriptsOf(text: string | null): string | null {
  if (text === null) return '';
  try {
    const json = JSON.parse(text) as unknown;
    if (typeof json !== 'object' || json === null) return '';
    const scripts = (json as Record<string, unknown>).scripts;
    return scripts === undefined ? '' : JSON.stringify(scripts);
  } catch {
    return null;
  }
}

/** Whether a package.json change adds or changes scripts (npm, yarn and pnpm run them on install and more). */
export function scriptsChanged(before: string | null, after: string | null): boolean {
  if (after === null) return false;
  const a = scriptsOf(before);
  const b = scriptsOf(after);
  return b === null || (b !== '' && a !== b);
}

export const isPackageJson = (path: string): boolean => path === 'package.json' || path.endsWith('/package.json');
