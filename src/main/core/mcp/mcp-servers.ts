import { randomUUID } from 'node:crypto';
import type { AgentCapabilities, McpServer } from '@agentclientprotocol/sdk';
import { IpcFailure } from '../../../shared/contract';
import {
  mcpServerSettingSchema,
  type McpPairView,
  type McpServerInputParsed,
  type McpServerSetting,
  type McpServerView,
} from '../../../shared/contract/mcp';
import type { SecretStore } from '../agents/secret-store';

/** The `mcp.servers` setting (the settings service validates and announces every write). */
export interface SettingsPort {
  read(): unknown;
  write(value: McpServerSetting[]): void;
}

type Stored = McpServerSetting & { id: string };

/** A server with its secret values filled in: what an agent or a check gets. Main process only. */
export type McpServerConfig =
  | { id: string; type: 'stdio'; name: string; command: string; args: string[]; env: Record<string, string> }
  | { id: string; type: 'http' | 'sse'; name: string; url: string; headers: Record<string, string> };

/** What a session is given, and what it is not (and why). */
export interface McpSelection {
  servers: McpServer[];
  given: McpServerConfig[];
  /** `warn`: worth a warning in the session (not a choice the user made). */
  leftOut: Array<{ name: string; reason: string; warn: boolean }>;
}

const scopeOf = (id: string): string => `mcp:${id}`;
const envSecret = (name: string): string => `env:${name}`;
const headerSecret = (name: string): string => `header:${name}`;

/**
 * The user's MCP servers: the `mcp.servers` setting (plain values) plus the secret store (values marked
 * secret, scope `mcp:<id>`). An entry that does not parse (written before the settings registry checked
 * values) is left out of every session, with the reason.
 */
export class McpServers {
  constructor(
    private readonly settings: SettingsPort,
    private readonly secrets: SecretStore,
  ) {}

  private raw(): unknown[] {
    const v = this.settings.read();
    return Array.isArray(v) ? v : [];
  }

  /** Valid entries (ids filled in) and the problems of the others. */
  private read(): { entries: Stored[]; invalid: string[] } {
    const entries: Stored[] = [];
    const invalid: string[] = [];
    for (const raw of this.raw()) {
      const parsed = mcpServerSettingSchema.safeParse(raw);
      if (!parsed.success) {
        invalid.push(parsed.error.issues[0]?.message ?? 'invalid');
        continue;
      }
      entries.push({ ...parsed.data, id: parsed.data.id ?? parsed.data.name });
    }
    return { entries, invalid };
  }

  private write(entries: Stored[]): void {
    this.settings.write(entries);
  }

  list(): McpServerView[] {
    return this.read().entries.map((e) => this.view(e));
  }

  private find(id: string): Stored {
    const e = this.read().entries.find((s) => s.id === id);
    if (!e) throw new IpcFailure('not_found', `no MCP server ${id}`);
    return e;
  }

  get(id: string): McpServerView {
    return this.view(this.find(id));
  }

  private view(e: Stored): McpServerView {
    const pairs = (plain: Record<string, string>, secret: string[]): McpPairView[] => [
      ...Object.entries(plain).map(([name, value]) => ({ name, value, secret: false })),
      ...secret.map((name) => ({ name, value: null, secret: true })),
    ];
    return e.type === 'stdio'
      ? { id: e.id, type: 'stdio', name: e.name, command: e.command, args: e.args, env: pairs(e.env, e.secretEnv), enabled: e.enabled, agents: e.agents }
      : { id: e.id, type: e.type, name: e.name, url: e.url, headers: pairs(e.headers, e.secretHeaders), enabled: e.enabled, agents: e.agents };
  }

  add(input: McpServerInputParsed): McpServerView {
    const { entries } = this.read();
    if (entries.some((e) => e.name === input.name)) throw new IpcFailure('conflict', `an MCP server named "${input.name}" exists already`);
    const id = randomUUID();
    const stored = this.store(id, input, null);
    this.write([...entries, stored]);
    return this.view(stored);
  }

  update(id: string, input: McpServerInputParsed): McpServerView {
    const { entries } = this.read();
    const i = entries.findIndex((e) => e.id === id);
    if (i < 0) throw new IpcFailure('not_found', `no MCP server ${id}`);
    if (entries.some((e) => e.id !== id && e.name === input.name)) throw new IpcFailure('conflict', `an MCP server named "${input.name}" exists already`);
    const stored = this.store(id, input, entries[i]!);
    entries[i] = stored;
    this.write(entries);
    return this.view(stored);
  }

  /** Adds the server, or replaces the one of the same name (import), keeping whether it is enabled and for whom. */
  upsertByName(input: McpServerInputParsed): McpServerView {
    const existing = this.read().entries.find((e) => e.name === input.name);
    return existing ? this.update(existing.id, { ...input, enabled: existing.enabled, agents: existing.agents }) : this.add(input);
  }

  remove(id: string): void {
    const { entries } = this.read();
    if (!entries.some((e) => e.id === id)) throw new IpcFailure('not_found', `no MCP server ${id}`);
    this.write(entries.filter((e) => e.id !== id));
    this.secrets.delete(scopeOf(id));
  }

  /**
   * Builds the stored entry and writes its secrets. A secret pair without a value keeps the value stored
   * before (an edit that did not touch it); secrets no longer named are removed.
   */
  private store(id: string, input: McpServerInputParsed, before: Stored | null): Stored {
    const scope = scopeOf(id);
    const pairs = input.type === 'stdio' ? input.env : input.headers;
    const secretName = input.type === 'stdio' ? envSecret : headerSecret;
    // No prototype: a variable named __proto__ is a variable like any other.
    const plain = Object.create(null) as Record<string, string>;
    const secret: string[] = [];
    const keep = new Set<string>();
    for (const p of pairs) {
      if (!p.secret) {
        plain[p.name] = p.value ?? '';
        continue;
      }
      secret.push(p.name);
      keep.add(secretName(p.name));
      if (p.value !== undefined) this.secrets.set(scope, secretName(p.name), p.value);
      else if (before === null || this.secrets.get(scope, secretName(p.name)) === null) {
        throw new IpcFailure('invalid_params', `${p.name}: a secret needs a value`);
      }
    }
    for (const n of this.secrets.names(scope)) if (!keep.has(n)) this.secrets.delete(scope, n);
    return input.type === 'stdio'
      ? { id, type: 'stdio', name: input.name, command: input.command, args: input.args, env: plain, secretEnv: secret, enabled: input.enabled, agents: input.agents }
      : { id, type: input.type, name: input.name, url: input.url, headers: plain, secretHeaders: secret, enabled: input.enabled, agents: input.agents };
  }

  private resolve(e: Stored): McpServerConfig {
    const scope = scopeOf(e.id);
    const secretValues = (names: string[], key: (n: string) => string): Record<string, string> => {
      const out: Record<string, string> = {};
      for (const n of names) {
        const v = this.secrets.get(scope, key(n));
        if (v !== null) out[n] = v;
      }
      return out;
    };
    return e.type === 'stdio'
      ? { id: e.id, type: 'stdio', name: e.name, command: e.command, args: e.args, env: { ...e.env, ...secretValues(e.secretEnv, envSecret) } }
      : { id: e.id, type: e.type, name: e.name, url: e.url, headers: { ...e.headers, ...secretValues(e.secretHeaders, headerSecret) } };
  }

  /** A stored server with its secrets, to start or connect to. */
  config(id: string): McpServerConfig {
    return this.resolve(this.find(id));
  }

  /**
   * What an agent gets at session/new: the enabled servers chosen for it; stdio always, http and sse only
   * when the agent advertised them (mcpCapabilities). Everything else is left out, with the reason.
   */
  forAgent(agentId: string, capabilities: AgentCapabilities | null): McpSelection {
    const servers: McpServer[] = [];
    const given: McpServerConfig[] = [];
    const { entries, invalid } = this.read();
    const leftOut: McpSelection['leftOut'] = invalid.map((reason) => ({ name: 'invalid MCP server entry', reason, warn: true }));
    for (const e of entries) {
      if (!e.enabled) {
        leftOut.push({ name: e.name, reason: 'disabled', warn: false });
        continue;
      }
      if (e.agents !== 'all' && !e.agents.includes(agentId)) {
        leftOut.push({ name: e.name, reason: 'not chosen for this agent', warn: false });
        continue;
      }
      if (e.type !== 'stdio' && !capabilities?.mcpCapabilities?.[e.type]) {
        leftOut.push({ name: e.name, reason: `the agent does not support MCP over ${e.type}`, warn: true });
        continue;
      }
      let config: McpServerConfig;
      try {
        config = this.resolve(e);
      } catch (err) {
        leftOut.push({ name: e.name, reason: `its secrets cannot be read: ${(err as Error).message}`, warn: true });
        continue;
      }
      given.push(config);
      servers.push(
        config.type === 'stdio'
          ? { name: config.name, command: config.command, args: config.args, env: Object.entries(config.env).map(([name, value]) => ({ name, value })) }
          : { type: config.type, name: config.name, url: config.url, headers: Object.entries(config.headers).map(([name, value]) => ({ name, value })) },
      );
    }
    return { servers, given, leftOut };
  }
}
