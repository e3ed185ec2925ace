/**
 * What an agent runs on an SSH host. A registry install on this machine is this machine's (its node, its
 * folder under the data folder), so on a host:
 *   - the user's own command for that host (the `agents.onHost` setting), when they set one, wins;
 *   - an npm agent runs through the host's own `npx`, pinned to the exact version installed here (npm
 *     fetches it once into the remote user's npm cache, honouring the host's npm config: registry, proxy);
 *   - a uvx agent runs through the host's own `uvx`, pinned to the requirement installed here (a sentence
 *     naming the host when it has no uvx);
 *   - a binary agent runs the registry's build for the host's platform, installed on the host on first use
 *     (host-install.ts); in a container on this machine, the install here, copied in (container-binary.ts);
 *   - a custom agent's command is run as written: it names a program on that host.
 */
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { IpcFailure } from '../../../shared/contract';
import { hostLabel, parseHostId } from '../../../shared/contract/hosts';
import type { AgentOnHost } from '../../../shared/contract/settings';
import type { AgentRecord } from '../agents/agent-repository';
import type { Host } from '../host/host';
import { binaryInContainer } from './container-binary';
import type { HostBinaries } from './host-install';
import { MANIFEST_FILE, type InstallManifest } from './install-manager';

export interface HostCommand {
  command: string;
  args: string[];
  /** Set over the agent's own environment on that host. */
  env?: Record<string, string>;
}

export interface HostLaunchDeps {
  /** Where this machine's registry installs are (<dataDir>/agents). */
  agentsDir: string;
  binaries: HostBinaries;
  /** The user's command for the agent on that host, if any. */
  onHost(agentId: string, hostId: string): AgentOnHost | null;
}

/** Whether `program` is on the host's PATH (with the environment the agent gets there). */
async function hasProgram(host: Host, program: string, env: Record<string, string>): Promise<boolean> {
  const proc = host.spawn(['sh', '-c', 'command -v "$1" >/dev/null 2>&1', 'sh', program], { env, stdin: 'ignore' });
  proc.stdout.resume();
  proc.stderr.resume();
  const exit = await proc.closed;
  proc.dispose();
  return exit.code === 0;
}

/**
 * `record.args`: what the user's settings make of the agent's args; `env`: the environment the agent gets on
 * the host (a PATH there decides which `uvx` is found). The command's `env` goes over it.
 */
export async function commandOnHost(record: AgentRecord, host: Host, env: Record<string, string>, deps: HostLaunchDeps): Promise<HostCommand> {
  const own = deps.onHost(record.id, host.id);
  // The user's program for the host replaces what would run there; their args alone are the agent's args
  // (after npx's or uvx's own), their env goes over the rest.
  if (own?.command) return { command: own.command, args: own.args ?? record.args, ...(own.env ? { env: own.env } : {}) };
  const found = await resolved(own?.args ? { ...record, args: own.args } : record, host, { ...env, ...own?.env }, deps);
  return own?.env ? { ...found, env: { ...found.env, ...own.env } } : found;
}

async function resolved(record: AgentRecord, host: Host, env: Record<string, string>, deps: HostLaunchDeps): Promise<HostCommand> {
  if (record.source !== 'registry' || !record.registryId) return { command: record.command, args: record.args };
  const where = hostLabel(host.id);
  const dir = join(deps.agentsDir, record.registryId, record.version ?? '');
  let manifest: InstallManifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as InstallManifest;
  } catch {
    throw new IpcFailure('unavailable', `${record.name} cannot start on ${where}: its install on this machine is missing (reinstall it from the registry)`);
  }
  // The user's args (or the registry's for this machine); a launch path of this machine never travels.
  const userArgs = (launchPath: string): string[] => (record.args[0] === join(dir, launchPath) ? record.args.slice(1) : record.args);
  if (manifest.kind === 'npx' && manifest.launch.type === 'node') {
    return { command: 'npx', args: ['--yes', '--', manifest.installed, ...userArgs(manifest.launch.script)] };
  }
  if (manifest.kind === 'uvx' && manifest.launch.type === 'exec') {
    if (!(await hasProgram(host, 'uvx', env))) {
      throw new IpcFailure('unavailable', `${record.name} is a Python agent run with uvx, and ${where} has no uvx on its PATH: install uv there (https://docs.astral.sh/uv/), or set the agent's PATH for that host`);
    }
    const program = manifest.launch.path.split(sep).at(-1)!;
    return { command: 'uvx', args: ['--from', manifest.installed, program, ...record.args] };
  }
  if (manifest.kind === 'binary' && manifest.launch.type === 'exec') {
    // A container on this machine runs the install made here, copied in (its build checked against the container's).
    const box = parseHostId(host.id);
    if (box?.kind === 'container' && box.on === 'local') return binaryInContainer(host, { ...manifest, launch: manifest.launch }, dir, record.args);
    const { program, target } = await deps.binaries.program(host, manifest, where);
    // The host's build's args and env, unless the user set their own.
    const args = sameList(record.args, manifest.args) ? (target.args ?? []) : record.args;
    const targetEnv = Object.entries(target.env ?? {}).filter(([k]) => env[k] === undefined || env[k] === manifest.env[k]);
    return { command: program, args, env: Object.fromEntries(targetEnv) };
  }
  throw new IpcFailure('unavailable', `${record.name} (${manifest.kind}) cannot be started on ${where}: its install here is not one Switchboard knows how to carry there`);
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
