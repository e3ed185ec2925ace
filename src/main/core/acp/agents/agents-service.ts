import { randomUUID } from 'node:crypto';
import type { AgentCapabilities } from '@agentclientprotocol/sdk';
import { IpcFailure } from '../../../../shared/contract';
import type { AgentStatus, AgentSummary } from '../../../../shared/contract/agents';
import type { AgentRecord } from '../../agents/agent-repository';
import { AGENT_TOKEN_NAME, agentTokenScope, isNetworkAgent } from '../../agents/network-agent';
import { checkAgentUrl, looksLikeAgentUrl } from '../../../../shared/agent-url';
import type { AcpContext } from '../acp-context';
import type { LiveSessions } from '../session/live-sessions';
import type { RuntimePool } from '../supervisor/runtime-pool';
import { providersScope } from '../runtimes/provider-replay';

/**
 * The agents the user has: adding, changing and removing them, starting, stopping and restarting their
 * processes, signing in and out, and their logs.
 */
export class AgentsService {
  constructor(
    private readonly ctx: AcpContext,
    private readonly pool: RuntimePool,
    private readonly live: LiveSessions,
  ) {}

  private record(agentId: string): AgentRecord {
    const record = this.ctx.agents().get(agentId);
    if (!record) throw new IpcFailure('not_found', `no agent ${agentId}`);
    return record;
  }

  /** Throws not_found for an agent the user does not have. */
  assertKnown(agentId: string): void {
    this.record(agentId);
  }

  summary(record: AgentRecord): AgentSummary {
    const prefs = this.ctx.prefs().get(record.id);
    return {
      id: record.id,
      name: record.name,
      source: record.source,
      command: record.command,
      args: record.args,
      env: record.env,
      cwd: record.cwd,
      version: record.version,
      registryId: record.registryId,
      overrides: { args: prefs.args, env: prefs.env },
      compat: prefs.compat,
      url: isNetworkAgent(record) ? record.command : null,
      tokenStored: isNetworkAgent(record) && this.ctx.secrets.names(agentTokenScope(record.id)).includes(AGENT_TOKEN_NAME),
      storedSecrets: this.ctx.secrets.names(record.id),
      status: this.pool.runtime(record.id).status(),
      folderProcesses: this.pool
        .runtimesOf(record.id)
        .filter((rt) => rt.folder !== null)
        .map((rt) => rt.status()),
    };
  }

  list(): AgentSummary[] {
    return this.ctx
      .agents()
      .list()
      .map((r) => this.summary(r));
  }

  /** The capabilities of the running agent, else those its last start reported (null: never started). */
  knownCapabilities(agentId: string): AgentCapabilities | null {
    return this.pool.knownCapabilities(agentId);
  }

  addCustom(p: { name: string; command: string; args: string[]; env: Record<string, string>; cwd: string | null }): AgentSummary {
    if (looksLikeAgentUrl(p.command)) return this.addByUrl({ name: p.name, url: p.command, token: null });
    const record = this.ctx.agents().upsert({
      id: `custom-${randomUUID()}`,
      name: p.name,
      source: 'custom',
      command: p.command,
      args: p.args,
      env: p.env,
      cwd: p.cwd,
      version: null,
      registryId: null,
    });
    return this.summary(record);
  }

  /** An agent reached at a URL (its command is the URL); the token is stored encrypted, apart from its env secrets. */
  addByUrl(p: { name: string; url: string; token: string | null }): AgentSummary {
    const url = acceptedUrl(p.url);
    const id = `custom-${randomUUID()}`;
    if (p.token) this.ctx.secrets.set(agentTokenScope(id), AGENT_TOKEN_NAME, p.token);
    const record = this.ctx.agents().upsert({ id, name: p.name, source: 'custom', command: url, args: [], env: {}, cwd: null, version: null, registryId: null });
    return this.summary(record);
  }

  update(p: {
    agentId: string;
    name?: string | undefined;
    command?: string | undefined;
    cwd?: string | null | undefined;
    args?: string[] | null | undefined;
    env?: Record<string, string> | undefined;
    compat?: Partial<AgentSummary['compat']> | undefined;
    url?: string | undefined;
    token?: string | null | undefined;
  }): AgentSummary {
    const record = this.record(p.agentId);
    const prefs = this.ctx.prefs().get(record.id);
    const newCommand = p.url !== undefined ? acceptedUrl(p.url) : p.command !== undefined && looksLikeAgentUrl(p.command) ? acceptedUrl(p.command) : p.command;
    if (p.token !== undefined) {
      if (!isNetworkAgent({ source: record.source, command: newCommand ?? record.command })) throw new IpcFailure('invalid_params', 'only an agent reached at a URL has a token');
      if (p.token === null) this.ctx.secrets.delete(agentTokenScope(record.id), AGENT_TOKEN_NAME);
      else this.ctx.secrets.set(agentTokenScope(record.id), AGENT_TOKEN_NAME, p.token);
    }
    if (record.source === 'custom') {
      this.ctx.agents().upsert({
        ...record,
        name: p.name ?? record.name,
        command: newCommand ?? record.command,
        cwd: p.cwd === undefined ? record.cwd : p.cwd,
        args: p.args === undefined ? record.args : (p.args ?? []),
        env: p.env ?? record.env,
      });
    } else {
      if (p.name !== undefined || p.command !== undefined || p.cwd !== undefined || p.url !== undefined) {
        throw new IpcFailure('forbidden', 'only args, env and compat can be changed for an installed agent');
      }
      if (record.source === 'registry' && (p.args !== undefined || p.env !== undefined)) {
        // The registry keeps its own overrides (they survive updates and rollbacks) and writes the agents row.
        throw new IpcFailure('forbidden', 'change the args and env of a registry agent with registry.setOverrides');
      }
      if (p.args !== undefined) prefs.args = p.args;
      if (p.env !== undefined) prefs.env = p.env;
    }
    if (p.compat) prefs.compat = { ...prefs.compat, ...p.compat };
    this.ctx.prefs().set(record.id, prefs);
    return this.summary(this.record(record.id));
  }

  async remove(agentId: string): Promise<void> {
    this.record(agentId);
    for (const s of this.live.ofAgent(agentId)) await s.close();
    await this.pool.remove(agentId);
    this.ctx.agents().remove(agentId);
    this.ctx.prefs().remove(agentId);
    this.ctx.capabilitiesRepo().remove(agentId);
    this.ctx.secrets.delete(agentId);
    this.ctx.secrets.delete(agentTokenScope(agentId));
    this.ctx.secrets.delete(providersScope(agentId));
    this.ctx.rules().removeAgent(agentId);
  }

  async start(agentId: string): Promise<AgentStatus> {
    this.record(agentId);
    const rt = this.pool.runtime(agentId);
    await rt.ensureStarted();
    return rt.status();
  }

  async stop(agentId: string): Promise<void> {
    await Promise.all(this.pool.runtimesOf(agentId).map((rt) => rt.stop()));
  }

  /** Restarts the agent's processes that run or serve sessions (its own process when none does). */
  async restart(agentId: string): Promise<{ status: AgentStatus; resumedSessions: string[] }> {
    this.record(agentId);
    const busy = this.pool.runtimesOf(agentId).filter((rt) => rt.connected || rt.state === 'starting' || this.live.of(rt).length > 0);
    const resumedSessions: string[] = [];
    for (const rt of busy.length > 0 ? busy : [this.pool.runtime(agentId)]) resumedSessions.push(...(await this.pool.restartRuntime(rt)));
    return { status: this.pool.runtime(agentId).status(), resumedSessions };
  }

  /** The end of the agent's log (stderr, notes, warnings), and where the whole of it is. */
  log(agentId: string, maxBytes = 256 * 1024) {
    const log = this.ctx.agentLog(agentId);
    return { ...log.tail(maxBytes), path: log.path };
  }

  async authenticate(p: { agentId: string; methodId: string; values?: Record<string, string> | undefined; cols?: number | undefined; rows?: number | undefined }) {
    this.record(p.agentId);
    // The processes whose sessions wait for sign-in (else the agent's own): each is told.
    const waiting = this.pool.runtimesOf(p.agentId).filter((r) => this.live.of(r).some((x) => x.status === 'auth_required'));
    const targets = waiting.length > 0 ? waiting : [this.pool.runtime(p.agentId)];
    const rt = targets[0]!;
    await rt.ensureStarted();
    const method = rt.authMethods.find((m) => m.id === p.methodId);
    if (!method) throw new IpcFailure('not_found', `the agent offers no authentication method ${p.methodId}`);
    if (method.type !== 'agent' && isNetworkAgent(this.record(p.agentId))) {
      // Environment variables and a terminal command are given to a process this machine starts: there is none.
      throw new IpcFailure('unavailable', `${method.name} signs in where the agent runs (${method.type === 'env_var' ? 'its environment' : 'its command in a terminal'}); this agent is reached at its URL, so sign in on its machine`);
    }
    const authenticateAll = async () => {
      for (const t of targets) {
        await t.ensureStarted();
        await t.request('authenticate', { methodId: method.id }).catch((e: Error) => {
          throw new IpcFailure('agent_error', `authentication failed: ${e.message}`);
        });
      }
    };
    switch (method.type) {
      case 'agent':
        await authenticateAll();
        await this.afterAuthentication(p.agentId);
        return { kind: 'authenticated' as const };
      case 'env_var': {
        const values = p.values ?? {};
        const stored = new Set(this.ctx.secrets.names(p.agentId));
        for (const v of method.vars) {
          if (!v.optional && !values[v.name] && !stored.has(v.name)) throw new IpcFailure('invalid_params', `a value for ${v.name} is needed`);
        }
        const allowed = new Set(method.vars.map((v) => v.name));
        for (const [name, value] of Object.entries(values)) {
          if (!allowed.has(name)) throw new IpcFailure('invalid_params', `${name} is not a variable of this method`);
          if (value) this.ctx.secrets.set(p.agentId, name, value);
        }
        // Environment variables are read at start: restart with them, then authenticate.
        for (const t of targets) await this.pool.restartRuntime(t);
        await authenticateAll();
        await this.afterAuthentication(p.agentId);
        return { kind: 'authenticated' as const };
      }
      case 'terminal': {
        const launch = rt.launch;
        if (!launch) throw new IpcFailure('unavailable', 'the agent is not running');
        const args = [...launch.args, ...method.args];
        const terminalId = this.ctx.terminals.createAuth(
          p.agentId,
          { host: rt.workHost, command: launch.command, args, env: { ...launch.env, ...method.env, TERM: 'xterm-256color' }, cwd: launch.cwd, cols: p.cols, rows: p.rows },
          (exit) => {
            if (exit.exitCode === 0) {
              void this.restart(p.agentId)
                .then(() => this.afterAuthentication(p.agentId))
                .catch((e: Error) => this.ctx.warn(p.agentId, null, 'store_error', `restart after authentication failed: ${e.message}`));
            } else {
              this.ctx.agentLog(p.agentId).write('note', `terminal authentication ended with ${exit.exitCode ?? exit.signal}`);
            }
          },
        );
        return { kind: 'terminal' as const, terminalId, command: launch.command, args };
      }
    }
  }

  private async afterAuthentication(agentId: string): Promise<void> {
    for (const s of this.live.ofAgent(agentId)) await s.retryAfterAuth();
  }

  async logout(agentId: string): Promise<void> {
    this.record(agentId);
    const running = this.pool.runtimesOf(agentId).filter((rt) => rt.connected);
    for (const rt of running) {
      if (!rt.capabilities?.auth?.logout) continue;
      await rt.request('logout', {}).catch((e: Error) => {
        throw new IpcFailure('agent_error', `logout failed: ${e.message}`);
      });
    }
    if (this.ctx.secrets.delete(agentId) > 0 && running.length > 0) await this.restart(agentId);
  }
}

/** The URL as it is stored, or the sentence saying why it is refused. */
function acceptedUrl(raw: string): string {
  const check = checkAgentUrl(raw);
  if (!check.ok) throw new IpcFailure('invalid_params', `This URL is refused: ${check.error}`);
  return check.url.href;
}
