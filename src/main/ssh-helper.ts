/**
 * The helper Switchboard copies to an SSH host (bundled from this file, see core/host/ssh/helper-bundle.ts)
 * and runs there with the host's `node`. It composes the host's side as app-core.ts composes this machine's:
 * the daemon and proxy (core/host/ssh/server) and the services concerns run beside the host's files.
 *
 *   node server.cjs proxy <instance> <graceMs>   started over ssh: joins its stdio to the daemon, starting it if needed
 *   node server.cjs serve <socket> <graceMs>     the daemon: owns the host's processes, outlives dropped connections
 *
 * The daemon listens on a Unix socket (mode 0600, in the helper's own folder), never on a network port.
 */
import { homedir } from 'node:os';
import { SHADOW_SERVICE } from './core/checkpoints/remote-shadow';
import { shadowHelper } from './core/checkpoints/shadow-helper';
import { IMPORT_STORE_SERVICE, storeHelper } from './core/history-import/store-helper';
import { ConfinedFs } from './core/host/local/confined-fs';
import { runLocalGit } from './core/host/local/local-git';
import { runDaemon } from './core/host/ssh/server/daemon';
import { runProxy } from './core/host/ssh/server/proxy';
import { watchFolder } from './core/host/ssh/server/watch';
import { HOST_AGENTS_SERVICE, hostAgentsHelper } from './core/registry/host-unpack';

const [mode, arg, grace] = process.argv.slice(2);
const graceMs = Number(grace);
if (mode === 'proxy' && arg && Number.isFinite(graceMs)) runProxy(arg, graceMs);
else if (mode === 'serve' && arg && Number.isFinite(graceMs)) {
  // The services concerns run beside the host's files (Host.helperCall).
  // The host's own git, watch and confined files: what a shadow repository reaches the folder by there.
  const host = { git: runLocalGit, watch: async (root: string, onEvent: Parameters<typeof watchFolder>[1], o: { ignore?: readonly string[] } = {}) => watchFolder(root, onEvent, o.ignore ?? []), files: (roots: readonly string[]) => ConfinedFs.open(roots) };
  runDaemon(arg, graceMs, {
    [SHADOW_SERVICE]: shadowHelper(homedir(), host),
    [HOST_AGENTS_SERVICE]: hostAgentsHelper(homedir()),
    // The agents' stores of the host's user, listed and read there for History → Import.
    [IMPORT_STORE_SERVICE]: storeHelper(homedir(), process.env),
  });
}
else {
  process.stderr.write('usage: server.cjs proxy <instance> <graceMs> | serve <socket> <graceMs>\n');
  process.exit(2);
}
