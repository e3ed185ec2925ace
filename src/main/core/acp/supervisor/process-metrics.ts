import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

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
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const f = text.slice(close + 2).split(' ');
  // f[0] is field 3 (state): field n is f[n - 3].
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

async function linuxSample(groups: number[]): Promise<Map<number, GroupSample>> {
  const out = new Map<number, GroupSample>();
  for (const g of groups) out.set(g, { pids: [], rssBytes: 0, cpuTicks: 0, cpuPercent: null });
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return out;
  }
  await Promise.all(
    entries.map(async (name) => {
      if (!/^\d+$/.test(name)) return;
      let stat;
      try {
        stat = parseProcStat(await readFile(`/proc/${name}/stat`, 'utf8'));
      } catch {
        return; // gone meanwhile
      }
      if (!stat) return;
      const sample = out.get(stat.pgrp);
      if (!sample) return;
      let rss: number | null = null;
      try {
        rss = parseVmRss(await readFile(`/proc/${name}/status`, 'utf8'));
      } catch {
        /* gone meanwhile */
      }
      sample.pids.push(Number(name));
      // Kernel threads and zombies have no VmRSS; fall back to stat's pages (4 KiB on most machines).
      sample.rssBytes += rss ?? stat.rssPages * 4096;
      sample.cpuTicks = (sample.cpuTicks ?? 0) + stat.ticks;
    }),
  );
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
