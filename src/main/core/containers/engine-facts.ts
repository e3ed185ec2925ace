import { sharesThisMachine } from '../../../shared/contract/hosts';
import type { Host } from '../host/host';
import type { Engine } from './engine';
import type { EngineFacts } from './fence';
import { runOnHost } from './run';

/** What decides whether the engine enforces a fence's limits: rootless or not, the cgroups version, a VM. */
export async function engineFacts(host: Host, engine: Engine): Promise<EngineFacts> {
  const format = engine.kind === 'podman' ? '{{.Host.Security.Rootless}} {{.Host.CgroupsVersion}} {{.Host.OS}}' : '{{.CgroupVersion}} {{.OperatingSystem}} {{.SecurityOptions}}';
  const r = await runOnHost(host, [engine.path, 'info', '--format', format], { env: engine.env, timeoutMs: 30_000, maxStdout: 64 * 1024 });
  const out = r.code === 0 ? r.stdout.trim() : '';
  if (engine.kind === 'podman') {
    const [rootless, cgroups] = out.split(/\s+/);
    return { kind: 'podman', rootless: rootless === 'true', cgroupVersion: cgroups === 'v2' ? 'v2' : cgroups === 'v1' ? 'v1' : 'unknown', inVm: process.platform !== 'linux' && sharesThisMachine(host.id) };
  }
  const [cgroups = ''] = out.split(/\s+/);
  return { kind: 'docker', rootless: /rootless/.test(out), cgroupVersion: cgroups === '2' ? 'v2' : cgroups === '1' ? 'v1' : 'unknown', inVm: /Docker Desktop/i.test(out) };
}
