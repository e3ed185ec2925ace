import type { Host } from '../host/host';
import { runOnHost } from './run';

export const NODE_MAJOR = 20;

/** The container's node version (for an npm agent run by its `npx`), or an error naming what the image lacks. */
export async function requireNode(container: Host, env: Record<string, string>, minMajor = NODE_MAJOR): Promise<string> {
  const r = await runOnHost(container, ['/bin/sh', '-c', 'command -v node >/dev/null 2>&1 || exit 127; exec node --version'], { env, timeoutMs: 60_000, maxStdout: 4096 });
  const version = /^v(\d+)\.\d+\.\d+/.exec(r.stdout.trim());
  if (r.code === 127 || (r.code !== 0 && !version)) throw new Error(`this image has no node: choose an image with node ${minMajor}+, or add the node feature`);
  if (!version || Number(version[1]) < minMajor) throw new Error(`this image's node is ${r.stdout.trim().slice(0, 40) || 'unknown'}: choose an image with node ${minMajor}+, or add the node feature`);
  return version[0];
}
