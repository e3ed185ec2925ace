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

/** What the node gate says on stderr (then exits 127) when the container's node will not do: `<marker> <version or none>`. */
export const NODE_GATE_MARKER = 'switchboard-node-gate:';

/**
 * Runs the agent's argv (`"$@"`) only when the container has node `minMajor`+ (an npm agent runs through its
 * npx): the check is part of the agent's own exec, so it spends no engine call of its own. Otherwise it says
 * the marker and what node it found on stderr, and exits 127 (nodeGateError reads that).
 */
export function nodeGate(argv: readonly string[], minMajor = NODE_MAJOR): string[] {
  const script = `v=$(command -v node >/dev/null 2>&1 && node --version 2>/dev/null) || v=; m=\${v#v}; m=\${m%%.*}; case "$m" in ''|*[!0-9]*) ;; *) [ "$m" -ge ${minMajor} ] && exec "$@" ;; esac; echo "${NODE_GATE_MARKER} \${v:-none}" >&2; exit 127`;
  return ['/bin/sh', '-c', script, 'sh', ...argv];
}

/** The error of an agent the node gate stopped (exit 127 and its marker first on stderr), or null. */
export function nodeGateError(code: number | null, stderrHead: string, minMajor = NODE_MAJOR): string | null {
  if (code !== 127) return null;
  const said = new RegExp(`^${NODE_GATE_MARKER} (\\S{1,40})`, 'm').exec(stderrHead);
  if (!said) return null;
  try {
    nodeVersionOf({ code: said[1] === 'none' ? 127 : 0, signal: null, error: null, stdout: said[1] === 'none' ? '' : said[1]!, stderr: '' }, minMajor);
  } catch (e) {
    return (e as Error).message;
  }
  return null;
}
