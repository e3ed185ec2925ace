import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENTRY = 'src/main/api-proxy-server.ts';
/** Built beside the app's main bundle (electron.vite.config.ts). */
const PREBUILT = 'api-proxy.cjs';

let cached: Promise<Buffer> | null = null;

const here = (): string => dirname(fileURLToPath(import.meta.url));

/**
 * The standalone proxy of the `api` network (src/main/api-proxy-server.ts) as one file node can run: the prebuilt
 * one beside the main bundle, else bundled with esbuild from the sources (tests, `npm start` from sources). Its
 * proxy logic is proxy-connection.ts, the same the in-process proxy runs: one implementation, bundled.
 */
export function apiProxyBundle(): Promise<Buffer> {
  if (!cached) {
    cached = build();
    cached.catch(() => (cached = null));
  }
  return cached;
}

async function build(): Promise<Buffer> {
  const prebuilt = [join(here(), PREBUILT), join(here(), '..', PREBUILT)].find((p) => existsSync(p));
  if (prebuilt) return readFileSync(prebuilt);
  let root = here();
  while (!existsSync(join(root, ENTRY))) {
    const up = dirname(root);
    if (up === root) throw new Error(`the API proxy's sources (${ENTRY}) are not found from ${here()}`);
    root = up;
  }
  // Not a literal import, so that the app's bundler leaves esbuild (a build tool) out of the bundle.
  const esbuildName = 'esbuild';
  const esbuild = (await import(/* @vite-ignore */ esbuildName)) as typeof import('esbuild');
  const result = await esbuild.build({ entryPoints: [join(root, ENTRY)], bundle: true, platform: 'node', format: 'cjs', target: 'node18', write: false, logLevel: 'silent', legalComments: 'none' });
  return Buffer.from(result.outputFiles[0]!.contents);
}
