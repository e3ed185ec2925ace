import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { checkMcpServer } from '../../../src/main/core/mcp/check';
import { mcpFixtureCommand } from '../../fixtures/mcp-server/launch';
import { eventually, makeCore, type TestCore } from '../acp/helpers';

const host = new LocalHost();
const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === 'string'));
const stdio = (extra: Record<string, string> = {}) => ({ id: 'x', type: 'stdio' as const, name: 'fixture', ...mcpFixtureCommand(), env: extra });
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-mcp-check-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('checking an MCP server with the SDK', () => {
  it('starts a stdio server, lists its tools and ends it', async () => {
    const r = await checkMcpServer(stdio({ MCP_FIXTURE_TOOLS: '4' }), { host, timeoutMs: 20_000, baseEnv: env });
    expect(r).toMatchObject({ ok: true, tools: ['echo', 'add', 'tool-3', 'tool-4'], serverName: 'fixture-mcp' });
  });

  it('a server that never answers times out, and its whole process group is killed', async () => {
    const pidFile = join(dir, 'pids');
    // Long enough for node and tsx to start the server on a busy machine (it writes its pid file as it starts).
    const r = await checkMcpServer(stdio({ MCP_FIXTURE_HANG: '1', MCP_FIXTURE_PIDFILE: pidFile }), { host, timeoutMs: 10_000, baseEnv: env });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain('no answer within 10 s');
    const pids = await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim().split(' ').map(Number), 'the pid file');
    expect(pids).toHaveLength(2);
    await eventually(() => pids.every((p) => !alive(p)), 'the server and its grandchild to be gone');
  });

  it('a server that exits, a missing command and an unreachable URL are errors with their reason', async () => {
    const crashed = await checkMcpServer(stdio({ MCP_FIXTURE_CRASH: '1' }), { host, timeoutMs: 20_000, baseEnv: env });
    expect(crashed.ok).toBe(false);
    expect(!crashed.ok && crashed.error).toContain('fixture: crashing on purpose');
    const missing = await checkMcpServer({ id: 'm', type: 'stdio', name: 'm', command: join(dir, 'no-such-command'), args: [], env: {} }, { host, timeoutMs: 5000, baseEnv: env });
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.error).toContain('ENOENT');
    const refused = await checkMcpServer({ id: 'u', type: 'http', name: 'u', url: 'http://127.0.0.1:9/mcp', headers: {} }, { host, timeoutMs: 5000, baseEnv: env });
    expect(refused.ok).toBe(false);
  });
});

describe('mcp.check over http', () => {
  let http: Server;
  let url = '';
  const seenAuth: string[] = [];
  beforeEach(async () => {
    http = createServer((req, res) => {
      seenAuth.push(String(req.headers.authorization));
      if (req.headers.authorization !== 'Bearer right') {
        res.writeHead(401).end();
        return;
      }
      const server = new McpServer({ name: 'http-fixture', version: '1.0.0' });
      server.registerTool('ping', { description: 'pong' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => http?.close());

  let t: TestCore;
  beforeEach(async () => {
    t = await makeCore();
  });
  afterEach(async () => {
    await t.dispose();
    http.close();
  });

  it('connects with the stored (secret) headers and counts the tools; a wrong header is an error', async () => {
    const { server } = await t.call('mcp.add', { server: { type: 'http', name: 'web', url, headers: [{ name: 'Authorization', value: 'Bearer right', secret: true }] } });
    expect(await t.call('mcp.check', { id: server.id })).toMatchObject({ ok: true, tools: ['ping'], serverName: 'http-fixture' });
    expect(seenAuth).toContain('Bearer right');
    await t.call('mcp.update', { id: server.id, server: { type: 'http', name: 'web', url, headers: [{ name: 'Authorization', value: 'Bearer wrong', secret: true }] } });
    const r = await t.call('mcp.check', { id: server.id });
    expect(r.ok).toBe(false);
  });
});
