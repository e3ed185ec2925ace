import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENTRY = 'src/main/delegation-server.ts';
/** Built beside the app's main bundle (electron.vite.config.ts). */
const PREBUILT = 'delegation-server.cjs';

let cached: string | null = null;

const here = (): string => dirname(fileURLToPath(import.meta.url));

/**
 * The delegation MCP server as one file node can run: the prebuilt one beside the main bundle (outside an asar
 * archive: an agent's node cannot read inside one, so it is copied out into `dir`), else bundled with esbuild
 * from the sources (tests, `npm start` from sources). Written once per content, read-only.
 */
export async function delegationServerFile(dir: string): Promise<string> {
  if (cached && existsSync(cached)) return cached;
  let source: Buffer | null = null;
  const prebuilt = [join(here(), PREBUILT), join(here(), '..', PREBUILT)].find((p) => existsSync(p));
  if (prebuilt) source = readFileSync(prebuilt);
  else {
    let root = here();
    while (!existsSync(join(root, ENTRY))) {
      const up = dirname(root);
      if (up === root) throw new Error(`the delegation server's sources (${ENTRY}) are not found from ${here()}`);
      root = up;
    }
    // Not a literal import, so that the app's bundler leaves esbuild (a build tool) out of the bundle.
    const esbuildName = 'esbuild';
    const esbuild = (await import(/* @vite-ignore */ esbuildName)) as typeof import('esbuild');
    const result = await esbuild.build({ entryPoints: [join(root, ENTRY)], bundle: true, platform: 'node', format: 'cjs', target: 'node18', write: false, logLevel: 'silent', legalComments: 'none' });
    source = Buffer.from(result.outputFiles[0]!.contents);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `delegation-server-${createHash('sha256').update(source).digest('hex').slice(0, 16)}.cjs`);
  if (!existsSync(file)) {
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, source, { mode: 0o500 });
    renameSync(partial, file);
  }
  cached = file;
  return file;
}

/** How an agent starts it: Switchboard's own node (Electron's, run as node). */
export function delegationServerCommand(file: string): { command: string; args: string[]; env: Record<string, string> } {
  return { command: process.execPath, args: [file], env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
}
