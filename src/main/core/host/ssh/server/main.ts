/**
 * The helper Switchboard copies to an SSH host (bundled from these sources, see ../helper-bundle.ts) and
 * runs there with the host's `node`:
 *
 *   node server.cjs proxy <instance> <graceMs>   started over ssh: joins its stdio to the daemon, starting it if needed
 *   node server.cjs serve <socket> <graceMs>     the daemon: owns the host's processes, outlives dropped connections
 *
 * The daemon listens on a Unix socket (mode 0600, in the helper's own folder), never on a network port.
 */
import { homedir } from 'node:os';
import { SHADOW_SERVICE } from '../../../checkpoints/remote-shadow';
import { shadowHelper } from '../../../checkpoints/shadow-helper';
import { runLocalGit } from '../../local/local-git';
import { runDaemon } from './daemon';
import { runProxy } from './proxy';

const [mode, arg, grace] = process.argv.slice(2);
const graceMs = Number(grace);
if (mode === 'proxy' && arg && Number.isFinite(graceMs)) runProxy(arg, graceMs);
else if (mode === 'serve' && arg && Number.isFinite(graceMs)) {
  // The services concerns run beside the host's files (Host.helperCall).
  runDaemon(arg, graceMs, { [SHADOW_SERVICE]: shadowHelper(homedir(), { git: runLocalGit }) });
}
else {
  process.stderr.write('usage: server.cjs proxy <instance> <graceMs> | serve <socket> <graceMs>\n');
  process.exit(2);
}
