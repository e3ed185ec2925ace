import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RegistryError } from '../errors';
import { runProcess } from '../proc';
import { checkTool, missingToolProblem, pathWith } from '../runtime-check';
import type { InstallContext, InstallOutcome } from './types';

const PY_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/**
 * The registry's uvx package ("name", "name@1.2.3", "name@latest", "name[extra]==1.2.3") as a pinned
 * pip requirement: without a version, or with "latest", the entry's own version is pinned.
 */
export function pinnedPythonRequirement(pkg: string, entryVersion: string): { name: string; requirement: string } {
  const m = /^([^@=[\s]+)(\[[A-Za-z0-9,._-]+\])?(?:(?:@|==)(.+))?$/.exec(pkg.trim());
  if (!m || !PY_NAME.test(m[1]!)) throw new RegistryError('agent_error', `"${pkg}" is not a Python package name`);
  const name = m[1]!;
  const extras = m[2] ?? '';
  const version = m[3] && m[3] !== 'latest' ? m[3] : entryVersion;
  if (!/^[A-Za-z0-9.+!*_-]+$/.test(version)) throw new RegistryError('agent_error', `"${pkg}" has an unusable version`);
  return { name, requirement: `${name}${extras}==${version}` };
}

/**
 * What uv runs. A relocatable virtual environment inside the install folder (not `uv tool install`,
 * whose environments hold absolute paths and would break when the finished install is renamed into place).
 */
export function uvInstallCommands(uvPath: string, dir: string, requirement: string, platform: NodeJS.Platform = process.platform): string[][] {
  const venv = join(dir, 'venv');
  const python = platform === 'win32' ? join(venv, 'Scripts', 'python.exe') : join(venv, 'bin', 'python');
  return [
    [uvPath, 'venv', '--relocatable', '--no-project', venv],
    [uvPath, 'pip', 'install', '--python', python, requirement],
  ];
}

const NOT_ENTRY_POINTS = /^(python[0-9.]*(\.exe)?|pythonw(\.exe)?|activate.*|deactivate.*|pip[0-9.]*(\.exe)?|pydoc.*)$/i;

/** The console script to start: the one named like the package, or the only one, or the only ACP one (`…-acp`). */
export function pickEntryPoint(binDir: string, name: string, platform: NodeJS.Platform = process.platform): string {
  const exe = (n: string) => (platform === 'win32' ? `${n}.exe` : n);
  const variants = [name, name.toLowerCase(), name.replace(/[._]/g, '-'), name.replace(/[-.]/g, '_')];
  for (const v of variants) if (existsSync(join(binDir, exe(v)))) return exe(v);
  let scripts: string[] = [];
  try {
    scripts = readdirSync(binDir).filter((f) => !NOT_ENTRY_POINTS.test(f));
  } catch {
    /* none */
  }
  if (scripts.length === 1) return scripts[0]!;
  // A package with a CLI and an ACP server (mistral-vibe: vibe and vibe-acp; fast-agent-mcp: fast-agent-acp…):
  // the one ACP entry point is the agent.
  const acp = scripts.filter((f) => /(^|[-_])acp(\.exe)?$/i.test(f));
  if (acp.length === 1) return acp[0]!;
  throw new RegistryError(
    'agent_error',
    scripts.length
      ? `${name} installs several programs (${scripts.join(', ')}) and none is named ${name}`
      : `${name} installed no program to run`,
  );
}

export async function installUvx(ctx: InstallContext): Promise<InstallOutcome> {
  const dist = ctx.entry.distribution.uvx;
  if (!dist) throw new RegistryError('invalid_params', `${ctx.entry.name} has no Python package`);
  const { name, requirement } = pinnedPythonRequirement(dist.package, ctx.entry.version);
  ctx.progress({ step: 'preparing', message: 'Looking for uv' });
  const uv = await checkTool('uv', { host: ctx.host, env: ctx.env, home: ctx.home });
  if (!uv.found || !uv.path) throw new RegistryError('unavailable', missingToolProblem(uv, `to install ${ctx.entry.name} (a Python agent)`));
  const env = { ...ctx.env, PATH: pathWith(ctx.env, dirname(uv.path)), UV_NO_PROGRESS: '1' };
  for (const [cmd, ...args] of uvInstallCommands(uv.path, ctx.dir, requirement)) {
    ctx.progress({ step: 'installing', message: args[0] === 'venv' ? 'Making a Python environment for the agent with uv' : `Installing ${requirement} and what it needs with uv` });
    const result = await runProcess(ctx.host, cmd!, args, {
      cwd: ctx.dir,
      env,
      signal: ctx.signal,
      onLine: (line) => ctx.progress({ step: 'installing', outputLine: line }),
    });
    if (result.code !== 0) {
      const tail = result.output.trim().split(/\r?\n/).slice(-6).join(' / ');
      if (/No solution found|not found in the package registry|no versions of/i.test(result.output)) {
        throw new RegistryError('agent_error', `${requirement} is not available on the Python package index: ${tail}`);
      }
      throw new RegistryError('agent_error', `uv ${args[0]} failed for ${requirement} (exit ${result.code ?? 'signal'}): ${tail}`);
    }
  }
  ctx.progress({ step: 'verifying', message: 'Checking the installed package and its program' });
  const binRel = process.platform === 'win32' ? join('venv', 'Scripts') : join('venv', 'bin');
  const program = pickEntryPoint(join(ctx.dir, binRel), name);
  return {
    kind: 'uvx',
    launch: { type: 'exec', path: join(binRel, program) },
    args: dist.args ?? [],
    env: dist.env ?? {},
    installed: requirement,
    warnings: [],
  };
}
