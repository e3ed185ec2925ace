import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** An HTTP server on 127.0.0.1 whose routes the test sets; it records every request. */
export class TestServer {
  readonly routes = new Map<string, Handler>();
  readonly requests: Array<{ path: string; headers: IncomingMessage['headers'] }> = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      this.requests.push({ path, headers: req.headers });
      const handler = this.routes.get(decodeURIComponent(path)) ?? this.routes.get(path);
      if (!handler) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      handler(req, res);
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  requestsFor(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }

  /** A fixed body, with ETag / If-None-Match → 304. */
  serve(path: string, body: string | Buffer, options: { etag?: string; type?: string } = {}): void {
    this.routes.set(path, (req, res) => {
      if (options.etag && req.headers['if-none-match'] === options.etag) {
        res.writeHead(304, { etag: options.etag }).end();
        return;
      }
      const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
      res.writeHead(200, {
        'content-type': options.type ?? 'application/octet-stream',
        'content-length': String(buf.length),
        ...(options.etag ? { etag: options.etag } : {}),
      });
      res.end(buf);
    });
  }

  /** Accepts the request and never answers. */
  hang(path: string): void {
    this.routes.set(path, () => undefined);
  }

  /** Sends part of the body, then resets the connection. */
  reset(path: string, body: Buffer): void {
    this.routes.set(path, (_req, res) => {
      res.writeHead(200, { 'content-length': String(body.length) });
      res.write(body.subarray(0, Math.floor(body.length / 3)));
      setImmediate(() => res.socket?.resetAndDestroy());
    });
  }

  /** Sends the first chunk of the body and then stalls (for cancelling mid-download). */
  stall(path: string, body: Buffer): void {
    this.routes.set(path, (_req, res) => {
      res.writeHead(200, { 'content-length': String(body.length) });
      res.write(body.subarray(0, Math.min(4096, Math.floor(body.length / 2))));
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
