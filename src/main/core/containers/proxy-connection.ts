/**
 * One connection to the proxy of the network "only the agent's API": `CONNECT host:port` tunnels to the listed
 * hosts (resolved where the proxy runs) and plain-HTTP requests in absolute form (http-forward.ts); anything
 * else is refused with 403. The one implementation of the proxy's logic: run in Switchboard's process for a
 * container on this machine (api-proxy.ts), and bundled into the standalone proxy carried to an SSH host
 * (src/main/api-proxy-server.ts, host-proxy.ts).
 */
import { connect, type Socket } from 'node:net';
import { forwardHttp, MAX_REQUEST_HEAD, parseAuthority, parseRequestHead, Refusal, type RequestHead, refuse } from './http-forward';

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
export function handleProxyClient(client: Socket, allow: readonly string[]): void {
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
