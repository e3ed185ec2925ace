import { chmod, lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { ArchiveRefusedError, RegistryError } from '../errors';
import { extractArchive, safeMemberPath } from '../extract';
import { downloadTo } from '../http';
import { currentPlatformKey } from '../platform-key';
import type { InstallContext, InstallOutcome } from './types';

/** Finds the registry's `cmd` in the extracted folder (also one level down, for archives wrapped in a single folder). */
export async function locateCmd(root: string, cmd: string): Promise<string> {
  let rel: string;
  try {
    rel = safeMemberPath(cmd);
  } catch {
    throw new ArchiveRefusedError(`the registry's command "${cmd}" is not a path inside the archive`);
  }
  if (!rel) throw new ArchiveRefusedError(`the registry's command "${cmd}" is empty`);
  const realRoot = await realpath(root);
  const candidates = [rel];
  const top = await readdir(root);
  if (top.length === 1 && (await lstat(join(root, top[0]!))).isDirectory()) candidates.push(`${top[0]}/${rel}`);
  for (const c of candidates) {
    const full = join(root, ...c.split('/'));
    let real: string;
    try {
      real = await realpath(full);
    } catch {
      continue;
    }
    if (!real.startsWith(realRoot + sep)) throw new ArchiveRefusedError(`the command "${cmd}" resolves outside the archive`);
    if (!(await stat(real)).isFile()) throw new ArchiveRefusedError(`the command "${cmd}" is not a file`);
    return c;
  }
  throw new ArchiveRefusedError(`the command "${cmd}" that the registry names is not in the archive`);
}

export async function installBinary(ctx: InstallContext): Promise<InstallOutcome> {
  const platform = currentPlatformKey();
  const target = platform ? ctx.entry.distribution.binary?.[platform] : undefined;
  if (!target) {
    throw new RegistryError('unavailable', `${ctx.entry.name} has no build for this machine (${platform ?? `${process.platform}-${process.arch}`})`);
  }
  ctx.progress({ step: 'downloading', bytesDone: 0, bytesTotal: null, message: target.archive });
  const archive = join(ctx.scratch, 'download');
  await downloadTo(target.archive, archive, {
    signal: ctx.signal,
    idleTimeoutMs: ctx.downloadIdleTimeoutMs,
    maxBytes: ctx.maxDownloadBytes,
    allowFile: ctx.allowFileUrls,
    onProgress: (done, total) => ctx.progress({ step: 'downloading', bytesDone: done, bytesTotal: total }),
  });
  ctx.progress({ step: 'extracting', bytesDone: null, bytesTotal: null, message: null });
  const { format } = await extractArchive(archive, ctx.dir, { limits: ctx.limits, signal: ctx.signal });
  ctx.progress({ step: 'verifying', message: null });
  const cmdRel = await locateCmd(ctx.dir, target.cmd);
  const full = join(ctx.dir, ...cmdRel.split('/'));
  if (process.platform !== 'win32') {
    const real = await realpath(full);
    await chmod(real, ((await stat(real)).mode & 0o777) | 0o755);
  }
  return {
    kind: 'binary',
    launch: { type: 'exec', path: cmdRel.split('/').join(sep) },
    args: target.args ?? [],
    env: target.env ?? {},
    installed: `${target.archive} (${format})`,
    warnings: [],
  };
}
