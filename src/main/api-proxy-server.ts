/**
 * The proxy of the network "only the agent's API" for a container on an SSH host: carried there as one file
 * (core/containers/host-proxy.ts copies and checks it), run by the host's node as a process of the host's
 * helper, beside the container and its engine. The same logic as the proxy Switchboard runs in its own process
 * for a container on this machine (core/containers/proxy-connection.ts, bundled in).
 *
 *   node api-proxy-<hash>.cjs <dir>
 *     stdin:  one JSON line `{"allow":["api.example.com", "host:8080"]}` (the allow-list: never on a command line),
 *             then kept open: its end (or SIGTERM, SIGHUP) stops the proxy and removes its socket;
 *     <dir>:  made private (0700); the proxy listens on a new socket there and names it in `socket-name`, which the
 *             relay inside the container (api-proxy.ts RELAY_SOURCE) reads at each connection;
 *     stdout: `ready <socket name>` once it listens. It also stops once `socket-name` names another proxy's socket.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createProxyServer } from './core/containers/proxy-connection';
import { PROXY_LIMITS } from './core/containers/proxy-limits';

const MAX_CONFIG_LINE = 64 * 1024;
const MAX_HOSTS = 256;
const HOST_ENTRY = /^(\*\.)?[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/;
const TAKEOVER_CHECK_MS = 5_000;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function parseConfig(line: string): string[] {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    fail('the configuration is not JSON');
  }
  const allow = (raw as { allow?: unknown } | null)?.allow;
  if (!Array.isArray(allow) || allow.length === 0 || allow.length > MAX_HOSTS || !allow.every((h) => typeof h === 'string' && HOST_ENTRY.test(h))) fail('the allow-list is not a list of host names');
  return allow as string[];
}

/** The folder, made private; refused when it is not a folder of this user's own (a link, someone else's). */
function privateDir(dir: string): void {
  if (!path.isAbsolute(dir) || path.normalize(dir) !== dir) fail(`not an absolute, normalised folder: ${dir.slice(0, 200)}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) fail(`${dir} is not a folder of this user's own`);
  chmodSync(dir, 0o700);
}

function serve(dir: string, allow: readonly string[]): void {
  privateDir(dir);
  // Listened on by its name in the folder (the working folder): a unix socket's path is short-limited (108 bytes).
  process.chdir(dir);
  const name = `p-${randomBytes(6).toString('hex')}.sock`;
  const { server, open } = createProxyServer(allow, PROXY_LIMITS);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.close();
    for (const s of open) s.destroy();
    rmSync(path.join(dir, name), { force: true });
    process.exit(0);
  };
  server.on('error', (e) => fail(`the proxy could not listen in ${dir}: ${e.message}`));
  server.listen(name, () => {
    const partial = `socket-name.${process.pid}.tmp`;
    writeFileSync(partial, `${name}\n`, { mode: 0o600 });
    renameSync(partial, 'socket-name');
    process.stdout.write(`ready ${name}\n`);
    // Another proxy took the folder over (a Switchboard started again after one that could not stop this one): the
    // relay goes to the socket `socket-name` names, so this one serves no one any more and goes.
    setInterval(() => {
      let named = '';
      try {
        named = readFileSync('socket-name', 'utf8').trim();
      } catch {
        /* gone with its folder: stop too */
      }
      if (named !== name) stop();
    }, TAKEOVER_CHECK_MS);
  });
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);
}

const dir = process.argv[2];
if (!dir) fail('usage: api-proxy <folder> (the allow-list on stdin)');
let buffer = '';
const onData = (chunk: string) => {
  buffer += chunk;
  const nl = buffer.indexOf('\n');
  if (nl < 0) {
    if (buffer.length > MAX_CONFIG_LINE) fail('the configuration line is too long');
    return;
  }
  process.stdin.off('data', onData);
  process.stdin.off('end', early);
  serve(dir, parseConfig(buffer.slice(0, nl)));
  // What comes after the configuration is not read: only the end of stdin matters.
  process.stdin.resume();
};
const early = () => fail('stdin ended before the configuration');
process.stdin.setEncoding('utf8');
process.stdin.on('data', onData);
process.stdin.on('end', early);
