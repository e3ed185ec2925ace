import type { PlatformKey } from './validate';

/** The registry's key for this machine (`linux-x86_64`, `darwin-aarch64`…), or null on an unlisted platform. */
export function currentPlatformKey(platform: NodeJS.Platform = process.platform, arch: string = process.arch): PlatformKey | null {
  const os = platform === 'darwin' ? 'darwin' : platform === 'linux' ? 'linux' : platform === 'win32' ? 'windows' : null;
  const cpu = arch === 'x64' ? 'x86_64' : arch === 'arm64' ? 'aarch64' : null;
  return os && cpu ? (`${os}-${cpu}` as PlatformKey) : null;
}
