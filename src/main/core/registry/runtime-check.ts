import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import semver from 'semver';
import type { RuntimeTool } from '../../../shared/contract/registry';
import type { Host } from '../host/host';

export type ToolName = RuntimeTool['name'];

export interface ToolSearch {
  /** Where the tool's --version runs. */
  host: Host;
  /** The login shell's environment (PATH is read from it). */
  env: Record<string, string>;
  home: string;
  platform?: NodeJS.Platform;
}

export const toolFixes: Record<ToolName, string> = {
  node:
    'Install Node.js 20 or newer: from https://nodejs.org, or with nvm (`nvm install --lts`), or Homebrew (`brew install node`); then check again.',
  npm: 'npm comes with Node.js: reinstall Node.js from https://nodejs.org (or `nvm install --lts`); then check again.',
  uv:
    'Install uv: `curl -LsSf https://astral.sh/uv/install.sh | sh` (macOS, Linux) or `brew install uv`, or see https://docs.astral.sh/uv/getting-started/installation/; then check again.',
};

const isExecutableFile = (path: string): boolean => {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const listDir = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/**
 * Where version managers and package managers put these tools when the login shell does not say:
 * nvm (newest first), Volta, asdf, mise, ~/.local/bin (uv's installer), ~/.cargo/bin, Homebrew, /usr/local/bin.
 */
export function probeDirs(home: string, platform: NodeJS.Platform = process.platform): string[] {
  if (platform === 'win32') return [];
  const nvmRoot = join(home, '.nvm', 'versions', 'node');
  const nvm = listDir(nvmRoot)
    .filter((v) => semver.valid(v))
    .sort((a, b) => semver.rcompare(a, b))
    .map((v) => join(nvmRoot, v, 'bin'));
  return [
    ...nvm,
    join(home, '.volta', 'bin'),
    join(home, '.asdf', 'shims'),
    join(home, '.local', 'share', 'mise', 'shims'),
    join(home, '.local', 'bin'),
    join(home, '.cargo', 'bin'),
    '/opt/homebrew/bin',
    '/usr/local/bin',
    '/usr/bin',
  ];
}

const exeNames = (name: string, platform: NodeJS.Platform): string[] =>
  platform === 'win32' ? [`${name}.exe`, `${name}.cmd`, name] : [name];

/** Finds an executable on the PATH, then in the usual places. */
export function locateTool(name: string, search: Omit<ToolSearch, 'host'>): { path: string; via: 'path' | 'probe' } | null {
  const platform = search.platform ?? process.platform;
  const pathDirs = (search.env.PATH ?? search.env.Path ?? '').split(delimiter).filter(Boolean);
  for (const [dirs, via] of [
    [pathDirs, 'path'],
    [probeDirs(search.home, platform), 'probe'],
  ] as const) {
    for (const dir of dirs) {
      for (const exe of exeNames(name, platform)) {
        const candidate = join(dir, exe);
        if (isExecutableFile(candidate)) return { path: candidate, via };
      }
    }
  }
  return null;
}

/** PATH with `dir` first: npm and node scripts find the same node the check found. */
export const pathWith = (env: Record<string, string>, dir: string): string =>
  [dir, ...(env.PATH ?? '').split(delimiter).filter((d) => d && d !== dir)].join(delimiter);

const VERSION_TIMEOUT_MS = 15_000;

/** What `path --version` prints (its version number), or null when it fails, hangs or says nothing. */
async function versionOf(search: ToolSearch, path: string): Promise<string | null> {
  const proc = search.host.spawn([path, '--version'], { cwd: search.home, env: { ...search.env, PATH: pathWith(search.env, dirname(path)) }, stdin: 'ignore' });
  let stdout = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (s: string) => {
    if (stdout.length < 65_536) stdout += s;
  });
  proc.stderr.resume();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), VERSION_TIMEOUT_MS);
  });
  const exit = await Promise.race([proc.closed, timedOut]);
  clearTimeout(timer);
  proc.dispose();
  if (!exit || exit.error || exit.code !== 0) return null;
  const m = /(\d+\.\d+\.\d+[^\s]*)/.exec(stdout);
  return m ? m[1]! : stdout.trim().slice(0, 100) || null;
}

export async function checkTool(name: ToolName, search: ToolSearch): Promise<RuntimeTool> {
  const found = locateTool(name, search);
  if (!found) return { name, found: false, path: null, version: null, via: null, fix: toolFixes[name] };
  const version = await versionOf(search, found.path);
  if (version === null) {
    return { name, found: false, path: found.path, version: null, via: found.via, fix: `${found.path} did not answer --version. ${toolFixes[name]}` };
  }
  return { name, found: true, path: found.path, version, via: found.via, fix: null };
}

export const checkTools = (names: readonly ToolName[], search: ToolSearch): Promise<RuntimeTool[]> =>
  Promise.all(names.map((n) => checkTool(n, search)));

/** A sentence for a missing tool. */
export const missingToolProblem = (tool: RuntimeTool, purpose: string): string =>
  `${tool.name} is needed ${purpose} but was not found on the login shell's PATH or in the usual places (nvm, asdf, Homebrew, /usr/local/bin). ${tool.fix ?? toolFixes[tool.name]}`;
