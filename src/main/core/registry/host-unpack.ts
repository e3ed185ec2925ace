/**
 * The helper's side of host-install.ts, run on the SSH host: where a registry binary agent lives there
 * (~/.switchboard-server/agents/<id>/<version>/), and unpacking an archive uploaded into its staging folder
 * with the same safe extraction as an install on this machine (extract.ts, locateCmd). A version folder is
 * complete exactly when its marker is there: it is built in .staging and renamed into place.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ArchiveRefusedError } from './errors';
import { defaultExtractLimits, extractArchive } from './extract';
import { locateCmd } from './installers/binary';

export const HOST_AGENTS_SERVICE = 'registry.hostAgents';
export const hostAgentsRoot = (home: string): string => join(home, '.switchboard-server', 'agents');
const MARKER = '.switchboard-host-install.json';
const STAGING = '.staging';

export type HostAgentsCall =
  | { op: 'probe'; registryId: string; version: string }
  | { op: 'unpack'; registryId: string; version: string; token: string; sha256: string; cmd: string };

/** What the host is, and where the version's program is when it is installed there already. */
export interface HostProbe {
  platform: string;
  arch: string;
  /** The folder an upload goes to (`<staging>/<token>/download`). */
  staging: string;
  program: string | null;
}

/** An upload left in staging longer than this was broken off (its connection lost, Switchboard quit). */
const STALE_UPLOAD_MS = 6 * 60 * 60 * 1000;

async function removeStaleUploads(staging: string): Promise<void> {
  const names = await readdir(staging).catch(() => [] as string[]);
  for (const name of names) {
    const path = join(staging, name);
    const st = await stat(path).catch(() => null);
    if (st && Date.now() - st.mtimeMs > STALE_UPLOAD_MS) await rm(path, { recursive: true, force: true }).catch(() => {});
  }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/;
const TOKEN = /^[0-9a-f]{16}$/;

function checkName(what: string, v: unknown): string {
  if (typeof v !== 'string' || !NAME.test(v) || v.includes('..')) throw new Error(`a host agent call with an unusable ${what}`);
  return v;
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

async function installed(dir: string): Promise<string | null> {
  try {
    const m = JSON.parse(await readFile(join(dir, MARKER), 'utf8')) as { program?: unknown };
    if (typeof m.program !== 'string') return null;
    const program = join(dir, ...m.program.split('/'));
    return (await stat(program)).isFile() ? program : null;
  } catch {
    return null;
  }
}

export function hostAgentsHelper(home: string): (call: unknown) => Promise<unknown> {
  const root = hostAgentsRoot(home);
  return async (raw) => {
    const c = raw as HostAgentsCall;
    const dir = join(root, checkName('agent id', c.registryId), checkName('version', c.version));
    if (c.op === 'probe') {
      const program = await installed(dir);
      if (!program) await removeStaleUploads(join(root, STAGING));
      return { platform: platform(), arch: arch(), staging: join(root, STAGING), program } satisfies HostProbe;
    }
    if (c.op !== 'unpack') throw new Error('an unknown host agent call');
    if (typeof c.token !== 'string' || !TOKEN.test(c.token) || typeof c.sha256 !== 'string' || typeof c.cmd !== 'string') throw new Error('a host agent call without its upload');
    const work = join(root, STAGING, c.token);
    try {
      const archive = join(work, 'download');
      // The bytes unpacked are the ones downloaded and checked on the other side.
      if ((await sha256Of(archive)) !== c.sha256) throw new ArchiveRefusedError('the archive arrived on the host damaged (its SHA-256 differs from the download)');
      const tree = join(work, 'tree');
      await extractArchive(archive, tree, { limits: defaultExtractLimits });
      const rel = await locateCmd(tree, c.cmd);
      const real = await realpath(join(tree, ...rel.split('/')));
      await chmod(real, ((await stat(real)).mode & 0o777) | 0o755);
      await writeFile(join(tree, MARKER), JSON.stringify({ program: rel, sha256: c.sha256, installedAt: Date.now() }));
      await mkdir(join(root, c.registryId), { recursive: true });
      // Another session may have installed the same version meanwhile: theirs stays.
      const existing = await installed(dir);
      if (existing) return { program: existing };
      await rm(dir, { recursive: true, force: true });
      await rename(tree, dir);
      return { program: join(dir, ...rel.split('/')) };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  };
}

/** A staging token for one upload. */
export const uploadToken = (): string => randomBytes(8).toString('hex');
