/**
 * Switchboard's delegation MCP server (issue 42): the process an agent starts (stdio) when its session was given
 * delegation. Each tool call goes, with the session's secret, to the main process over the channel named in
 * its environment (a unix socket, or a named pipe on Windows); the main process checks and answers it. This
 * process holds no power of its own: it forwards.
 *
 * Built as one self-contained CommonJS file (electron.vite.config.ts), run by Switchboard's own node. On an SSH
 * host or in a container the same file runs there, twice: as the session's relay (`relay`, see
 * core/delegation/relay.ts), whose socket the server then reaches instead of the main process's.
 */
import { createConnection, type Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { runRelay } from './core/delegation/relay';
import {
  channelResponseSchema,
  DELEGATION_SECRET_ENV,
  DELEGATION_SERVER_NAME,
  DELEGATION_SOCKET_ENV,
  DELEGATION_TOOLS,
  delegationTools,
  MAX_CHANNEL_LINE,
  type ChannelResponse,
} from '../shared/delegation';

const socketPath = process.env[DELEGATION_SOCKET_ENV];
const secret = process.env[DELEGATION_SECRET_ENV];

/** The channel to the main process: one connection, requests answered by id. */
class Channel {
  private socket: Socket | null = null;
  private buffer = '';
  private next = 1;
  private readonly pending = new Map<number, (r: ChannelResponse) => void>();

  private connect(): Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = createConnection(socketPath!);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.read(chunk));
    const fail = (why: string) => {
      this.socket = null;
      for (const [id, resolve] of this.pending) resolve({ id, ok: false, text: `Switchboard cannot be reached (${why})` });
      this.pending.clear();
    };
    socket.on('error', (e) => fail(e.message));
    socket.on('close', () => fail('the connection closed'));
    this.socket = socket;
    return socket;
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > MAX_CHANNEL_LINE * 2) {
      this.socket?.destroy();
      return;
    }
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      let parsed: ReturnType<typeof channelResponseSchema.safeParse>;
      try {
        parsed = channelResponseSchema.safeParse(JSON.parse(line));
      } catch {
        continue;
      }
      if (!parsed.success) continue;
      const resolve = this.pending.get(parsed.data.id);
      this.pending.delete(parsed.data.id);
      resolve?.(parsed.data);
    }
  }

  call(tool: string, args: unknown): Promise<ChannelResponse> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.connect().write(`${JSON.stringify({ id, secret, tool, args })}\n`);
    });
  }
}

function serve(): void {
  if (!socketPath || !secret) {
    process.stderr.write(`${DELEGATION_SERVER_NAME}: ${DELEGATION_SOCKET_ENV} and ${DELEGATION_SECRET_ENV} must be set (Switchboard sets them)\n`);
    process.exit(2);
  }
  const channel = new Channel();
  const server = new McpServer({ name: DELEGATION_SERVER_NAME, version: '1.0.0' });
  for (const name of DELEGATION_TOOLS) {
    const tool = delegationTools[name];
    server.registerTool(name, { description: tool.description, inputSchema: tool.args.shape }, async (args: unknown) => {
      const r = await channel.call(name, args);
      return { content: [{ type: 'text' as const, text: r.text }], ...(r.ok ? {} : { isError: true }) };
    });
  }
  void server.connect(new StdioServerTransport());
}

if (process.argv[2] === 'relay') runRelay();
else serve();
