import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// Native modules and the ACP SDK stay external: they are loaded from node_modules at run time
// (native .node files cannot be bundled, and the right ABI build is chosen by scripts/native.mjs).
const external = ['better-sqlite3', 'node-pty', 'ws', 'electron', 'bufferutil', 'utf-8-validate'];

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        external,
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          server: resolve(__dirname, 'src/main/node/server-entry.ts'),
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
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      chunkSizeWarningLimit: 8000,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
    worker: { format: 'es' },
  },
});
