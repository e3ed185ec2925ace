/**
 * The network of a container in the `api` mode: the container has no network at all (`--network none`); a
 * relay inside it (RELAY_SOURCE, run by the container's node) turns connections to 127.0.0.1:PROXY_PORT into
 * connections to a unix socket mounted from this machine, where this proxy answers. The proxy opens
 * `CONNECT host:port` tunnels to the listed hosts (port 443 unless an entry names its port), resolved here, and
 * sends plain-HTTP requests in absolute form (`GET http://host:port/path`) on to them (http-forward.ts); any
 * other host or address is refused with 403. A program that ignores the proxy variables reaches nothing at
 * all: that is the fence.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import type { ConfinedFiles } from '../host/host';
import { forwardHttp, MAX_REQUEST_HEAD, parseAuthority, parseRequestHead, Refusal, type RequestHead, refuse } from './http-forward';

/** Where the relay listens inside the container. */
export const PROXY_PORT = 3128;

/** The process environment that sends a container's programs through the proxy. */
export function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  return { HTTPS_PROXY: url, https_proxy: url, HTTP_PROXY: url, http_proxy: url, ALL_PROXY: url, NO_PROXY: 'localhost,127.0.0.1', no_proxy: 'localhost,127.0.0.1', NODE_USE_ENV_PROXY: '1' };
}

/** Whether `host:port` is allowed by the list (`name` means port 443; `name:port`; `*.suffix` any subdomain). */
export function allowedTarget(allow: readonly string[], host: string, port: number): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return allow.some((entry) => {
    const m = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase().trim());
    const name = m?.[1] ?? '';
    const wantPort = m?.[2] ? Number(m[2]) : 443;
    if (port !== wantPort || !name) return false;
    return name.startsWith('*.') ? h.endsWith(name.slice(1)) && h.length > name.length - 1 : h === name;
  });
}

export class ApiProxy {
  private constructor(
    private readonly server: Server,
    private readonly open: Set<Socket>,
    readonly dir: string,
  ) {}

  /**
   * Listens on a socket in `dir` with the relay's script beside it (`files`: confined to a private folder of
   * this machine holding `dir`). The proxy runs in this process: the container's engine must be on this machine.
   */
  static async start(files: ConfinedFiles, dir: string, allow: readonly string[]): Promise<ApiProxy> {
    // A new socket name each time: one a crashed Switchboard left behind cannot be removed as a file.
    const name = `proxy-${process.pid}-${Date.now().toString(36)}.sock`;
    await files.writeFile(path.join(dir, 'relay.cjs'), RELAY_SOURCE, { createParents: true });
    const socket = path.join(dir, name);
    const open = new Set<Socket>();
    const server = createServer((client) => {
      open.add(client);
      client.on('close', () => open.delete(client));
      handle(client, allow);
    });
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

function handle(client: Socket, allow: readonly string[]): void {
  let head = Buffer.alloc(0);
  client.on('error', () => undefined);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0 ? head.length > MAX_REQUEST_HEAD : end > MAX_REQUEST_HEAD) {
      client.off('data', onData);
      return refuse(client, 431, `a request head longer than ${MAX_REQUEST_HEAD} bytes`);
    }
    if (end < 0) return;
    client.off('data', onData);
    // Nothing more is read until the request is understood (and, for a tunnel, the upstream connected).
    client.pause();
    let req: RequestHead;
    try {
      req = parseRequestHead(head.subarray(0, end).toString('latin1'));
    } catch (e) {
      if (e instanceof Refusal) return refuse(client, e.status, e.message);
      throw e;
    }
    const rest = head.subarray(end + 4);
    if (req.method !== 'CONNECT') return forwardHttp(client, req, rest, (host, port) => allowedTarget(allow, host, port));
    const target = parseAuthority(req.target, NaN);
    if (!target || !allowedTarget(allow, target.host, target.port)) return refuse(client, 403, `only ${allow.join(', ')} can be reached`);
    let connected = false;
    const upstream = connect(target.port, target.host, () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (rest.length > 0) upstream.write(rest);
      client.pipe(upstream).pipe(client);
      client.resume();
    });
    upstream.on('error', (e) => (connected ? client.destroy() : refuse(client, 502, e.message)));
    client.on('close', () => upstream.destroy());
  };
  client.on('data', onData);
}

/**
 * Run inside the container by its node. It starts a copy of itself in the background and exits once that copy
 * listens (or one listens already): the caller knows the relay is there when it returns. Each connection goes
 * to the socket named in `socket-name` beside it, so a relay outlives a restart of the proxy.
 */
const RELAY_SOURCE = `const net = require('net');
const fs = require('fs');
const path = require('path');
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
  net.createServer((c) => {
    let u;
    try {
      u = net.connect(path.join(__dirname, fs.readFileSync(path.join(__dirname, 'socket-name'), 'utf8').trim()));
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
