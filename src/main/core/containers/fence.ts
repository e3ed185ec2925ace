/**
 * The fence of a container session: which folders are mounted (at their own absolute paths, nothing of the
 * user's home), which network the container has, and its memory, CPU and process limits. `fenceRunArgs` turns
 * it into engine arguments; `fenceEnforcement` says, per setting, whether this engine enforces it.
 */
import path from 'node:path';
import type { EngineKind } from './engine';

/**
 * - `none`: only the container's own loopback; nothing outside it can be reached (the engine's `--network none`).
 * - `api`: `none` plus a forward proxy of Switchboard's (api-proxy.ts), reached through a unix socket mounted
 *   into the container, that opens tunnels only to the listed hosts. Needs node in the container (the relay).
 *   The proxy runs where the engine does: in Switchboard's process for this machine, as a process of an SSH
 *   host on that host (host-proxy.ts).
 * - `full`: the engine's default network (the internet and what the host's network reaches).
 */
export type NetworkMode = 'none' | 'api' | 'full';

export interface Fence {
  network: NetworkMode;
  /** For `api`: the host names the container may reach (port 443). */
  allowHosts: readonly string[];
  /** Memory limit in bytes (no swap beyond it). */
  memoryBytes: number;
  cpus: number;
  /** Most processes at once (a fork bomb stops there). */
  pids: number;
  /** Absolute host paths mounted read-write at the same path inside; the first is the session folder. */
  folders: readonly string[];
  /** Absolute host paths mounted read-only at the same path (a worktree's repository git folder: worktree-git.ts). */
  readOnly?: readonly string[];
  /** The agent's program files, each mounted read-only at its own path from its link in Switchboard's scratch folder (agent-programs.ts). */
  programs?: readonly ProgramMount[];
}

export interface ProgramMount {
  /** A file of Switchboard's scratch folder (a link to the program). */
  source: string;
  /** The program's own path, where it is mounted inside. */
  target: string;
}

/** Limits that keep a laptop usable with five sessions running at once. */
export const DEFAULT_LIMITS = { memoryBytes: 2 * 1024 ** 3, cpus: 2, pids: 2048 } as const;

export function defaultFence(folders: readonly string[], network: NetworkMode = 'none'): Fence {
  return { network, allowHosts: [], ...DEFAULT_LIMITS, folders };
}

/** What is wrong with a fence, in sentences (empty: it can be used). */
export function fenceProblems(fence: Fence): string[] {
  const problems: string[] = [];
  if (fence.folders.length === 0) problems.push('a container session needs its folder');
  for (const f of [...fence.folders, ...(fence.readOnly ?? []), ...(fence.programs ?? []).flatMap((p) => [p.source, p.target])]) {
    if (!path.posix.isAbsolute(f) || path.posix.normalize(f) !== f.replace(/\/+$/, '') || f === '/') problems.push(`cannot mount "${f}": a folder is an absolute, normalised path other than /`);
    // A comma or a quote would end the engine's mount field and start another (a second source=…).
    else if (/[,"']/.test(f) || [...f].some(isControl)) problems.push(`cannot mount "${[...f].map((c) => (isControl(c) ? '?' : c)).join('')}": a folder mounted into a container cannot have a comma, a quote or a control character in its path`);
  }
  if (fence.network === 'api' && fence.allowHosts.length === 0) problems.push('the network mode "only the agent\'s API" needs the hosts it allows');
  for (const h of fence.allowHosts) if (!/^(\*\.)?[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/.test(h)) problems.push(`not a host name: "${h.slice(0, 80)}"`);
  if (!(fence.memoryBytes >= 64 * 1024 ** 2)) problems.push('the memory limit must be at least 64 MiB');
  if (!(fence.cpus > 0)) problems.push('the CPU limit must be more than 0');
  if (!(Number.isInteger(fence.pids) && fence.pids >= 16)) problems.push('the process limit must be at least 16');
  return problems;
}

function isControl(c: string): boolean {
  const code = c.codePointAt(0)!;
  return code < 0x20 || code === 0x7f;
}

/** `podman/docker run` arguments that apply the fence's network and limits. */
export function fenceRunArgs(fence: Fence): string[] {
  const args = [`--memory=${fence.memoryBytes}`, `--memory-swap=${fence.memoryBytes}`, `--cpus=${fence.cpus}`, `--pids-limit=${fence.pids}`];
  if (fence.network !== 'full') args.push('--network=none');
  return args;
}

/** The bind mounts of the fence's folders (each at its own path), then its read-only ones and the agent's programs, as `--mount` values. */
export function fenceMounts(fence: Fence): string[] {
  return [
    ...fence.folders.map((f) => `type=bind,source=${f},target=${f}`),
    ...(fence.readOnly ?? []).map((f) => `type=bind,source=${f},target=${f},readonly`),
    ...(fence.programs ?? []).map((p) => `type=bind,source=${p.source},target=${p.target},readonly`),
  ];
}

export interface EngineFacts {
  kind: EngineKind;
  rootless: boolean;
  cgroupVersion: 'v1' | 'v2' | 'unknown';
  /** The engine runs in a virtual machine (Docker Desktop, podman machine): limits are the VM's share. */
  inVm: boolean;
}

export interface Enforcement {
  setting: 'files' | 'network' | 'memory' | 'cpus' | 'pids';
  enforced: boolean;
  /** How, or why not, in one sentence. */
  how: string;
}

/** Per setting, whether the engine enforces it: a setting it cannot enforce is said, never silently dropped. */
/** `where`: the machine the container runs on, as the texts name it (`this machine`, `the host devbox`). */
export function fenceEnforcement(fence: Fence, facts: EngineFacts, where = 'this machine'): Enforcement[] {
  const limitsOk = !(facts.rootless && facts.cgroupVersion !== 'v2');
  const limitsWhy = limitsOk ? `by the kernel's cgroups (${facts.cgroupVersion})${facts.inVm ? ', within the engine\'s virtual machine' : ''}` : 'not enforced: rootless Podman cannot set limits without cgroups v2';
  const network =
    fence.network === 'none'
      ? { enforced: true, how: 'no network: the container has only its own loopback' }
      : fence.network === 'full'
        ? { enforced: false, how: `not fenced: the container reaches what ${where} reaches` }
        : { enforced: true, how: `no network but a proxy of Switchboard's that opens tunnels (CONNECT) and sends plain HTTP on only to ${fence.allowHosts.join(', ')}; a program that ignores HTTPS_PROXY and HTTP_PROXY reaches nothing` };
  return [
    { setting: 'files', enforced: true, how: `only ${fence.folders.join(', ')} mounted (at the same paths)${fence.readOnly?.length ? `, and ${fence.readOnly.join(', ')} read-only (the repository's git folder)` : ''}${fence.programs?.length ? `, and the agent's program (${fence.programs.map((p) => p.target).join(', ')}) read-only` : ''}; nothing else of ${where}` },
    { setting: 'network', ...network },
    { setting: 'memory', enforced: limitsOk, how: limitsOk ? `${Math.round(fence.memoryBytes / 1024 ** 2)} MiB, no swap beyond, ${limitsWhy}` : limitsWhy },
    { setting: 'cpus', enforced: limitsOk, how: limitsOk ? `${fence.cpus} CPUs, ${limitsWhy}` : limitsWhy },
    { setting: 'pids', enforced: limitsOk, how: limitsOk ? `at most ${fence.pids} processes, ${limitsWhy}` : limitsWhy },
  ];
}
