import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import semver from 'semver';
import { RegistryError } from '../errors';
import { runProcess } from '../proc';
import { checkTool, missingToolProblem, pathWith } from '../runtime-check';
import type { InstallContext, InstallOutcome } from './types';

const NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;

/** Splits "@scope/name@1.2.3" / "name@latest" / "name" into name and version spec. */
export function parseNpmSpec(pkg: string): { name: string; spec: string | null } {
  const at = pkg.indexOf('@', pkg.startsWith('@') ? 1 : 0);
  const name = at < 0 ? pkg : pkg.slice(0, at);
  const spec = at < 0 ? null : pkg.slice(at + 1);
  if (!NAME.test(name) || name.length > 214) throw new RegistryError('agent_error', `"${pkg}" is not an npm package name`);
  if (spec !== null && (spec === '' || /[\s\0]/.test(spec) || spec.length > 256)) {
    throw new RegistryError('agent_error', `"${pkg}" has an unusable version`);
  }
  return { name, spec };
}

/** The exact package npm installs: the registry's pin, or the entry's version when the registry names none. */
export function pinnedNpmPackage(pkg: string, entryVersion: string): { name: string; pinned: string } {
  const { name, spec } = parseNpmSpec(pkg);
  return { name, pinned: `${name}@${spec ?? entryVersion}` };
}

export function npmInstallArgs(prefix: string, pinned: string): string[] {
  return ['install', '--prefix', prefix, '--no-save', '--ignore-scripts=false', '--no-fund', '--no-audit', '--no-update-notifier', pinned];
}

/** Reads npm's output for the reason a user can act on. */
export function explainNpmFailure(output: string, name: string, pinned: string, code: number | null): RegistryError {
  const registry = /(?:registry|mirror)[^\n]*?(https?:\/\/[^\s'"]+)/i.exec(output)?.[1];
  if (/\bETARGET\b|notarget No matching version/i.test(output)) {
    return new RegistryError(
      'agent_error',
      `${pinned} is not available on the npm registry${registry ? ` (${registry})` : ''}: no such version. \`npm view ${name} versions\` lists the versions it has.`,
    );
  }
  if (/\bE404\b|404 Not Found/i.test(output)) {
    return new RegistryError('agent_error', `the package ${name} was not found on the npm registry${registry ? ` (${registry})` : ''}.`);
  }
  if (/\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH)\b/.test(output)) {
    return new RegistryError('unavailable', `npm could not reach the npm registry while installing ${pinned} (offline?).`);
  }
  if (/\bENOSPC\b/.test(output)) return new RegistryError('unavailable', `the disk is full: npm could not install ${pinned}.`);
  const lines = output
    .split(/\r?\n/)
    .filter((l) => /npm (error|ERR!)/.test(l) && !/A complete log of this run/.test(l))
    .map((l) => l.replace(/^npm (error|ERR!)\s*/, ''))
    .slice(-6)
    .join(' / ');
  return new RegistryError('agent_error', `npm install ${pinned} failed (exit ${code ?? 'signal'})${lines ? `: ${lines}` : ''}`);
}

interface PackageJson {
  name?: string;
  version?: string;
  bin?: string | Record<string, string>;
  engines?: { node?: string };
}

/** The script to run with node: the package's own bin (one named like the package when there are several). */
export function resolveBin(pkgDir: string, name: string): string {
  let pj: PackageJson;
  try {
    pj = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as PackageJson;
  } catch (e) {
    throw new RegistryError('agent_error', `npm finished but ${name}/package.json is missing or unreadable (${String(e)})`);
  }
  const unscoped = name.replace(/^@[^/]+\//, '');
  let rel: string | undefined;
  if (typeof pj.bin === 'string') rel = pj.bin;
  else if (pj.bin && typeof pj.bin === 'object') {
    const keys = Object.keys(pj.bin);
    const key = keys.includes(unscoped) ? unscoped : keys.length === 1 ? keys[0] : undefined;
    if (key === undefined) {
      throw new RegistryError('agent_error', `${name} has several programs (${keys.join(', ')}) and none is named ${unscoped}`);
    }
    rel = pj.bin[key];
  }
  if (typeof rel !== 'string' || !rel) throw new RegistryError('agent_error', `${name} declares no program to run ("bin" in its package.json)`);
  const script = resolve(pkgDir, rel);
  if (!script.startsWith(pkgDir + sep)) throw new RegistryError('agent_error', `${name}'s "bin" points outside the package (${rel})`);
  if (!existsSync(script) || !statSync(script).isFile()) throw new RegistryError('agent_error', `${name}'s program ${rel} is missing after npm install`);
  return script;
}

export async function installNpx(ctx: InstallContext): Promise<InstallOutcome> {
  const dist = ctx.entry.distribution.npx;
  if (!dist) throw new RegistryError('invalid_params', `${ctx.entry.name} has no npm package`);
  const { name, pinned } = pinnedNpmPackage(dist.package, ctx.entry.version);
  ctx.progress({ step: 'preparing', message: 'Looking for Node.js and npm' });
  const search = { host: ctx.host, env: ctx.env, home: ctx.home };
  const [node, npm] = await Promise.all([checkTool('node', search), checkTool('npm', search)]);
  if (!node.found || !node.path) throw new RegistryError('unavailable', missingToolProblem(node, `to install and run ${ctx.entry.name}`));
  if (!npm.found || !npm.path) throw new RegistryError('unavailable', missingToolProblem(npm, `to install ${ctx.entry.name}`));
  ctx.progress({ step: 'installing', message: `Installing ${pinned} and what it needs with npm` });
  const env = { ...ctx.env, PATH: pathWith(ctx.env, dirname(node.path)), npm_config_update_notifier: 'false', ...ctx.npmEnv };
  const result = await runProcess(ctx.host, npm.path, npmInstallArgs(ctx.dir, pinned), {
    cwd: ctx.dir,
    env,
    signal: ctx.signal,
    onLine: (line) => ctx.progress({ step: 'installing', outputLine: line }),
  });
  if (result.code !== 0) throw explainNpmFailure(result.output, name, pinned, result.code);
  ctx.progress({ step: 'verifying', message: 'Checking the installed package and its program' });
  const pkgDir = join(ctx.dir, 'node_modules', ...name.split('/'));
  const script = resolveBin(pkgDir, name);
  const pj = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as PackageJson;
  const warnings: string[] = [];
  const wants = pj.engines?.node;
  if (wants && node.version && semver.valid(node.version) && semver.validRange(wants) && !semver.satisfies(node.version, wants)) {
    warnings.push(`${name} asks for Node ${wants}; this machine has ${node.version} (it may still work).`);
  }
  return {
    kind: 'npx',
    launch: { type: 'node', script: relative(ctx.dir, script), nodePath: node.path },
    args: dist.args ?? [],
    env: dist.env ?? {},
    installed: `${name}@${pj.version ?? '?'}`,
    warnings,
  };
}
