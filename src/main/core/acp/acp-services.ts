import type { Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import { registerAgentTerminalHandlers } from '../terminals/agent-terminal-handlers';
import { AcpContext, type AcpContextOptions, type AcpCoreDeps } from './acp-context';
import { AgentsService } from './agents/agents-service';
import { registerAgentHandlers } from './agents/handlers';
import { RuntimePool } from './supervisor/runtime-pool';
import { registerSessionHandlers } from './session/handlers';
import { LiveSessions } from './session/live-sessions';
import { SessionsService } from './session/sessions-service';
import type { SupervisorOptions } from './supervisor/supervisor';

export type { AcpCoreDeps, AcpStore } from './acp-context';

export interface AcpServicesOptions extends AcpContextOptions {
  supervisor?: SupervisorOptions;
}

/**
 * The ACP client: the agents service, the sessions service, and the runtime pool with its supervisor,
 * over what they share (AcpContext). Each has a typed API for the rest of main; the router's handlers
 * are thin adapters onto them.
 */
export class AcpServices implements Disposable {
  readonly context: AcpContext;
  readonly pool: RuntimePool;
  readonly sessions: SessionsService;
  readonly agents: AgentsService;

  constructor(deps: AcpCoreDeps, options: AcpServicesOptions = {}) {
    this.context = new AcpContext(deps, options);
    const live = new LiveSessions();
    this.pool = new RuntimePool(this.context, live, options.supervisor);
    this.sessions = new SessionsService(this.context, this.pool, live);
    this.agents = new AgentsService(this.context, this.pool, live);
  }

  /** Registers the renderer's requests: agents.*, sessions.*, permissionRules.*, agentTerminal.*. */
  register(router: Router): this {
    registerAgentHandlers(router, this.agents, this.pool);
    registerSessionHandlers(router, this.sessions);
    registerAgentTerminalHandlers(router, this.context.terminals);
    return this;
  }

  async dispose(): Promise<void> {
    this.pool.supervisor.dispose();
    await this.sessions.dispose();
    await this.pool.dispose();
    await this.context.dispose();
  }
}
