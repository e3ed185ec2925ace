import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpCheckResult } from '../../../shared/contract/mcp';
import type { Host } from '../host/host';
import { GroupStdioTransport } from './group-stdio-transport';
import type { McpServerConfig } from './mcp-servers';

export interface CheckOptions {
  /** Where a stdio server runs. */
  host: Host;
  /** Whole check: start or connect, initialize, list every page of tools. */
  timeoutMs: number;
  /** The environment a stdio server starts from (its own variables are added). */
  baseEnv: Record<string, string>;
  /** Default: the host's home folder. */
  cwd?: string;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 15_000;
const MAX_TOOL_PAGES = 50;

class CheckTimeout extends Error {}

/**
 * Starts (stdio) or connects to (http, sse) an MCP server with the official SDK, initializes and lists its
 * tools. Always ends within the timeout, and always cleans up: the stdio server's process group is killed,
 * the connection closed. Errors are values.
 */
export async function checkMcpServer(server: McpServerConfig, options: CheckOptions): Promise<McpCheckResult> {
  const started = Date.now();
  const ms = () => Date.now() - started;
  let transport: Transport;
  let stdio: GroupStdioTransport | null = null;
  try {
    if (server.type === 'stdio') {
      stdio = new GroupStdioTransport(options.host, { command: server.command, args: server.args, env: { ...options.baseEnv, ...server.env }, cwd: options.cwd });
      transport = stdio;
    } else {
      const url = new URL(server.url);
      const requestInit = { headers: server.headers };
      transport = server.type === 'http' ? new StreamableHTTPClientTransport(url, { requestInit }) : new SSEClientTransport(url, { requestInit });
    }
  } catch (e) {
    return { ok: false, error: (e as Error).message, ms: ms() };
  }
  const client = new Client({ name: 'switchboard-check', version: '1' }, { capabilities: {} });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout()), options.timeoutMs);
  });
  const run = async (): Promise<McpCheckResult> => {
    await client.connect(transport, { timeout: options.timeoutMs });
    const tools: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const res = await client.listTools(cursor ? { cursor } : {}, { timeout: options.timeoutMs });
      tools.push(...res.tools.map((t) => t.name));
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    return { ok: true, tools, serverName: client.getServerVersion()?.name ?? null, ms: ms() };
  };
  try {
    return await Promise.race([run(), deadline]);
  } catch (e) {
    const stderr = stdio?.stderrTail();
    const message =
      e instanceof CheckTimeout ? `no answer within ${Math.round(options.timeoutMs / 1000)} s` : e instanceof Error ? e.message : String(e);
    return { ok: false, error: stderr ? `${message}\n${stderr.split('\n').slice(-5).join('\n')}` : message, ms: ms() };
  } finally {
    clearTimeout(timer);
    // client.close() closes the transport; a transport that never started has nothing to close.
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
  }
}
