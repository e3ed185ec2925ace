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
