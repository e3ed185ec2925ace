import { existsSync } from 'node:fs';
import type { AgentCapabilities } from '@agentclientprotocol/sdk';
import { IpcFailure } from '../../../shared/contract';
import type { McpImportPreview } from '../../../shared/contract/mcp';
import type { EventBus } from '../base/event-bus';
import type { Router } from '../base/router';
import type { SecretStore } from '../agents/secret-store';
import type { Host } from '../host/host';
import { knownConfigFiles, previewView, readMcpConfig } from './import';
import { McpServers, type SettingsPort } from './mcp-servers';

/** What the MCP service needs from the rest of the app. */
export interface McpServiceDeps {
  router: Router;
  bus: EventBus;
  /** Where checked stdio servers run. */
  host: Host;
  settings: SettingsPort;
  secrets: SecretStore;
  /** The agents, with what they advertised when last started (null: not started in this run). */
  agents(): Array<{ id: string; name: string; capabilities: AgentCapabilities | null }>;
  /** The environment a checked stdio server starts from (agents' own: the login shell's). */
  loginEnv(): Promise<Record<string, string>>;
  checkTimeoutMs?: number;
}

/** mcp.*: the user's MCP servers (add, edit, remove, choose agents), checks and imports. */
export class McpService {
  readonly servers: McpServers;

  constructor(private readonly deps: McpServiceDeps) {
    this.servers = new McpServers(deps.settings, deps.secrets);
  }

  register(router: Router = this.deps.router): void {
    router.handle('mcp.list', () => ({ servers: this.servers.list(), agents: this.agentViews() }));
    router.handle('mcp.add', ({ server }) => this.changed({ server: this.servers.add(server) }));
    router.handle('mcp.update', ({ id, server }) => this.changed({ server: this.servers.update(id, server) }));
    router.handle('mcp.remove', ({ id }) => {
      this.servers.remove(id);
      return this.changed({});
    });
    router.handle('mcp.check', async ({ id }) => {
      // The MCP SDK (its zod schemas are built as it loads) is loaded by the first check, not at start.
      const { checkMcpServer, DEFAULT_CHECK_TIMEOUT_MS } = await import('./check');
      return checkMcpServer(this.servers.config(id), { host: this.deps.host, timeoutMs: this.deps.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS, baseEnv: await this.deps.loginEnv() });
    });
    router.handle('mcp.importSources', () => ({ sources: knownConfigFiles().map((s) => ({ ...s, exists: existsSync(s.path) })) }));
    router.handle('mcp.importPreview', ({ path }) => this.preview(path));
    router.handle('mcp.importApply', async ({ path, digest, names }) => {
      // Exactly what was previewed, or nothing: the file is read again and must be the same bytes.
      const { entries, digest: now } = await readMcpConfig(path);
      if (now !== digest) throw new IpcFailure('conflict', `${path} changed since it was previewed: nothing was imported. Preview it again to see what it now holds.`);
      const imported: string[] = [];
      for (const name of names) {
        const entry = entries.find((e) => e.name === name);
        if (!entry?.input) continue;
        this.servers.upsertByName(entry.input);
        imported.push(name);
      }
      return this.changed({ imported, servers: this.servers.list() });
    });
  }

  private changed<T>(result: T): T {
    this.deps.bus.emit('mcp.changed', {});
    return result;
  }

  private agentViews() {
    return this.deps.agents().map((a) => ({
      id: a.id,
      name: a.name,
      transports: a.capabilities ? { http: Boolean(a.capabilities.mcpCapabilities?.http), sse: Boolean(a.capabilities.mcpCapabilities?.sse) } : null,
    }));
  }

  async preview(path: string): Promise<McpImportPreview> {
    const { file, digest, entries } = await readMcpConfig(path);
    const names = new Set(this.servers.list().map((s) => s.name));
    return {
      path: file,
      digest,
      entries: entries.map((e) =>
        e.input
          ? { name: e.name, server: previewView(e.input), action: names.has(e.name) ? ('replace' as const) : ('new' as const), problem: null }
          : { name: e.name, server: null, action: 'invalid' as const, problem: e.problem },
      ),
    };
  }
}
