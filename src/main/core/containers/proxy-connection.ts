/**
 * One connection to the proxy of the network "only the agent's API": `CONNECT host:port` tunnels to the listed
 * hosts (resolved where the proxy runs) and plain-HTTP requests in absolute form (http-forward.ts); anything
 * else is refused with 403. The one implementation of the proxy's logic: run in Switchboard's process for a
 * container on this machine (api-proxy.ts), and bundled into the standalone proxy carried to an SSH host
 * (src/main/api-proxy-server.ts, host-proxy.ts).
 */
import { createServer, type Server, type Socket } from 'node:net';
import { forwardHttp, MAX_REQUEST_HEAD, parseAuthority, parseRequestHead, Refusal, type RequestHead, refuse } from './http-forward';
import { connectWithin, type ProxyLimits } from './proxy-limits';

/**
 * The proxy's server: each connection served by handleProxyClient, at most `limits.maxConnections` at once
 * (beyond, answered 503 and closed); `open` holds those served, for the owner to destroy when it stops.
 */
export function createProxyServer(allow: readonly string[], limits: ProxyLimits): { server: Server; open: Set<Socket> } {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    if (open.size >= limits.maxConnections) {
      client.on('error', () => undefined);
      // What the client sends is read and dropped: a socket closed with unread bytes resets its peer.
      client.resume();
      return refuse(client, 503, `more than ${limits.maxConnections} connections at once`);
    }
    open.add(client);
    client.on('close', () => open.delete(client));
    handleProxyClient(client, allow, limits);
  });
  return { server, open };
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

/** Serves one connection of a container's program: a CONNECT tunnel or one plain-HTTP request, to a listed host only. */
export function handleProxyClient(client: Socket, allow: readonly string[], limits: ProxyLimits): void {
  let head = Buffer.alloc(0);
  client.on('error', () => undefined);
  // Reads and writes both count as activity: a tunnel or a forwarded request is idle only when neither side sends.
  client.setTimeout(limits.idleMs, () => client.destroy());
  // A deadline for the whole head, not an idle time: a byte every few seconds must not keep it open.
  const headDeadline = setTimeout(() => {
    client.off('data', onData);
    refuse(client, 408, `no complete request head within ${limits.headMs / 1000} s`);
  }, limits.headMs);
  client.on('close', () => clearTimeout(headDeadline));
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0 ? head.length > MAX_REQUEST_HEAD : end > MAX_REQUEST_HEAD) {
      clearTimeout(headDeadline);
      client.off('data', onData);
      return refuse(client, 431, `a request head longer than ${MAX_REQUEST_HEAD} bytes`);
    }
    if (end < 0) return;
    clearTimeout(headDeadline);
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
    if (req.method !== 'CONNECT') return forwardHttp(client, req, rest, (host, port) => allowedTarget(allow, host, port), limits.connectMs);
    const target = parseAuthority(req.target, NaN);
    if (!target || !allowedTarget(allow, target.host, target.port)) return refuse(client, 403, `only ${allow.join(', ')} can be reached`);
    let connected = false;
    const upstream = connectWithin(
      target.port,
      target.host,
      limits.connectMs,
      () => {
        connected = true;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (rest.length > 0) upstream.write(rest);
        client.pipe(upstream).pipe(client);
        client.resume();
      },
      () => refuse(client, 504, `${req.target} did not answer within ${limits.connectMs / 1000} s`),
    );
    upstream.on('error', (e) => (connected ? client.destroy() : refuse(client, 502, e.message)));
    client.on('close', () => upstream.destroy());
  };
  client.on('data', onData);
}
