// Lint, and the layer rule: shared (pure) ← main (Node) / renderer (browser) / preload (bridge).
// In main: core/ (plain Node) ← app-core.ts (composition root) ← electron/ (glue) and server/ (browser mode);
// only src/main/electron/ imports electron.
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
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['electron', ...nodeBuiltins, '**/main/**', '**/preload/**', '**/shared/**', 'better-sqlite3', 'node-pty'],
              message: 'The renderer reaches the main process only through the contract, and imports src/shared through its alias (@shared/...).',
            },
          ],
          // Every xterm is a SafeTerminal: its output goes through the escape filter.
          paths: [{ name: '@xterm/xterm', importNames: ['Terminal'], allowTypeImports: true, message: 'Use SafeTerminal (src/renderer/src/app/safe-terminal.ts).' }],
        },
      ],
    },
  },
  {
    files: ['src/preload/**'],
    rules: restrict(['**/main/**', '**/renderer/**', ...nodeBuiltins], 'The preload only bridges the contract.'),
  },
  {
    files: ['src/main/**'],
    ignores: ['src/main/electron/**'],
    rules: restrict(['electron', '**/renderer/**', '**/preload/**'], 'Below the Electron glue the main process is plain Node: no electron imports (use src/main/electron/ for glue).'),
  },
  {
    files: ['src/main/core/**'],
    rules: restrict(
      ['electron', '**/renderer/**', '**/preload/**', '**/main/electron/**', '**/main/server/**', '**/app-core', '**/app-core.ts', '../electron/**', '../server/**', '../../electron/**', '../../server/**', '../../../electron/**', '../../../server/**'],
      'src/main/core is plain Node and knows no transport: it never imports electron/, server/ or app-core (the composition root imports it).',
    ),
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
);
