import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { AppSuiteOptions } from './app-suite';
import { sshdSkipReason, startSshd, type Sshd } from './sshd';

/** The host id of the alias test/support/sshd.ts writes in its ssh_config. */
export const SSH_HOST_ID = 'ssh:sbtest';

/** A real sshd for an end-to-end suite, and the remote user's side of it (files made as that user). */
export interface E2eSshHost {
  readonly sshd: Sshd;
  readonly hostId: string;
  readonly uid: number;
  readonly gid: number;
  /** A new folder in the remote user's home (theirs), removed after the suite; `name` gets a random tag. */
  folder(name: string): string;
  /** A folder made in one of those, the remote user's. */
  mkdir(path: string): void;
  /** A file written as the remote user's. */
  write(path: string, text: string): void;
}

/**
 * Starts a real sshd (test/support/sshd.ts) at a suite's module level, or says why not (null, with a warning).
 * The sshd stops, and the folders made with `folder()` are removed, after the suite.
 */
export async function startE2eSshHost(what: string, options: { knownHosts?: 'right' | 'empty'; skip?: string | null } = {}): Promise<E2eSshHost | null> {
  const skip = sshdSkipReason() ?? options.skip ?? null;
  if (skip) {
    console.warn(`skipping ${what}: ${skip}`);
    return null;
  }
  const sshd = await startSshd();
  if (options.knownHosts) await sshd.setKnownHosts(options.knownHosts);
  const uid = Number(spawnSync('id', ['-u', sshd.user], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', sshd.user], { encoding: 'utf8' }).stdout.trim());
  const made: string[] = [];
  afterAll(async () => {
    await sshd.stop();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  return {
    sshd,
    hostId: SSH_HOST_ID,
    uid,
    gid,
    folder: (name) => {
      const dir = join(sshd.home, `${name}-${randomBytes(4).toString('hex')}`);
      mkdirSync(dir);
      chownSync(dir, uid, gid);
      made.push(dir);
      return dir;
    },
    mkdir: (path) => {
      mkdirSync(path);
      chownSync(path, uid, gid);
    },
    write: (path, text) => {
      writeFileSync(path, text);
      chownSync(path, uid, gid);
    },
  };
}

/** Options of an app suite whose server's ssh client uses the test sshd's ssh_config (and so its known_hosts and key). */
export function sshSuiteOptions(host: E2eSshHost | null): AppSuiteOptions {
  return { env: (): Record<string, string> => (host ? { SWITCHBOARD_SSH_CONFIG: host.sshd.configFile } : {}) };
}
