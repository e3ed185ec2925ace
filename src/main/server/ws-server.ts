import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ClientFrame, ServerFrame } from '../../shared/contract';
import { err } from '../../shared/contract';
import type { AppCore } from '../app-core';
import { batchEvents } from '../core/base/event-batches';
import type { Disposable } from '../core/base/lifecycle';
import { contentSecurityPolicy } from './csp';

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
  readonly port: number;
  readonly token: string;
  readonly url: string;
}

const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * Browser mode: serves the built renderer and the contract over a WebSocket on 127.0.0.1 only.
 * A socket must present this launch's token and come from this server's own origin.
 */
export async function startWsServer(core: AppCore, options: WsServerOptions): Promise<RunningServer> {
  const token = options.token ?? randomBytes(32).toString('hex');
  const rendererDir = resolve(options.rendererDir);
  let port = 0;
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const allowedOrigins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  const server: Server = createServer((req, res) => serveStatic(req, res));
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
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const rel = normalize(urlPath === '/' ? '/index.html' : urlPath).replace(/^([/\\])+/, '');
    const file = join(rendererDir, rel);
    if (!file.startsWith(rendererDir + sep) || !existsSync(file) || !statSync(file).isFile()) {
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
    else createReadStream(file).pipe(res);
  }

  const tokenMatches = (given: string | null): boolean => {
    if (!given) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  };

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const origin = req.headers.origin;
    const refuse = (status: number, why: string) => {
      socket.end(`HTTP/1.1 ${status} ${why}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (url.pathname !== '/ws') return refuse(404, 'Not Found');
    if (!allowedHosts().has(req.headers.host ?? '')) return refuse(421, 'Misdirected Request');
    if (!origin || !allowedOrigins().has(origin)) return refuse(403, 'Forbidden Origin');
    if (!tokenMatches(url.searchParams.get('token'))) return refuse(401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws));
  });

  // Events of one event-loop turn go out as one frame; a result flushes them first, so a client always
  // sees the events a request caused before its answer.
  const events = batchEvents(
    core.bus,
    (name, payload) => JSON.stringify({ name, payload }),
    (batch) => {
      const text = `{"type":"events","events":[${batch.join(',')}]}`;
      for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(text);
    },
    () => sockets.size > 0,
  );
  const send = (ws: WebSocket, frame: ServerFrame) => {
    events.flush();
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };

  function onConnection(ws: WebSocket): void {
    send(ws, { type: 'hello', transport: 'browser' });
    sockets.add(ws);
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
      void core.router.invoke(frame.method, frame.params).then((result) => send(ws, { type: 'result', id: frame.id, result }));
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

  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/#token=${token}`,
    async dispose() {
      events.dispose();
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
