// Lint, and the layer rule: shared (pure) ← main (Node) / renderer (browser) / preload (bridge).
// In main: core/ (plain Node) ← app-core.ts (composition root) ← electron/ (glue) and server/ (browser mode);
// only src/main/electron/ imports electron.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'net', 'http', 'https', 'crypto', 'stream', 'util', 'url', 'worker_threads'];
// Where work happens (processes, ptys, writes to disk, file watching) is reached through the Host port
// (src/main/core/host): a concern that spawned or wrote directly would not follow a session onto an SSH host
// or into a worktree. A separate rule name from the layer rule, so the two do not replace each other.
const hostMessage = 'Processes, ptys, file writes and file watching go through the Host port (src/main/core/host/host.ts).';
const FS_WRITES = [
  'default', 'promises', 'open', 'openSync', 'write', 'writeSync', 'writev', 'writevSync', 'writeFile', 'writeFileSync',
  'appendFile', 'appendFileSync', 'createWriteStream', 'rename', 'renameSync', 'unlink', 'unlinkSync', 'rm', 'rmSync',
  'rmdir', 'rmdirSync', 'mkdir', 'mkdirSync', 'mkdtemp', 'mkdtempSync', 'symlink', 'symlinkSync', 'link', 'linkSync',
  'chmod', 'chmodSync', 'lchmod', 'lchmodSync', 'chown', 'chownSync', 'lchown', 'lchownSync', 'copyFile', 'copyFileSync',
  'cp', 'cpSync', 'truncate', 'truncateSync', 'ftruncate', 'ftruncateSync', 'utimes', 'utimesSync', 'lutimes', 'lutimesSync',
  'futimes', 'futimesSync', 'watch', 'watchFile',
];
const processModules = ['child_process', 'node:child_process', 'node-pty', '@parcel/watcher'];
const hostRule = ({ processes = true, writes = true } = {}) => ({
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      paths: [
        ...(processes ? processModules.map((name) => ({ name, message: hostMessage, allowTypeImports: true })) : []),
        ...(writes ? ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'].map((name) => ({ name, importNames: FS_WRITES, message: hostMessage, allowTypeImports: true })) : []),
      ],
    },
  ],
});

// Files of core that write the app's own data folder (not "where work happens"): they may write, not spawn.
export const WRITES_DATA_FOLDER = [
  'src/main/core/store/database.ts', // the SQLite file and its folder: the data folder
  'src/main/core/store/backup.ts', // the store's backups, in the data folder
  'src/main/core/agents/secret-store.ts', // the secrets key file in the data folder
  'src/main/core/acp/connection/agent-log.ts', // agents' logs in the data folder
  // Shadow repositories live in the data folder (the user's folder is written through Host.files):
  'src/main/core/checkpoints/shadow-repo.ts', // makes and prunes a shadow repository
  'src/main/core/checkpoints/git-objects.ts', // writes the objects a snapshot read
  'src/main/core/checkpoints/folder-scan.ts', // opens the files it reads with O_NOFOLLOW (open counts as a write)
  'src/main/core/registry/fetcher.ts', // the registry's cache in the data folder
  'src/main/core/registry/service.ts', // ditto (icons, the last registry read)
  'src/main/core/registry/install-manager.ts', // agents are installed into the data folder
  'src/main/core/registry/http.ts', // downloads into the install's scratch folder
  'src/main/core/registry/installers/binary.ts', // marks an installed binary executable in the data folder
  'src/main/core/registry/host-install.ts', // the download for an SSH host, in a scratch folder here
  'src/main/core/registry/host-unpack.ts', // runs in the SSH helper, on the host: unpacks an agent under ~/.switchboard-server there
  'src/main/core/delegation/server-bundle.ts', // the delegation MCP server's file, copied into the data folder for agents to run
];
// This machine's own plumbing: may spawn and write.
export const THIS_MACHINE = [
  'src/main/core/registry/extract.ts', // unpacks a downloaded archive into the data folder (xz, bzip2 on this machine)
  'src/main/core/platform/group-watchdog.ts', // this machine itself: the watchdog process of agents' groups
  'src/main/core/platform/shell-env.ts', // the login shell's environment, read by running it
  'src/main/core/platform/instance-lock.ts', // the one-instance lock file in the data folder
  'src/main/core/platform/regular-file.ts', // opens a file someone else named for reading, refusing all but regular files (open counts as a write)
  'src/main/core/acp/supervisor/process-metrics.ts', // samples this machine's process table (ps) where /proc is missing
  'src/main/core/delegation/channel.ts', // the delegation channel's unix socket, in a private temp folder of this user's
  'src/main/core/delegation/relay.ts', // runs on an SSH host or in a container: the session's relay socket, in a private temp folder there
];

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
    files: ['src/main/core/**'],
    ignores: ['src/main/core/host/**'],
    rules: hostRule(),
  },
  // Justified exceptions: the app's own data folder and this machine's own plumbing are not "where work happens".
  // Each is still needed: test/repo/lint-exceptions.test.ts lints every one without it and expects a refusal.
  {
    files: WRITES_DATA_FOLDER,
    rules: hostRule({ writes: false }),
  },
  {
    files: THIS_MACHINE,
    rules: hostRule({ processes: false, writes: false }),
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
);
