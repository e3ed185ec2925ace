import type { Host } from '../host/host';
import { type RunResult, runOnHost } from './run';

export const NODE_MAJOR = 20;

/** Says the container's node version, or exits 127 when it has none. */
export const NODE_PROBE = ['/bin/sh', '-c', 'command -v node >/dev/null 2>&1 || exit 127; exec node --version'];

/** The container's node version (for an npm agent run by its `npx`), or an error naming what the image lacks. */
export async function requireNode(container: Host, env: Record<string, string>, minMajor = NODE_MAJOR): Promise<string> {
  return nodeVersionOf(await runOnHost(container, NODE_PROBE, { env, timeoutMs: 60_000, maxStdout: 4096 }), minMajor);
}

/** What NODE_PROBE said: the version, or the error naming what the image lacks. */
export function nodeVersionOf(r: RunResult, minMajor = NODE_MAJOR): string {
  const version = /^v(\d+)\.\d+\.\d+/.exec(r.stdout.trim());
  if (r.code === 127 || (r.code !== 0 && !version)) throw new Error(`this image has no node: choose an image with node ${minMajor}+, or add the node feature`);
  if (!version || Number(version[1]) < minMajor) throw new Error(`this image's node is ${r.stdout.trim().slice(0, 40) || 'unknown'}: choose an image with node ${minMajor}+, or add the node feature`);
  return version[0];
}

/** What the node gate says on stderr when the container's node will not do: `<marker> <version or none>`. */
export const NODE_GATE_MARKER = 'switchboard-node-gate:';
/**
 * The gate's own exits: no node, or a node too old. What it prints can be lost (an exec that ends at once may
 * not carry its output over under load), so the exit code alone says which; the printed version only adds detail.
 */
export const NODE_GATE_NONE = 97;
export const NODE_GATE_OLD = 98;

/**
 * Runs the agent's argv (`"$@"`) only when the container has node `minMajor`+ (an npm agent runs through its
 * npx): the check is part of the agent's own exec, so it spends no engine call of its own. Otherwise it says
 * the marker and what node it found on stderr, and exits NODE_GATE_NONE or NODE_GATE_OLD (nodeGateError reads that).
 */
export function nodeGate(argv: readonly string[], minMajor = NODE_MAJOR): string[] {
  const script = `v=$(command -v node >/dev/null 2>&1 && node --version 2>/dev/null) || v=; m=\${v#v}; m=\${m%%.*}; case "$m" in ''|*[!0-9]*) ;; *) [ "$m" -ge ${minMajor} ] && exec "$@" ;; esac; echo "${NODE_GATE_MARKER} \${v:-none}" >&2; [ -n "$v" ] && exit ${NODE_GATE_OLD}; exit ${NODE_GATE_NONE}`;
  return ['/bin/sh', '-c', script, 'sh', ...argv];
}

/** Whether an exit is the gate's own (the agent never ran). */
export function isNodeGateExit(code: number | null): boolean {
  return code === NODE_GATE_NONE || code === NODE_GATE_OLD;
}

/** The error of an agent the node gate stopped (its exit code, and the version it printed when that came through), or null. */
export function nodeGateError(code: number | null, stderrHead: string, minMajor = NODE_MAJOR): string | null {
  if (code === NODE_GATE_NONE) return `this image has no node: choose an image with node ${minMajor}+, or add the node feature`;
  if (code !== NODE_GATE_OLD) return null;
  const said = new RegExp(`^${NODE_GATE_MARKER} (v\\d[\\w.]{0,38})`, 'm').exec(stderrHead)?.[1];
  return `this image's node is ${said ?? `older than ${minMajor}`}: choose an image with node ${minMajor}+, or add the node feature`;
}
