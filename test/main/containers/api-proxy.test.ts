/**
 * The proxy of the network "only the agent's API", met as a container's programs meet it: a real socket client
 * writing raw bytes to its unix socket, in front of real servers of this machine (one on the allow-list, one
 * not). Plain HTTP in absolute form goes on to a listed host, one request per connection, with the hop-by-hop
 * headers dropped; anything that could be read as another host or another request is refused before a byte
 * reaches a server. Its limits (a deadline for the request head, an idle time, a connect timeout, a cap on
 * connections), each shortened here through the proxy's start options, hold against a client that never
 * finishes, a tunnel left idle, an upstream that never answers and a flood of connections.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiProxy } from '../../../src/main/core/containers/api-proxy';
import type { ProxyLimits } from '../../../src/main/core/containers/proxy-limits';
import { LocalHost } from '../../../src/main/core/host/local/local-host';

interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
  body: string;
}

describe("the API proxy's plain HTTP (a real socket client, real servers)", () => {
  let dir: string;
  let proxy: ApiProxy;
  let socket: string;
  let api: HttpServer;
  let apiPort: number;
  let other: Server;
  let otherPort: number;
  let otherConnections = 0;
  let seen: Seen[] = [];

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-proxy-')));
    api = createHttpServer((req: IncomingMessage, res) => {
      let body = '';
      req.setEncoding('latin1');
      req.on('data', (d: string) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, rawHeaders: req.rawHeaders, body });
        res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Hop': 'secret-hop', Connection: 'keep-alive, X-Hop', 'Keep-Alive': 'timeout=5' });
        res.end(`answered ${req.method} ${req.url} with ${body.length} bytes`);
      });
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    apiPort = (api.address() as { port: number }).port;
    other = createServer((s) => {
      otherConnections++;
      s.end('HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nnot the API\r\n');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    otherPort = (other.address() as { port: number }).port;
    proxy = await ApiProxy.start(await new LocalHost().files([dir]), join(dir, 'net'), [`127.0.0.1:${apiPort}`]);
    socket = join(dir, 'net', readFileSync(join(dir, 'net', 'socket-name'), 'utf8').trim());
  });

  afterAll(async () => {
    await proxy?.close();
    api?.closeAllConnections();
    api?.close();
    other?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    seen = [];
    otherConnections = 0;
  });

  /** Writes `request` (raw) and reads until the proxy closes the connection. */
  const exchange = (request: string | Buffer): Promise<string> =>
    new Promise((resolve, reject) => {
      const s = connect(socket);
      let got = '';
      s.setEncoding('latin1');
      s.on('data', (d: string) => (got += d));
      s.on('error', reject);
      s.on('close', () => resolve(got));
      s.write(request);
    });
  const statusOf = (response: string) => response.split('\r\n')[0];
  const headOf = (response: string) => response.slice(0, response.indexOf('\r\n\r\n')).toLowerCase();

  it('sends an absolute-form GET on to a listed host as origin form, without hop-by-hop headers, and its answer back', async () => {
    const response = await exchange(
      `GET http://127.0.0.1:${apiPort}/v1/models?limit=2 HTTP/1.1\r\nHost: 127.0.0.1:${apiPort}\r\nUser-Agent: t\r\nProxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive, X-Private\r\nX-Private: 1\r\nKeep-Alive: timeout=9\r\nAccept: text/plain\r\n\r\n`,
    );
    expect(statusOf(response)).toBe('HTTP/1.1 200 OK');
    expect(response).toContain('answered GET /v1/models?limit=2 with 0 bytes');
    // The response's own hop-by-hop headers are dropped too; the connection is said to close.
    expect(headOf(response)).not.toMatch(/x-hop|keep-alive/);
    expect(headOf(response)).toContain('connection: close');
    expect(seen).toHaveLength(1);
    const names = seen[0]!.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/v1/models?limit=2' });
    expect(names).toEqual(['host', 'user-agent', 'accept', 'connection']);
    expect(seen[0]!.rawHeaders.slice(0, 2)).toEqual(['Host', `127.0.0.1:${apiPort}`]);
  });

  it('refuses another host, and a Host header naming another host than the target, with 403 and nothing sent', async () => {
    expect(statusOf(await exchange(`GET http://127.0.0.1:${otherPort}/ HTTP/1.1\r\nHost: 127.0.0.1:${otherPort}\r\n\r\n`))).toBe('HTTP/1.1 403 Forbidden');
    expect(statusOf(await exchange(`GET http://localhost:${apiPort}/ HTTP/1.1\r\nHost: localhost:${apiPort}\r\n\r\n`))).toBe('HTTP/1.1 403 Forbidden');
    expect(statusOf(await exchange(`GET http://127.0.0.1:${apiPort}/ HTTP/1.1\r\nHost: 127.0.0.1:${otherPort}\r\n\r\n`))).toBe('HTTP/1.1 403 Forbidden');
    expect(statusOf(await exchange(`GET http://127.0.0.1:${apiPort}/ HTTP/1.1\r\nHost: evil.example\r\n\r\n`))).toBe('HTTP/1.1 403 Forbidden');
    expect(statusOf(await exchange(`GET http://u:p@127.0.0.1:${apiPort}/ HTTP/1.1\r\n\r\n`))).toBe('HTTP/1.1 403 Forbidden');
    // Origin form (a request meant for the proxy itself) names no host to check: refused.
    expect(statusOf(await exchange(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${apiPort}\r\n\r\n`))).toBe('HTTP/1.1 400 Bad Request');
    expect(statusOf(await exchange(`CONNECT 127.0.0.1:${otherPort} HTTP/1.1\r\n\r\n`))).toBe('HTTP/1.1 403 Forbidden');
    expect(seen).toEqual([]);
    expect(otherConnections).toBe(0);
  });

  it('sends a body framed by its Content-Length or chunked, exactly: what follows it is not sent as another request', async () => {
    const smuggled = `GET http://127.0.0.1:${apiPort}/smuggled HTTP/1.1\r\nHost: 127.0.0.1:${apiPort}\r\n\r\n`;
    const byLength = await exchange(`POST http://127.0.0.1:${apiPort}/v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${apiPort}\r\nContent-Length: 11\r\n\r\nhello world${smuggled}`);
    expect(statusOf(byLength)).toBe('HTTP/1.1 200 OK');
    const chunked = await exchange(`POST http://127.0.0.1:${apiPort}/v1/chunked HTTP/1.1\r\nHost: 127.0.0.1:${apiPort}\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n\r\n${smuggled}`);
    expect(statusOf(chunked)).toBe('HTTP/1.1 200 OK');
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', '/v1/messages', 'hello world'],
      ['POST', '/v1/chunked', 'hello world'],
    ]);
  });

  it('refuses what could be read two ways (conflicting lengths, codings, folded or bare-LF lines) and an overlong head, before a byte goes on', async () => {
    const target = `http://127.0.0.1:${apiPort}/x`;
    const host = `Host: 127.0.0.1:${apiPort}\r\n`;
    const cases: Array<[string, string]> = [
      [`POST ${target} HTTP/1.1\r\n${host}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 'HTTP/1.1 400 Bad Request'],
      [`POST ${target} HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n`, 'HTTP/1.1 400 Bad Request'],
      [`POST ${target} HTTP/1.1\r\n${host}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`, 'HTTP/1.1 400 Bad Request'],
      [`POST ${target} HTTP/1.1\r\n${host}Content-Length: 5, 5\r\n\r\nhello`, 'HTTP/1.1 400 Bad Request'],
      [`POST ${target} HTTP/1.1\r\n${host}Content-Length: +5\r\n\r\nhello`, 'HTTP/1.1 400 Bad Request'],
      [`POST ${target} HTTP/1.1\r\n${host}Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n`, 'HTTP/1.1 501 Not Implemented'],
      [`POST ${target} HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 'HTTP/1.1 501 Not Implemented'],
      [`POST ${target} HTTP/1.1\r\n${host}Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n`, 'HTTP/1.1 400 Bad Request'],
      [`GET ${target} HTTP/1.1\r\n${host}X-A: 1\r\n folded: yes\r\n\r\n`, 'HTTP/1.1 400 Bad Request'],
      [`GET ${target} HTTP/1.1\r\n${host}X-A: 1\nContent-Length: 0\r\n\r\n`, 'HTTP/1.1 400 Bad Request'],
      [`GET ${target} HTTP/1.1\r\n${host}Host: 127.0.0.1:${apiPort}\r\n\r\n`, 'HTTP/1.1 400 Bad Request'],
      [`GET ${target} HTTP/2.0\r\n${host}\r\n`, 'HTTP/1.1 400 Bad Request'],
      [`GET ${target}  HTTP/1.1\r\n${host}\r\n`, 'HTTP/1.1 400 Bad Request'],
      [`GET ${target} HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(9000)}\r\n\r\n`, 'HTTP/1.1 431 Request Header Fields Too Large'],
      [`GET ${target} HTTP/1.1\r\n${host}${'X-Many: 1\r\n'.repeat(101)}\r\n`, 'HTTP/1.1 431 Request Header Fields Too Large'],
    ];
    for (const [request, status] of cases) expect({ request: request.slice(0, 160), status: statusOf(await exchange(request)) }).toEqual({ request: request.slice(0, 160), status });
    expect(seen).toEqual([]);
  });

  it('a chunked body whose framing breaks midway is cut off there: the server never gets a complete request', async () => {
    const response = await exchange(`POST http://127.0.0.1:${apiPort}/x HTTP/1.1\r\nHost: 127.0.0.1:${apiPort}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello+extra\r\n0\r\n\r\n`);
    expect(statusOf(response)).toBe('HTTP/1.1 400 Bad Request');
    expect(seen).toEqual([]);
  });

  it('still tunnels CONNECT to a listed host', async () => {
    const response = await new Promise<string>((resolve, reject) => {
      const s = connect(socket);
      let got = '';
      s.setEncoding('latin1');
      s.on('error', reject);
      s.on('data', (d: string) => {
        got += d;
        if (got === 'HTTP/1.1 200 Connection Established\r\n\r\n') s.write(`GET /through HTTP/1.1\r\nHost: 127.0.0.1:${apiPort}\r\n\r\n`);
        // The tunnel is the client's: it ends it once it has its answer.
        if (got.includes('with 0 bytes')) s.destroy();
      });
      s.on('close', () => resolve(got));
      s.write(`CONNECT 127.0.0.1:${apiPort} HTTP/1.1\r\nHost: 127.0.0.1:${apiPort}\r\n\r\n`);
    });
    expect(response).toContain('answered GET /through with 0 bytes');
  });
});

/**
 * A TCP port that never accepts: a child process listens with a backlog of one and blocks its event loop (it
 * never accepts), and two connections of ours fill its queue: the kernel drops the SYN of any further one.
 */
async function unansweringPort(): Promise<{ port: number; stop: () => void }> {
  const code = `const s = require('net').createServer(); s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => { process.stdout.write(s.address().port + '\\n'); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
  });
  const fillers: Socket[] = [];
  for (let i = 0; i < 2; i++) {
    const f = connect(port, '127.0.0.1');
    fillers.push(f);
    await new Promise<void>((resolve, reject) => f.once('connect', resolve).once('error', reject));
  }
  return {
    port,
    stop: () => {
      for (const f of fillers) f.destroy();
      child.kill('SIGKILL');
    },
  };
}

/** A client of the proxy's socket: what it received so far, and promises of a text received and of its close. */
function client(socket: string, request: string) {
  const s = connect(socket);
  let got = '';
  const waiting: Array<{ text: string; resolve: () => void }> = [];
  s.setEncoding('latin1');
  s.on('error', () => undefined);
  s.on('data', (d: string) => {
    got += d;
    for (const w of waiting.splice(0)) if (got.includes(w.text)) w.resolve();
    else waiting.push(w);
  });
  const closed = new Promise<number>((resolve) => s.on('close', () => resolve(Date.now())));
  s.write(request);
  return {
    s,
    closed,
    got: () => got,
    receive: (text: string) => new Promise<void>((resolve) => (got.includes(text) ? resolve() : waiting.push({ text, resolve }))),
  };
}

describe("the API proxy's limits (a real socket client, real servers)", { timeout: 20_000 }, () => {
  const ESTABLISHED = 'HTTP/1.1 200 Connection Established\r\n\r\n';
  let dir: string;
  let echo: Server;
  let echoPort: number;
  const echoSockets = new Set<Socket>();
  const proxies: ApiProxy[] = [];

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-proxy-limits-')));
    echo = createServer((s) => {
      echoSockets.add(s);
      s.on('close', () => echoSockets.delete(s));
      s.on('error', () => undefined);
      s.pipe(s);
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    echoPort = (echo.address() as { port: number }).port;
  });

  afterAll(async () => {
    for (const p of proxies) await p.close();
    for (const s of echoSockets) s.destroy();
    echo?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A proxy of its own (its socket's path), with `limits` and the echo server (and `extra`) on its list. */
  const startProxy = async (limits: Partial<ProxyLimits>, extra: string[] = []): Promise<string> => {
    const net = join(dir, `net-${proxies.length}`);
    proxies.push(await ApiProxy.start(await new LocalHost().files([dir]), net, [`127.0.0.1:${echoPort}`, ...extra], limits));
    return join(net, readFileSync(join(net, 'socket-name'), 'utf8').trim());
  };
  const tunnel = async (socket: string) => {
    const c = client(socket, `CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\nHost: 127.0.0.1:${echoPort}\r\n\r\n`);
    await c.receive(ESTABLISHED);
    return c;
  };

  it('answers a request head still incomplete at its deadline with 408 and closes it, though it kept sending bytes', async () => {
    const socket = await startProxy({ headMs: 600, idleMs: 60_000 });
    const start = Date.now();
    const c = client(socket, 'GET http://127.0.0.1');
    // A slow-loris: a byte at a time, never the end of the head, so an idle time alone would never fire.
    const drip = setInterval(() => c.s.write('0'), 50);
    const closedAt = await c.closed;
    clearInterval(drip);
    expect(c.got().split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(closedAt - start).toBeGreaterThanOrEqual(550);
  });

  it('closes a CONNECT tunnel with no byte either way for its idle time, and its upstream connection with it', async () => {
    const socket = await startProxy({ idleMs: 600 });
    const c = await tunnel(socket);
    const established = Date.now();
    expect(echoSockets.size).toBe(1);
    const closedAt = await c.closed;
    expect(closedAt - established).toBeGreaterThanOrEqual(550);
    await new Promise<void>((resolve) => (echoSockets.size === 0 ? resolve() : [...echoSockets][0]!.on('close', () => resolve())));
  });

  it('closes a forwarded request whose upstream accepted it but sends nothing for the idle time, and that upstream connection', async () => {
    const held = new Set<Socket>();
    const silent = createServer((u) => {
      held.add(u);
      u.on('error', () => undefined);
      u.on('close', () => held.delete(u));
      // It reads (and drops) the request, so that it sees the proxy's close; it never answers.
      u.resume();
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      const socket = await startProxy({ idleMs: 600 }, [`127.0.0.1:${port}`]);
      const start = Date.now();
      const c = client(socket, `GET http://127.0.0.1:${port}/v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      expect((await c.closed) - start).toBeGreaterThanOrEqual(550);
      await new Promise<void>((resolve) => (held.size === 0 ? resolve() : [...held][0]!.on('close', () => resolve())));
    } finally {
      for (const u of held) u.destroy();
      silent.close();
    }
  });

  it('keeps a tunnel that carries traffic open well past the idle time, while an idle one beside it is closed', async () => {
    const idleMs = 800;
    const socket = await startProxy({ idleMs });
    const busy = await tunnel(socket);
    const idle = await tunnel(socket);
    const start = Date.now();
    let idleClosed = false;
    void idle.closed.then(() => (idleClosed = true));
    // A stream's keep-alives: a few bytes every 100 ms, each echoed back, for three idle times and more.
    let n = 0;
    while (!idleClosed || Date.now() - start < 3 * idleMs) {
      await new Promise((r) => setTimeout(r, 100));
      busy.s.write(`ping ${++n};`);
      await busy.receive(`ping ${n};`);
    }
    expect(busy.s.destroyed).toBe(false);
    busy.s.write('still here;');
    await busy.receive('still here;');
    busy.s.destroy();
  });

  it('answers 504 when the upstream does not accept the connection within the connect timeout, for a tunnel and for plain HTTP', async () => {
    const blackhole = await unansweringPort();
    try {
      const socket = await startProxy({ connectMs: 500 }, [`127.0.0.1:${blackhole.port}`]);
      const viaConnect = client(socket, `CONNECT 127.0.0.1:${blackhole.port} HTTP/1.1\r\nHost: 127.0.0.1:${blackhole.port}\r\n\r\n`);
      const viaGet = client(socket, `GET http://127.0.0.1:${blackhole.port}/ HTTP/1.1\r\nHost: 127.0.0.1:${blackhole.port}\r\n\r\n`);
      await Promise.all([viaConnect.closed, viaGet.closed]);
      expect(viaConnect.got().split('\r\n')[0]).toBe('HTTP/1.1 504 Gateway Timeout');
      expect(viaGet.got().split('\r\n')[0]).toBe('HTTP/1.1 504 Gateway Timeout');
    } finally {
      blackhole.stop();
    }
  });

  it('answers a connection beyond the cap with 503 and closes it, while the connections within it keep working', async () => {
    const socket = await startProxy({ maxConnections: 2 });
    const first = await tunnel(socket);
    const second = await tunnel(socket);
    const third = client(socket, `CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\nHost: 127.0.0.1:${echoPort}\r\n\r\n`);
    await third.closed;
    expect(third.got().split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
    for (const [c, text] of [[first, 'one;'], [second, 'two;']] as const) {
      c.s.write(text);
      await c.receive(text);
    }
    // A place freed is a place for a new connection: the proxy frees it when it sees the client's close, a loop
    // turn or more before the upstream's close comes back from the echo server.
    const upstreamClosed = Promise.race([...echoSockets].map((u) => new Promise((r) => u.once('close', r))));
    first.s.destroy();
    await upstreamClosed;
    const fourth = await tunnel(socket);
    fourth.s.write('four;');
    await fourth.receive('four;');
    second.s.destroy();
    fourth.s.destroy();
  });
});
