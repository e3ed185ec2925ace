import { accessSync, constants } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Host } from '../host/host';
import { gitTry } from './git';

/**
 * Of the hooks git runs for an operation, the first one installed (so that a failure can say "the pre-commit
 * hook said no" beside its output). Hooks themselves run as git runs them: these are the user's repositories.
 */
export async function installedHook(host: Host, cwd: string, names: readonly string[]): Promise<string | null> {
  for (const name of names) {
    // Where the user's git finds the hook (their core.hooksPath): rev-parse itself runs none.
    const out = await gitTry(host, cwd, ['rev-parse', '--git-path', `hooks/${name}`], { repoHooks: true });
    if (out.code !== 0) continue;
    const rel = out.stdout.toString('utf8').trim();
    const path = isAbsolute(rel) ? rel : join(cwd, rel);
    try {
      accessSync(path, constants.X_OK);
      return name;
    } catch {
      // not installed
    }
  }
  return null;
}
