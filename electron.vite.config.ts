import { resolve } from 'node:path';
import { build } from 'esbuild';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// Only native modules (and electron) stay external: .node files cannot be bundled, and the right ABI
// build is chosen by scripts/native.mjs. Pure-JS dependencies are bundled, which spares the ESM output
// Node's strict resolution of CommonJS packages' subpaths.
const external = ['better-sqlite3', 'node-pty', '@parcel/watcher', 'electron', 'bufferutil', 'utf-8-validate'];

/**
 * A file built beside the main bundle as one self-contained CommonJS file, for code that cannot run from the bundle's
 * chunks: the helper Switchboard copies to an SSH host (src/main/ssh-helper.ts), which a packaged app (no sources, no
 * esbuild) must still install; the parsing thread of a large history import (history-import/parse-worker.ts), which
 * worker-code.ts reads and evaluates in a worker (a worker cannot load a file from the app's asar archive), and the
 * thread OpenCode's database is read in (history-import/opencode-worker.ts).
 */
function standalone(name: string, entry: string, outfile: string): Plugin {
  return {
    name: `switchboard-${name}`,
    apply: 'build',
    async writeBundle() {
      await build({
        entryPoints: [resolve(__dirname, entry)],
        outfile: resolve(__dirname, 'out/main', outfile),
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node18',
        legalComments: 'none',
        logLevel: 'silent',
      });
    },
  };
}

export default defineConfig({
  main: {
    plugins: [
      standalone('ssh-helper', 'src/main/ssh-helper.ts', 'ssh-helper.cjs'),
      standalone('import-worker', 'src/main/core/history-import/parse-worker.ts', 'import-worker.cjs'),
      // OpenCode's database is read in a thread (history-import/opencode-thread.ts); better-sqlite3 is loaded there by its path.
      standalone('opencode-worker', 'src/main/core/history-import/opencode-worker.ts', 'opencode-worker.cjs'),
      // The delegation MCP server an agent starts (core/delegation/server-bundle.ts copies it out of the app's archive).
      standalone('delegation-server', 'src/main/delegation-server.ts', 'delegation-server.cjs'),
      // The `api` network's proxy carried to an SSH host for a container there (core/containers/host-proxy.ts).
      standalone('api-proxy', 'src/main/api-proxy-server.ts', 'api-proxy.cjs'),
    ],
    // An imported JSON file (the ACP schema, 150 KB) as JSON.parse of a string: V8 parses that several times
    // faster than the same object as a literal, and the main bundle is loaded on every start.
    json: { stringify: true },
    build: {
      externalizeDeps: false,
      outDir: 'out/main',
      rollupOptions: {
        external,
        input: {
          index: resolve(__dirname, 'src/main/electron/main.ts'),
          server: resolve(__dirname, 'src/main/server/entry.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload cannot require() packages: bundle everything but electron.
      externalizeDeps: false,
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    resolve: { alias: { '@shared': resolve(__dirname, 'src/shared') } },
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      // The page's own code is fetched, parsed and run before its first paint: minified, it is a third the size.
      minify: true,
      chunkSizeWarningLimit: 8000,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
    worker: { format: 'es' },
  },
});
