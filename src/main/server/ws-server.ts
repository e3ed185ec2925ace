import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ClientFrame, ServerFrame } from '../../shared/contract';
import { err } from '../../shared/contract/result';
import type { AppCore } from '../app-core';
import { batchEvents, type EventBatches } from '../core/base/event-batches';
import type { Disposable } from '../core/base/lifecycle';
import { contentSecurityPolicy } from '../csp';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

export interface WsServerOptions {
  rendererDir: string;
  port?: number;
  /** Fixed for tests; a fresh random one per launch otherwise. */
  token?: string;
}

export interface RunningServer extends Disposable {
  /** The core, once started (rejected if it failed to). */
  readonly core: Promise<AppCore>;
  readonly port: number;
  readonly token: string;
  readonly url: string;
  /**
   * Resolves once the page has been sent (or nobody asked for it a moment after listening) and no page request
   * is being answered, on a later turn of the event loop.
   */
  whenIdle(): Promise<void>;
}

// The largest frame the contract needs is a prompt with one image of its maximum (30 M base64 chars).
const MAX_FRAME_BYTES = 32 * 1024 * 1024;

/** The most requests a page may put in its socket's address (`early`; the page asks for 7). */
export const MAX_EARLY_REQUESTS = 16;

/**
 * The requests a page put in its socket's address (`?early=` a JSON array of {method, params}), to be answered
 * as soon as the socket is accepted, while the page still runs its script: request i has id i + 1. Anything
 * but an array of at most MAX_EARLY_REQUESTS is ignored; an element that is not a {method, params} object is
 * kept, and answered with an error.
 */
export function parseEarlyRequests(raw: string | null): Array<{ id: number; method: unknown; params: unknown }> {
  if (!raw) return [];
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(list) || list.length > MAX_EARLY_REQUESTS) return [];
  return list.map((r: unknown, i) => {
    const o = typeof r === 'object' && r !== null ? (r as { method?: unknown; params?: unknown }) : {};
    return { id: i + 1, method: o.method, params: o.params };
  });
}

/** With no request being served this long after listening, a core still to start is started… */
const CORE_START_GRACE_MS = 150;
/** …and this long after listening at the latest, whatever a client keeps open. */
const CORE_START_LATEST_MS = 1000;

/**
 * The path (percent-decoded) and query of an origin-form request target (`/path?query`), or null when
 * the target is anything else: absolute form, `*`, a malformed or overlong percent-encoding, a NUL.
 * Never throws, whatever the client sent.
 */
export function parseRequestTarget(raw: string | undefined): { path: string; query: URLSearchParams } | null {
  if (!raw || !raw.startsWith('/')) return null;
  const q = raw.indexOf('?');
  const rawPath = (q < 0 ? raw : raw.slice(0, q)).split('#')[0]!;
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  return { path, query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}

function isFile(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/**
 * Browser mode: serves the built renderer and the contract over a WebSocket on 127.0.0.1 only.
 * A socket must present this launch's token and come from this server's own origin.
 * Given a function, the core is started by it once the page has its script (loading the core holds this
 * thread a few hundred ms, which the page spends running that script), when a socket asks for it, or when no
 * page has asked for anything a moment after listening. A socket is accepted once the core is up.
 */
export async function startWsServer(core: AppCore | (() => Promise<AppCore>), options: WsServerOptions): Promise<RunningServer> {
  const token = options.token ?? randomBytes(32).toString('hex');
  const rendererDir = resolve(options.rendererDir);
  let port = 0;
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const allowedOrigins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  const server: Server = createServer();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const sockets = new Set<WebSocket>();

  function serveStatic(req: IncomingMessage, res: ServerResponse): void {
    if (!allowedHosts().has(req.headers.host ?? '')) {
      res.writeHead(421).end('wrong host');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    const target = parseRequestTarget(req.url);
    if (!target) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('bad request');
      return;
    }
    const rel = normalize(target.path === '/' ? '/index.html' : target.path).replace(/^([/\\])+/, '');
    const file = join(rendererDir, rel);
    if (!file.startsWith(rendererDir + sep) || !isFile(file)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'content-security-policy': contentSecurityPolicy([`ws://127.0.0.1:${port}`, `ws://localhost:${port}`]),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    });
    if (req.method === 'HEAD') res.end();
    // A file that vanished after the check, or a reader that went away, ends this response only.
    else
      pipeline(createReadStream(file), res, () => {
        if (extname(file) === '.js') startCore();
        else if (rel === 'index.html') pageSent();
      });
  }

  const tokenMatches = (given: string | null): boolean => {
    if (!given) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  };

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const origin = req.headers.origin;
    const refuse = (status: number, why: string) => {
      if (socket.writable) socket.end(`HTTP/1.1 ${status} ${why}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      else socket.destroy();
    };
    const target = parseRequestTarget(req.url);
    if (!target) return refuse(400, 'Bad Request');
    if (target.path !== '/ws') return refuse(404, 'Not Found');
    if (!allowedHosts().has(req.headers.host ?? '')) return refuse(421, 'Misdirected Request');
    if (!origin || !allowedOrigins().has(origin)) return refuse(403, 'Forbidden Origin');
    if (!tokenMatches(target.query.get('token'))) return refuse(401, 'Unauthorized');
    const early = parseEarlyRequests(target.query.get('early'));
    startCore();
    ready.then(
      (c) => {
        if (disposed) socket.destroy();
        else wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, c, early));
      },
      () => socket.destroy(),
    );
  }

  // No request, however malformed, may end the process: each handler's failure answers that request only.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    clearTimeout(grace);
    inFlight++;
    res.once('close', () => {
      inFlight--;
      quiet();
      if (inFlight === 0) for (const r of idleWaiters.splice(0)) setImmediate(r);
    });
    try {
      serveStatic(req, res);
    } catch (e) {
      console.error(`request ${JSON.stringify(req.url?.slice(0, 200))} failed:`, e);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
      else res.destroy();
    }
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands an upgrade's socket over without an error listener: a peer's reset would be uncaught.
    socket.on('error', () => socket.destroy());
    try {
      upgrade(req, socket, head);
    } catch (e) {
      console.error(`upgrade ${JSON.stringify(req.url?.slice(0, 200))} failed:`, e);
      if (socket.writable) socket.end('HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      else socket.destroy();
    }
  });
  // Node closes a CONNECT silently unless someone listens; a proxy request gets a proper refusal.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  // What the HTTP parser itself rejects (bad request line, header overflow) gets a status, not silence.
  server.on('clientError', (e: NodeJS.ErrnoException, socket: Duplex) => {
    if (e.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // A response already under way on this connection (its request was whole; what followed is not)
    // is finished, then the connection closed: no second status line in the middle of it.
    const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (current?.headersSent) {
      current.once('close', () => socket.destroy());
      return;
    }
    const status = e.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : e.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });

  // Events of one event-loop turn go out as one frame; a result flushes them first, so a client always
  // sees the events a request caused before its answer.
  let events: EventBatches | null = null;
  let disposed = false;
  let pending: { start(): void; cancel(): void } | null = null;
  let grace: NodeJS.Timeout | undefined;
  let latest: NodeJS.Timeout | undefined;
  let inFlight = 0;
  const idleWaiters: Array<() => void> = [];
  // The page first: nothing waiting for whenIdle runs before it is sent.
  let pageSent!: () => void;
  const pageWasSent = new Promise<void>((r) => (pageSent = r));
  const ready = new Promise<AppCore>((resolve, reject) => {
    pending = {
      start: () => resolve(typeof core === 'function' ? core() : core),
      cancel: () => reject(new Error('the server stopped before its core started')),
    };
  }).then((c) => {
    events = batchEvents(
      c.bus,
      (name, payload) => JSON.stringify({ name, payload }),
      (batch) => {
        const text = `{"type":"events","events":[${batch.join(',')}]}`;
        for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(text);
      },
      () => sockets.size > 0,
    );
    return c;
  });
  // A failed start is the caller's to report (through `core`); no socket is accepted then.
  ready.catch(() => undefined);
  function startCore(): void {
    clearTimeout(grace);
    clearTimeout(latest);
    const p = pending;
    pending = null;
    p?.start();
  }
  function quiet(): void {
    clearTimeout(grace);
    if (pending && inFlight === 0) grace = setTimeout(startCore, CORE_START_GRACE_MS);
  }
  const send = (ws: WebSocket, frame: ServerFrame) => {
    events?.flush();
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };

  const answer = (ws: WebSocket, core: AppCore, id: number, method: unknown, params: unknown) =>
    void core.router
      .invoke(method, params)
      .then((result) => send(ws, { type: 'result', id, result }))
      .catch((e: unknown) => {
        console.error(`answering ${String(method).slice(0, 100)} failed:`, e);
        send(ws, { type: 'result', id, result: err('internal', 'the result could not be sent') });
      });

  function onConnection(ws: WebSocket, core: AppCore, early: ReturnType<typeof parseEarlyRequests>): void {
    send(ws, { type: 'hello', transport: 'browser' });
    sockets.add(ws);
    for (const r of early) answer(ws, core, r.id, r.method, r.params);
    ws.on('message', (raw, isBinary) => {
      let frame: ClientFrame;
      try {
        if (isBinary) throw new Error('binary frames are not part of the contract');
        frame = JSON.parse(raw.toString()) as ClientFrame;
        if (!frame || frame.type !== 'invoke' || typeof frame.id !== 'number') throw new Error('not an invoke frame');
      } catch (e) {
        const id = typeof (frame! as { id?: unknown } | undefined)?.id === 'number' ? frame!.id : -1;
        send(ws, { type: 'result', id, result: err('invalid_params', `malformed frame: ${(e as Error).message}`) });
        return;
      }
      answer(ws, core, frame.id, frame.method, frame.params);
    });
    ws.on('close', () => sockets.delete(ws));
    ws.on('error', () => sockets.delete(ws));
  }

  const listen = (wanted: number) =>
    new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(wanted, '127.0.0.1', () => {
        server.off('error', reject);
        resolveListen();
      });
    });
  try {
    await listen(options.port ?? 0);
  } catch (e) {
    // The preferred port is taken (another Switchboard?): any free port will do.
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || !options.port) throw e;
    await listen(0);
  }
  port = (server.address() as AddressInfo).port;
  // After listening, an error (accept failing with EMFILE under a flood, say) is logged, not fatal.
  server.on('error', (e) => console.error('browser-mode server:', e));
  setTimeout(pageSent, CORE_START_GRACE_MS).unref();
  if (typeof core === 'function') {
    quiet();
    latest = setTimeout(startCore, CORE_START_LATEST_MS);
  } else startCore();

  return {
    core: ready,
    port,
    token,
    url: `http://127.0.0.1:${port}/#token=${token}`,
    whenIdle: () =>
      pageWasSent.then(
        () =>
          new Promise<void>((resolve) => {
            if (inFlight === 0) setImmediate(resolve);
            else idleWaiters.push(resolve);
          }),
      ),
    async dispose() {
      disposed = true;
      clearTimeout(grace);
      clearTimeout(latest);
      const p = pending;
      pending = null;
      p?.cancel();
      events?.dispose();
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
