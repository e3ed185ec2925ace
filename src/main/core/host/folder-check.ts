import type { Host } from './host';

/**
 * Whether `path` is a folder on `host`, asked of the host (never of this machine's disk): null when it is,
 * else why not, as a sentence.
 */
export async function folderProblem(host: Host, path: string): Promise<string | null> {
  if (!path.startsWith('/')) return `not an absolute path: ${path}`;
  let kind: string;
  try {
    const files = await host.files([path]);
    kind = (await files.stat(path)).kind;
  } catch {
    return `no such folder: ${path}`;
  }
  return kind === 'folder' ? null : `not a folder: ${path}`;
}
