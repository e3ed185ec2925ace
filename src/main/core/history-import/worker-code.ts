import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The code of a worker thread of this folder, to evaluate: in the built app one self-contained file beside the main
 * bundle (`prebuilt`, electron.vite.config.ts), read here (it may lie in an asar archive, which a worker cannot load
 * from); from the sources (tests, benchmarks) `source` bundled on first use. Null when neither is found (the caller
 * then does the work in the main thread).
 */
export function workerCodeLoader(prebuilt: string, source: string, external: string[] = []): () => string | null {
  let bundled: string | null = null;
  return () => {
    const here = dirname(fileURLToPath(import.meta.url));
    // Beside the main bundle: this module may sit in one of its chunks.
    const built = [join(here, prebuilt), join(here, '..', prebuilt)].find((p) => existsSync(p));
    if (built) return readFileSync(built, 'utf8');
    const entry = join(here, source);
    if (bundled !== null || !existsSync(entry)) return bundled;
    try {
      // Required, not imported, so that the app's bundler leaves esbuild (a build tool) out of the bundle.
      const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
      const out = esbuild.buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', target: 'node18', write: false, logLevel: 'silent', legalComments: 'none', external });
      bundled = out.outputFiles[0]!.text;
    } catch {
      return null;
    }
    return bundled;
  };
}
