import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AgentApp } from '@agentclientprotocol/sdk/unstable';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from '@agentclientprotocol/sdk/experimental/node';
import { WebSocketServer } from 'ws';

/**
 * An ACP agent served over WebSocket on a loopback port, by the SDK's own server side (AcpServer and its
 * Node upgrade adapter over `ws`), as Qwen Code serves one: a bearer token checked on the upgrade (a wrong
 * one answered 401), a fresh agent app per connection; the same agent over Streamable HTTP at `httpUrl`. `drop()` cuts the live TCP connections as a network
 * failure would.
 */
export class AcpWsServer {
  private readonly http: Server;
  private readonly acp: AcpServer;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<Duplex>();
  /** Connections accepted (a reconnect is one more). */
  accepted = 0;
  /** Upgrades refused for their token. */
  refused = 0;
  url = '';
  httpUrl = '';

  constructor(build: () => AgentApp, readonly token: string | null) {
    this.acp = new AcpServer({ createAgent: build });
    const upgrade = createNodeWebSocketUpgradeHandler(this.acp, this.wss);
    const streamable = createNodeHttpHandler(this.acp);
    // Streamable HTTP on the same port: every request carries the token.
    this.http = createServer((req, res) => {
      if (this.token !== null && req.headers.authorization !== `Bearer ${this.token}`) {
        this.refused++;
        res.writeHead(401).end();
        return;
      }
      streamable(req, res);
    });
    this.http.on('upgrade', (req, socket: Duplex, head: Buffer) => {
      if (this.token !== null && req.headers.authorization !== `Bearer ${this.token}`) {
        this.refused++;
        socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.accepted++;
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      upgrade(req, socket, head);
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    const address = this.http.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    this.url = `ws://127.0.0.1:${address.port}/acp`;
    this.httpUrl = `http://127.0.0.1:${address.port}/acp`;
    return this.url;
  }

  /** Cuts every open connection (no close frame: the client sees the socket die). */
  drop(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.drop();
    await this.acp.close();
    this.wss.close();
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    // fetch keeps its connections alive: without this the server waits for them to time out.
    this.http.closeAllConnections();
    await closed;
  }
}
