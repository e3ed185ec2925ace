/**
 * A registry binary agent in a container on this machine: the install here is what runs, copied into the
 * container at its own path by the container's host before the start (session-container-host.ts), once its
 * build is known to fit the container: the program's machine (its ELF header) is checked against the
 * container's (`uname -m` inside). A mismatch is said in a sentence; nothing is copied.
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { IpcFailure } from '../../../shared/contract';
import type { Host } from '../host/host';
import type { InstallManifest } from './install-manager';
import { currentPlatformKey } from './platform-key';

/** ELF e_machine values, by the names `uname -m` gives. */
const MACHINES: Record<number, string> = { 0x03: 'i686', 0x28: 'armv7l', 0x3e: 'x86_64', 0xb7: 'aarch64', 0xf3: 'riscv64', 0x15: 'ppc64le', 0x16: 's390x' };
const SAME: Record<string, string> = { amd64: 'x86_64', arm64: 'aarch64', i386: 'i686', i586: 'i686', armv8l: 'armv7l' };

/** The machine an ELF program is built for (`uname -m`'s name), null when it is not an ELF file (a script). */
export async function elfMachine(file: string): Promise<string | null> {
  const parts: Buffer[] = [];
  for await (const chunk of createReadStream(file, { start: 0, end: 19 })) parts.push(chunk as Buffer);
  const head = Buffer.concat(parts);
  if (head.length < 20 || head.readUInt32BE(0) !== 0x7f454c46) return null;
  const machine = head[5] === 2 ? head.readUInt16BE(18) : head.readUInt16LE(18);
  return MACHINES[machine] ?? `machine ${machine}`;
}

async function containerMachine(host: Host): Promise<string> {
  const proc = host.spawn(['uname', '-m'], { env: { PATH: '/usr/local/bin:/usr/bin:/bin' }, stdin: 'ignore' });
  let out = '';
  proc.stdout.on('data', (b: Buffer) => (out = (out + b.toString('utf8')).slice(0, 200)));
  proc.stderr.resume();
  const exit = await proc.closed;
  proc.dispose();
  const name = out.trim();
  if (exit.code !== 0 || !/^[A-Za-z0-9_]{1,40}$/.test(name)) throw new IpcFailure('unavailable', 'could not tell the container\'s machine (uname -m failed inside): the binary agent is not copied in');
  return SAME[name] ?? name;
}

/** The command of a binary agent installed here (in `dir`), for a container on this machine; throws when its build does not fit. */
export async function binaryInContainer(host: Host, manifest: InstallManifest & { launch: { type: 'exec' } }, dir: string, recordArgs: readonly string[]): Promise<{ command: string; args: string[]; env?: Record<string, string> }> {
  const program = join(dir, manifest.launch.path);
  const [built, inside] = await Promise.all([elfMachine(program).catch(() => null), containerMachine(host)]);
  if (built !== null && built !== inside) {
    throw new IpcFailure('unavailable', `${manifest.name} ${manifest.version} is installed here for ${built}, and the container is ${inside}: choose an image for ${built}, or run the session on a machine of that kind`);
  }
  const key = currentPlatformKey();
  const target = key ? manifest.targets?.[key] : undefined;
  const args = recordArgs[0] === program ? recordArgs.slice(1) : [...recordArgs];
  return { command: program, args, ...(target?.env ? { env: { ...target.env } } : {}) };
}
