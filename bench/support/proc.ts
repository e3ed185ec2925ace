// /proc readers (Linux): CPU time and resident memory of a process, and its descendants.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { procStatFields } from '../../src/main/core/platform/proc-stat';

const conf = (name: string, fallback: number): number => {
  try {
    return Number(execFileSync('getconf', [name], { encoding: 'utf8' }).trim()) || fallback;
  } catch {
    return fallback;
  }
};
const ticksPerSecond = conf('CLK_TCK', 100);
const pageBytes = conf('PAGESIZE', 4096);

interface Stat {
  ppid: number;
  /** utime + stime, ms */
  cpuMs: number;
  rssBytes: number;
}

function stat(pid: number): Stat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // f[0] = state (field 3), f[1] = ppid (4), f[11] = utime (14), f[12] = stime (15), f[21] = rss (24).
  const f = procStatFields(text);
  if (!f) return null;
  return { ppid: Number(f[1]), cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / ticksPerSecond, rssBytes: Number(f[21]) * pageBytes };
}

/** CPU ms of each of a process's threads, by thread name (threads of one name summed): where its time goes. */
export function threadCpuMs(pid: number): Map<string, number> {
  const by = new Map<string, number>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return by;
  }
  for (const tid of tids) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
      const f = procStatFields(text);
      if (!f) continue;
      by.set(name, (by.get(name) ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / ticksPerSecond);
    } catch {
      // the thread ended
    }
  }
  return by;
}

/** utime + stime of the process itself (not its children), in ms. */
export function cpuMs(pid: number): number {
  return stat(pid)?.cpuMs ?? NaN;
}

/** CPU ms of a process's children that ended and were waited for (cutime + cstime): its git runs, not its live agents. */
export function reapedChildrenCpuMs(pid: number): number {
  try {
    const f = procStatFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return f ? ((Number(f[13]) + Number(f[14])) * 1000) / ticksPerSecond : NaN;
  } catch {
    return NaN;
  }
}

/** Resident set size in bytes. */
export function rssBytes(pid: number): number {
  return stat(pid)?.rssBytes ?? NaN;
}

/** Every live descendant of pid. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (!s) continue;
    const list = children.get(s.ppid) ?? [];
    list.push(Number(name));
    children.set(s.ppid, list);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** The command line of a process (its arguments joined with spaces). */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** /proc/<pid>/schedstat: time on a CPU and time runnable but waiting for one (ms), and timeslices run. */
export function schedstat(pid: number): { runMs: number; waitMs: number; slices: number } {
  try {
    const [run, wait, slices] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return { runMs: run! / 1e6, waitMs: wait! / 1e6, slices: slices! };
  } catch {
    return { runMs: NaN, waitMs: NaN, slices: NaN };
  }
}

/** The renderer processes of Chromium launched by this process (its children with --type=renderer). */
export function rendererPids(): number[] {
  return descendants(process.pid).filter((p) => /chrom/i.test(cmdline(p).split(' ')[0] ?? '') && cmdline(p).includes('--type=renderer'));
}

/** The renderer process running `spin` (a busy loop in a page): the one whose CPU time grew the most meanwhile. */
export async function rendererRunning(spin: () => Promise<unknown>): Promise<number> {
  const pids = rendererPids();
  const before = pids.map(cpuMs);
  await spin();
  const grew = pids.map((p, i) => cpuMs(p) - before[i]!);
  const at = grew.indexOf(Math.max(...grew));
  if (at < 0) throw new Error('no renderer process found');
  return pids[at]!;
}
