import { spawn } from 'node:child_process';
import { userInfo } from 'node:os';
import { guardProcessGroup } from './group-watchdog';

export function userShell(): string {
  if (process.env.SHELL) return process.env.SHELL;
  try {
    const shell = userInfo().shell;
    if (shell) return shell;
  } catch {
    /* no passwd entry */
  }
  return process.platform === 'win32' ? 'powershell.exe' : '/bin/sh';
}

let cached: Promise<Record<string, string>> | null = null;

/** A login shell that did not answer in time is hung up on, then killed this much later if it is still there. */
export const SHELL_KILL_GRACE_MS = 1000;

/**
 * The environment of the user's login shell. An app started from a desktop launcher lacks what the
 * shell profile adds to PATH (nvm, asdf, Homebrew); agents and runtime checks need it.
 * Falls back to this process's environment when the shell does not answer in time.
 */
export function loginShellEnv(timeoutMs = 5000): Promise<Record<string, string>> {
  cached ??= readLoginShellEnv(timeoutMs);
  return cached;
}

function currentEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

/** The login shell's environment, read now (loginShellEnv reads it once). */
export function readLoginShellEnv(timeoutMs: number): Promise<Record<string, string>> {
  const base = currentEnv();
  if (process.platform === 'win32') return Promise.resolve(base);
  const marker = '__SWITCHBOARD_ENV__';
  return new Promise((resolve) => {
    const child = spawn(userShell(), ['-ilc', `printf '${marker}'; env -0; printf '${marker}'`], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...base, DISABLE_AUTO_UPDATE: 'true' },
      detached: true,
    });
    const unguard = guardProcessGroup(child.pid, { hangup: true });
    const chunks: Buffer[] = [];
    const signal = (sig: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, sig);
      } catch {
        /* gone */
      }
    };
    let kill: ReturnType<typeof setTimeout> | null = null;
    // Hung up on first, as a closed terminal would be: the profile's traps run (pyenv's rehash removes its lock
    // file; killed outright, it leaves the lock, and every login shell after it waits 60 s for it).
    const timer = setTimeout(() => {
      signal('SIGHUP');
      kill = setTimeout(() => signal('SIGKILL'), SHELL_KILL_GRACE_MS);
      kill.unref();
      resolve(base);
    }, timeoutMs);
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', () => {
      unguard();
      clearTimeout(timer);
      resolve(base);
    });
    // Closed: the shell and whatever it started with our pipe are gone.
    child.on('close', () => {
      unguard();
      clearTimeout(timer);
      if (kill) clearTimeout(kill);
      const out = Buffer.concat(chunks).toString('utf8');
      const start = out.indexOf(marker);
      const end = out.lastIndexOf(marker);
      if (start < 0 || end <= start) return resolve(base);
      const env: Record<string, string> = { ...base };
      for (const entry of out.slice(start + marker.length, end).split('\0')) {
        const eq = entry.indexOf('=');
        if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
      }
      // Keep anything this process was explicitly given on top of PATH from the profile.
      env.PATH = mergePath(env.PATH, base.PATH);
      resolve(env);
    });
  });
}

function mergePath(...parts: Array<string | undefined>): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of parts) {
    for (const dir of (p ?? '').split(':')) {
      if (dir && !seen.has(dir)) {
        seen.add(dir);
        out.push(dir);
      }
    }
  }
  return out.join(':');
}
