import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { procStatFields } from '../../platform/proc-stat';

/** One process group's cost at one moment. */
export interface GroupSample {
  pids: number[];
  rssBytes: number;
  /** Linux: CPU clock ticks used so far by the group's live processes; elsewhere null (ps gives a percentage). */
  cpuTicks: number | null;
  /** Elsewhere: ps's own percentage; Linux: null (computed from two samples). */
  cpuPercent: number | null;
}

/** USER_HZ: 100 on every Linux that matters. */
export const CLOCK_TICKS_PER_SECOND = 100;

/** Parses /proc/<pid>/stat (the command name may contain spaces and parentheses). */
export function parseProcStat(text: string): { pgrp: number; ticks: number; rssPages: number } | null {
  const f = procStatFields(text);
  if (!f) return null;
  const pgrp = Number(f[2]);
  const ticks = Number(f[11]) + Number(f[12]);
  const rssPages = Number(f[21]);
  if (!Number.isFinite(pgrp) || !Number.isFinite(ticks)) return null;
  return { pgrp, ticks, rssPages };
}

/** VmRSS of /proc/<pid>/status, bytes. */
export function parseVmRss(text: string): number | null {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(text);
  return m ? Number(m[1]) * 1024 : null;
}

/** Bytes per page of /proc/<pid>/stat's rss field: VmRSS (kB) over rss (pages) of this process, once. */
let pageBytes: number | null = null;
function pageSize(): number {
  if (pageBytes !== null) return pageBytes;
  pageBytes = 4096;
  try {
    const bytes = parseVmRss(readFileSync('/proc/self/status', 'latin1'));
    const pages = parseProcStat(readFileSync('/proc/self/stat', 'latin1'))?.rssPages;
    // Powers of two from 4 KiB to 64 KiB; the two reads are not at the same instant, hence the rounding.
    if (bytes && pages) pageBytes = 2 ** Math.min(16, Math.max(12, Math.round(Math.log2(bytes / pages))));
  } catch {
    /* keep 4 KiB */
  }
  return pageBytes;
}

function readStat(pid: number): ReturnType<typeof parseProcStat> {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return null; // gone
  }
}

/** Direct children of a process's main thread (empty where the kernel lacks /proc/…/children). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** pgid → its member pids, from one pass over every process in /proc (stat files only). */
async function scanGroups(groups: number[]): Promise<Map<number, Set<number>>> {
  const out = new Map<number, Set<number>>();
  for (const g of groups) out.set(g, new Set());
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return out;
  }
  let read = 0;
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    // A busy machine has thousands of processes: let other work run between slices of the pass.
    if (++read % 128 === 0) await new Promise((r) => setImmediate(r));
    const stat = readStat(Number(name));
    if (stat) out.get(stat.pgrp)?.add(Number(name));
  }
  return out;
}

/**
 * Samples process groups on Linux cheaply enough to run every second: the members of each group are
 * found once by a pass over /proc, then followed by reading only their own stat files (and their main
 * thread's children, so that a new subprocess is seen at once); a full pass again every `rescanMs`
 * catches what that misses (children of other threads, processes that joined the group otherwise).
 */
export class GroupSampler {
  private members = new Map<number, Set<number>>();
  private scannedAt = -Infinity;

  constructor(
    private readonly rescanMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  async sample(groups: number[]): Promise<Map<number, GroupSample>> {
    if (process.platform !== 'linux') return sampleGroups(groups);
    const out = new Map<number, GroupSample>();
    if (groups.length === 0) {
      this.members.clear();
      return out;
    }
    if (groups.some((g) => !this.members.has(g)) || this.now() - this.scannedAt >= this.rescanMs) {
      this.members = await scanGroups(groups);
      this.scannedAt = this.now();
    }
    const bytesPerPage = pageSize();
    for (const g of groups) {
      const sample: GroupSample = { pids: [], rssBytes: 0, cpuTicks: 0, cpuPercent: null };
      out.set(g, sample);
      const pids = this.members.get(g);
      if (!pids) continue;
      const queue = [...pids];
      for (let i = 0; i < queue.length; i++) {
        const pid = queue[i]!;
        const stat = readStat(pid);
        if (!stat || stat.pgrp !== g) {
          pids.delete(pid);
          continue;
        }
        pids.add(pid);
        sample.pids.push(pid);
        sample.rssBytes += stat.rssPages * bytesPerPage;
        sample.cpuTicks! += stat.ticks;
        for (const c of childrenOf(pid)) if (!pids.has(c) && !queue.includes(c)) queue.push(c);
      }
    }
    for (const g of [...this.members.keys()]) if (!groups.includes(g)) this.members.delete(g);
    return out;
  }
}

async function linuxSample(groups: number[]): Promise<Map<number, GroupSample>> {
  const members = await scanGroups(groups);
  const out = new Map<number, GroupSample>();
  const bytesPerPage = pageSize();
  for (const [g, pids] of members) {
    const sample: GroupSample = { pids: [], rssBytes: 0, cpuTicks: 0, cpuPercent: null };
    for (const pid of pids) {
      const stat = readStat(pid);
      if (!stat || stat.pgrp !== g) continue;
      sample.pids.push(pid);
      sample.rssBytes += stat.rssPages * bytesPerPage;
      sample.cpuTicks! += stat.ticks;
    }
    out.set(g, sample);
  }
  return out;
}

function psSample(groups: number[]): Promise<Map<number, GroupSample>> {
  return new Promise((resolve) => {
    const out = new Map<number, GroupSample>();
    for (const g of groups) out.set(g, { pids: [], rssBytes: 0, cpuTicks: null, cpuPercent: 0 });
    execFile('ps', ['-A', '-o', 'pid=,pgid=,rss=,pcpu='], { maxBuffer: 8 * 1024 * 1024 }, (err, stdout) => {
      if (err) return resolve(out);
      for (const line of stdout.split('\n')) {
        const [pid, pgid, rss, pcpu] = line.trim().split(/\s+/).map(Number);
        const sample = pgid !== undefined ? out.get(pgid) : undefined;
        if (!sample || pid === undefined) continue;
        sample.pids.push(pid);
        sample.rssBytes += (rss ?? 0) * 1024;
        sample.cpuPercent = (sample.cpuPercent ?? 0) + (pcpu ?? 0);
      }
      resolve(out);
    });
  });
}

/** Samples the given process groups (leader pids): /proc on Linux, `ps` elsewhere. */
export function sampleGroups(groups: number[]): Promise<Map<number, GroupSample>> {
  if (groups.length === 0) return Promise.resolve(new Map());
  return process.platform === 'linux' ? linuxSample(groups) : psSample(groups);
}

/** The pids of a process group still alive (Linux /proc, else ps). For shutdown checks. */
export async function groupMembers(pgid: number): Promise<number[]> {
  return (await sampleGroups([pgid])).get(pgid)?.pids ?? [];
}
