/**
 * A registry binary agent on an SSH host, for the host's platform: the helper says what the host is
 * (node's platform and arch) and whether the version is there already; if not, the archive of the host's
 * target is downloaded here, through this machine's network (the same downloader, limits and URL policy as
 * an install here: a build server often cannot reach GitHub, and the app's proxy settings are this machine's),
 * its SHA-256 taken, streamed to the host's staging folder, and unpacked there by the helper with the same
 * safe extraction (host-unpack.ts), which checks the SHA-256 first. The registry publishes no checksums:
 * the hash guards the bytes between the download and the unpacking.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { IpcFailure } from '../../../shared/contract';
import type { Host } from '../host/host';
import { errorMessage } from './errors';
import { downloadTo } from './http';
import { HOST_AGENTS_SERVICE, uploadToken, type HostAgentsCall, type HostProbe } from './host-unpack';
import type { InstallManifest } from './install-manager';
import { currentPlatformKey } from './platform-key';
import type { BinaryTarget, PlatformKey } from './validate';

export interface HostBinariesOptions {
  downloadIdleTimeoutMs: number;
  maxDownloadBytes: number;
}

export interface ProgramOnHost {
  /** The program's absolute path on the host. */
  program: string;
  target: BinaryTarget;
}

function call(host: Host, c: HostAgentsCall): Promise<unknown> {
  // Only SSH hosts have a helper; a host whose files are this machine's runs the install made here.
  if (!host.helperCall) throw new Error(`${host.id} has no helper to install agents with`);
  return host.helperCall(HOST_AGENTS_SERVICE, c);
}

/** The registry's build for a host by node's names of its platform and arch (a linux arm64 host: linux-aarch64), or why there is none. */
export function targetFor(
  targets: Partial<Record<PlatformKey, BinaryTarget>>,
  platform: string,
  arch: string,
): { ok: true; target: BinaryTarget } | { ok: false; platform: string; offered: string[] } {
  const key = currentPlatformKey(platform as NodeJS.Platform, arch);
  const target = key ? targets[key] : undefined;
  return target ? { ok: true, target } : { ok: false, platform: key ?? `${platform}-${arch}`, offered: Object.keys(targets) };
}

/** Streams a file to `<dir>/download` on the host (the folder made private). */
async function upload(host: Host, file: string, dir: string): Promise<void> {
  const proc = host.spawn(['sh', '-c', 'umask 077 && mkdir -p -- "$1" && exec cat > "$1/download"', 'sh', dir], { env: {} });
  let stderr = '';
  proc.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString('utf8')).slice(-2000)));
  proc.stdout.resume();
  try {
    await proc.started;
    await pipeline(createReadStream(file), proc.stdin);
    const exit = await proc.closed;
    if (exit.error || exit.code !== 0) throw new Error(exit.error ?? (stderr.trim() || `exit ${exit.code ?? exit.signal}`));
  } finally {
    proc.dispose();
  }
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

export class HostBinaries {
  /** Installs under way, by host, agent and version: two sessions starting at once share one. */
  private readonly pending = new Map<string, Promise<ProgramOnHost>>();

  constructor(private readonly options: HostBinariesOptions) {}

  /** The program of a binary install for `host` (installing it there first if needed). `where`: the host's name for messages. */
  program(host: Host, manifest: InstallManifest, where: string): Promise<ProgramOnHost> {
    const key = `${host.id}\0${manifest.registryId}\0${manifest.version}`;
    let p = this.pending.get(key);
    if (!p) {
      p = this.install(host, manifest, where).finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return p;
  }

  private async install(host: Host, manifest: InstallManifest, where: string): Promise<ProgramOnHost> {
    const { registryId, version, name } = manifest;
    const probe = (await call(host, { op: 'probe', registryId, version })) as HostProbe;
    if (!manifest.targets) {
      throw new IpcFailure('unavailable', `${name} ${version} was installed here before Switchboard kept its builds for other machines: update or reinstall it from the registry to run it on ${where}`);
    }
    const picked = targetFor(manifest.targets, probe.platform, probe.arch);
    if (!picked.ok) {
      throw new IpcFailure('unavailable', `${name} ${version} has no build for ${where} (${picked.platform}); the registry offers ${picked.offered.join(', ') || 'none'}`);
    }
    const { target } = picked;
    if (probe.program) return { program: probe.program, target };
    const scratch = await mkdtemp(join(tmpdir(), 'sb-host-agent-'));
    try {
      const file = join(scratch, 'download');
      await downloadTo(target.archive, file, {
        idleTimeoutMs: this.options.downloadIdleTimeoutMs,
        maxBytes: this.options.maxDownloadBytes,
        // A file: archive only when the install here came from a file: registry too.
        allowFile: manifest.installed.startsWith('file:'),
      });
      const sha256 = await sha256Of(file);
      const token = uploadToken();
      await upload(host, file, posix.join(probe.staging, token));
      const { program } = (await call(host, { op: 'unpack', registryId, version, token, sha256, cmd: target.cmd })) as { program: string };
      return { program, target };
    } catch (e) {
      throw new IpcFailure('unavailable', `${name} ${version} could not be installed on ${where}: ${errorMessage(e)}`);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
}
