import { readdirSync, readFileSync } from 'node:fs';
import { procStatFields } from '../../src/main/core/platform/proc-stat';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
}

/** Every process on this (Linux) machine, read from /proc. */
export function processes(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const f = procStatFields(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (f) out.push({ pid: Number(name), state: f[0]!, ppid: Number(f[1]), pgrp: Number(f[2]) });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Whether a member of process group `pgid` still runs (a zombie not reaped yet by a lazy pid 1 does not). */
export function groupRunning(pgid: number): boolean {
  return processes().some((p) => p.pgrp === pgid && p.state !== 'Z');
}

/** Every descendant of `root` (children, their children…), from one reading of /proc. */
export function descendants(root: number, all: readonly ProcInfo[] = processes()): Set<number> {
  const found = new Set<number>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!found.has(p.pid) && (p.ppid === root || found.has(p.ppid))) {
        found.add(p.pid);
        grew = true;
      }
    }
  }
  return found;
}

/** Calls `fn` with each complete line a child process writes to `stream` (a partial line waits for its end). */
export function onLines(stream: NodeJS.ReadableStream, fn: (line: string) => void): void {
  let buf = '';
  stream.on('data', (c: Buffer | string) => {
    buf += c.toString();
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const l of lines) fn(l);
  });
}
