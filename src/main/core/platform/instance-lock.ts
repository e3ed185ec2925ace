import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * One Switchboard per data folder, whichever its mode (the desktop app or browser mode): two would write the
 * same store, settings and backups, and each start the other's agents. The one running holds a lock file in the
 * data folder naming it (pid, mode, port once it listens); a second start reads it and refuses, naming the first.
 * A lock whose process is gone (killed, crashed) is taken over.
 */

export const LOCK_FILE = 'switchboard.lock';

export interface LockHolder {
  pid: number;
  mode: 'electron' | 'browser';
  /** The port browser mode listens on (null: not yet, or the desktop app). */
  port: number | null;
  host: string;
  startedAt: number;
}

export interface InstanceLock {
  readonly path: string;
  /** Records the port the instance listens on (for the message a second start shows). */
  setPort(port: number): void;
  /** Removes the lock (only if it is still this process's). */
  release(): void;
}

export class InstanceLockedError extends Error {
  constructor(
    readonly holder: LockHolder,
    readonly lockPath: string,
  ) {
    super(describeHolder(holder, lockPath));
    this.name = 'InstanceLockedError';
  }
}

/** What the user reads when a second start is refused. */
export function describeHolder(h: LockHolder, lockPath: string): string {
  const what = h.mode === 'browser' ? `in browser mode${h.port ? ` at http://127.0.0.1:${h.port}` : ''}` : 'as the desktop app';
  return (
    `Another Switchboard (process ${h.pid}${h.host === hostname() ? '' : ` on ${h.host}`}) is running ${what} with this data folder, since ` +
    `${new Date(h.startedAt).toISOString()}. Use that one, stop it first, or start this one with another data folder (--data-dir). ` +
    `If no Switchboard is running, delete ${lockPath}.`
  );
}

/** Is the process alive (EPERM: it is, and someone else's)? */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): LockHolder | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    if (!Number.isInteger(v.pid) || (v.pid as number) <= 0) return null;
    return {
      pid: v.pid as number,
      mode: v.mode === 'electron' ? 'electron' : 'browser',
      port: Number.isInteger(v.port) ? (v.port as number) : null,
      host: typeof v.host === 'string' ? v.host.slice(0, 200) : '',
      startedAt: Number.isFinite(v.startedAt) ? (v.startedAt as number) : 0,
    };
  } catch {
    return null;
  }
}

/** The holder that keeps this process out: a live process of this machine's, or one of another machine's. */
function holding(h: LockHolder | null): boolean {
  if (!h || h.pid === process.pid) return false;
  // A data folder shared with another machine: its process cannot be checked from here.
  if (h.host && h.host !== hostname()) return true;
  return alive(h.pid);
}

/** Takes the data folder's lock, or throws InstanceLockedError naming the instance that holds it. */
export function acquireInstanceLock(dataDir: string, mode: LockHolder['mode']): InstanceLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, mode, port: null, host: hostname(), startedAt: Date.now() };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify(me));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw e;
    }
    const holder = readHolder(path);
    if (holder && holding(holder)) throw new InstanceLockedError(holder, path);
    // Stale (its process is gone) or half-written: moved aside under a name of this process's, so that two
    // starts taking it over at once cannot both win (the second's rename finds nothing and it tries again).
    const aside = `${path}.stale-${process.pid}`;
    try {
      renameSync(path, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      continue;
    }
    // What was moved is a live instance's lock written since it was read: put back (unless another is there).
    const moved = readHolder(aside);
    if (moved && moved.pid !== holder?.pid && holding(moved)) {
      try {
        linkSync(aside, path);
      } catch {
        // another lock is there already: it decides
      }
    }
    unlinkSync(aside);
  }
  const mine = () => readHolder(path)?.pid === process.pid;
  return {
    path,
    setPort(port) {
      if (!mine()) return;
      me.port = port;
      writeFileSync(`${path}.${process.pid}`, JSON.stringify(me), { mode: 0o600 });
      renameSync(`${path}.${process.pid}`, path);
    },
    release() {
      try {
        if (mine()) unlinkSync(path);
      } catch {
        // gone already
      }
    },
  };
}
