import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The helper as copied to a host: one CommonJS file, and its version (a hash of its bytes). */
export interface HelperBundle {
  version: string;
  source: Buffer;
}

const ENTRY = 'src/main/ssh-helper.ts';
/** A prebuilt helper shipped beside the app's main bundle (a build step may write it). */
const PREBUILT = 'ssh-helper.cjs';

let cached: Promise<HelperBundle> | null = null;

function bundleOf(source: Buffer): HelperBundle {
  return { version: createHash('sha256').update(source).digest('hex').slice(0, 16), source };
}

/** The folder holding this module, or the app's bundle it was built into. */
function here(): string {
  return dirname(fileURLToPath(import.meta.url));
}

/**
 * The helper: a prebuilt `ssh-helper.cjs` beside this code when there is one, else bundled with esbuild from
 * the sources (src/main/ssh-helper.ts, which reuses the local host's confined-fs, list-files and git code), once.
 */
export function helperBundle(): Promise<HelperBundle> {
  cached ??= (async () => {
    // Beside the main bundle: this module may sit in one of its chunks.
    const prebuilt = [join(here(), PREBUILT), join(here(), '..', PREBUILT)].find((p) => existsSync(p));
    if (prebuilt) return bundleOf(await readFile(prebuilt));
    let dir = here();
    for (;;) {
      if (existsSync(join(dir, ENTRY))) break;
      const up = dirname(dir);
      if (up === dir) throw new Error(`the SSH helper's sources (${ENTRY}) are not found from ${here()}`);
      dir = up;
    }
    // Not a literal import, so that the app's bundler leaves esbuild (a build tool) out of the bundle.
    const esbuildName = 'esbuild';
    const esbuild = (await import(/* @vite-ignore */ esbuildName)) as typeof import('esbuild');
    const result = await esbuild.build({
      entryPoints: [join(dir, ENTRY)],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node18',
      write: false,
      logLevel: 'silent',
      legalComments: 'none',
    });
    return bundleOf(Buffer.from(result.outputFiles[0]!.contents));
  })();
  cached.catch(() => (cached = null));
  return cached;
}
