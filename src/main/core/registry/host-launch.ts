/**
 * What an agent runs on an SSH host. A registry install on this machine is this machine's (its node, its
 * folder under the data folder), so on a host:
 *   - an npm agent runs through the host's own `npx`, pinned to the exact version installed here (npm
 *     fetches it once into the remote user's npm cache, honouring the host's npm config: registry, proxy);
 *   - a uvx or binary agent is refused in words (not installed on hosts yet);
 *   - a custom agent's command is run as written: it names a program on that host.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IpcFailure } from '../../../shared/contract';
import { hostLabel } from '../../../shared/contract/hosts';
import type { AgentRecord } from '../agents/agent-repository';
import { MANIFEST_FILE, type InstallManifest } from './install-manager';

export interface HostCommand {
  command: string;
  args: string[];
}

/** `agentsDir`: where this machine's registry installs are (<dataDir>/agents). */
export function commandOnHost(record: AgentRecord, hostId: string, agentsDir: string): HostCommand {
  if (record.source !== 'registry' || !record.registryId) return { command: record.command, args: record.args };
  const where = hostLabel(hostId);
  let manifest: InstallManifest;
  try {
    manifest = JSON.parse(readFileSync(join(agentsDir, record.registryId, record.version ?? '', MANIFEST_FILE), 'utf8')) as InstallManifest;
  } catch {
    throw new IpcFailure('unavailable', `${record.name} cannot start on ${where}: its install on this machine is missing (reinstall it from the registry)`);
  }
  if (manifest.kind !== 'npx' || manifest.launch.type !== 'node') {
    throw new IpcFailure(
      'unavailable',
      `${record.name} is a ${manifest.kind} agent installed for this machine; Switchboard runs only npm (npx) registry agents on a host so far. Add it on ${where} as a custom agent with the command that starts it there.`,
    );
  }
  // The row's args are [this machine's script, ...the registry's args or the user's]: the script stays here.
  const script = join(agentsDir, record.registryId, record.version ?? '', manifest.launch.script);
  const args = record.args[0] === script ? record.args.slice(1) : record.args;
  return { command: 'npx', args: ['--yes', '--', manifest.installed, ...args] };
}
