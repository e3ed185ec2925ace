/**
 * The network of a container in the `api` mode: the container has no network at all (`--network none`); a
 * relay inside it (RELAY_SOURCE, run by the container's node) turns connections to 127.0.0.1:PROXY_PORT into
 * connections to a unix socket mounted from the machine the engine runs on, where the proxy answers: this
 * class in Switchboard's process for this machine, a carried process on an SSH host (host-proxy.ts). It opens
 * `CONNECT host:port` tunnels to the listed hosts (port 443 unless an entry names its port), resolved here, and
 * sends plain-HTTP requests in absolute form (`GET http://host:port/path`) on to them (http-forward.ts); any
 * other host or address is refused with 403. A program that ignores the proxy variables reaches nothing at
 * all: that is the fence.
 */
import type { Server, Socket } from 'node:net';
import path from 'node:path';
import type { ConfinedFiles } from '../host/host';
import { createProxyServer } from './proxy-connection';
import { type ProxyLimits, proxyLimits } from './proxy-limits';

/** Where the relay listens inside the container. */
export const PROXY_PORT = 3128;

/** The process environment that sends a container's programs through the proxy. */
export function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  return { HTTPS_PROXY: url, https_proxy: url, HTTP_PROXY: url, http_proxy: url, ALL_PROXY: url, NO_PROXY: 'localhost,127.0.0.1', no_proxy: 'localhost,127.0.0.1', NODE_USE_ENV_PROXY: '1' };
}

/** A running proxy of a container in the `api` mode, wherever it runs (here: ApiProxy; on an SSH host: HostApiProxy). */
export interface ContainerProxy {
  /** The folder mounted into the container: the proxy's socket, `socket-name` naming it, and the relay's script. */
  readonly dir: string;
  readonly relayScript: string;
  close(): Promise<void>;
}

export class ApiProxy implements ContainerProxy {
  private constructor(
    private readonly server: Server,
    private readonly open: Set<Socket>,
    readonly dir: string,
  ) {}

  /**
   * Listens on a socket in `dir` with the relay's script beside it (`files`: confined to a private folder of
   * this machine holding `dir`). The proxy runs in this process: the container's engine must be on this machine.
   * `limits`: the proxy-limits.ts defaults unless given (tests).
   */
  static async start(files: ConfinedFiles, dir: string, allow: readonly string[], limits: Partial<ProxyLimits> = {}): Promise<ApiProxy> {
    // A new socket name each time: one a crashed Switchboard left behind cannot be removed as a file.
    const name = `proxy-${process.pid}-${Date.now().toString(36)}.sock`;
    await files.writeFile(path.join(dir, 'relay.cjs'), RELAY_SOURCE, { createParents: true });
    const socket = path.join(dir, name);
    const { server, open } = createProxyServer(allow, proxyLimits(limits));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => resolve());
    });
    await files.writeFile(path.join(dir, 'socket-name'), name);
    return new ApiProxy(server, open, dir);
  }

  get relayScript(): string {
    return path.join(this.dir, 'relay.cjs');
  }

  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.open) s.destroy();
    return closed;
  }
}

/**
 * Run inside the container by its node (written beside the socket by ApiProxy or HostApiProxy). It starts a copy of itself in the background and exits once that copy
 * listens (or one listens already): the caller knows the relay is there when it returns. Each connection goes
 * to the socket named in `socket-name` beside it, so a relay outlives a restart of the proxy.
 */
export const RELAY_SOURCE = `const net = require('net');
const fs = require('fs');
const { spawn } = require('child_process');
if (process.argv[2] !== 'serve') {
  const child = spawn(process.execPath, [__filename, 'serve'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  let said = '';
  child.stdout.on('data', (d) => (said += d));
  child.stdout.on('end', () => {
    child.unref();
    process.stdout.write(said);
    process.exit(said.startsWith('ready') || said.startsWith('running') ? 0 : 1);
  });
} else {
  // The socket by its name in this folder: a unix socket's path is short-limited, the folder's path is not.
  process.chdir(__dirname);
  net.createServer((c) => {
    let u;
    try {
      u = net.connect(fs.readFileSync('socket-name', 'utf8').trim());
    } catch {
      c.destroy();
      return;
    }
    c.on('error', () => u.destroy());
    u.on('error', () => c.destroy());
    c.pipe(u).pipe(c);
  })
    .on('error', (e) => {
      process.stdout.end(e.code === 'EADDRINUSE' ? 'running\\n' : 'failed ' + e.code + '\\n');
      process.exit(0);
    })
    .listen(${PROXY_PORT}, '127.0.0.1', () => process.stdout.end('ready\\n'));
}
`;
