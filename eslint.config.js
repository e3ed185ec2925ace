// Lint, and the layer rule: shared (pure) ← main (Node) / renderer (browser) / preload (bridge);
// only the Electron glue (src/main/index.ts, src/main/electron/) may import electron.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'net', 'http', 'https', 'crypto', 'stream', 'util', 'url', 'worker_threads'];
const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
});

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['src/shared/**'],
    rules: restrict(['electron', 'react', 'react-dom', ...nodeBuiltins, '**/main/**', '**/renderer/**', '**/preload/**'], 'src/shared is pure TypeScript: no Node, Electron, React or other layers.'),
  },
  {
    files: ['src/renderer/**'],
    rules: restrict(['electron', ...nodeBuiltins, '**/main/**', '**/preload/**', 'better-sqlite3', 'node-pty'], 'The renderer reaches the main process only through the contract (src/shared/contract).'),
  },
  {
    files: ['src/preload/**'],
    rules: restrict(['**/main/**', '**/renderer/**', ...nodeBuiltins], 'The preload only bridges the contract.'),
  },
  {
    files: ['src/main/**'],
    ignores: ['src/main/index.ts', 'src/main/electron/**'],
    rules: restrict(['electron', '**/renderer/**', '**/preload/**'], 'Below the Electron glue the main process is plain Node: no electron imports (use src/main/electron/ for glue).'),
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
);
