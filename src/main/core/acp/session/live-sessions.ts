import type { AgentRuntime } from '../runtimes/agent-runtime';
import type { LiveSession } from './live-session';

/** The live sessions by id: kept by the sessions service, looked up by the runtime pool and the supervisor. */
export class LiveSessions {
  private readonly byId = new Map<string, LiveSession>();

  get(id: string): LiveSession | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  add(session: LiveSession): void {
    this.byId.set(session.id, session);
  }

  delete(id: string): void {
    this.byId.delete(id);
  }

  all(): LiveSession[] {
    return [...this.byId.values()];
  }

  ofAgent(agentId: string): LiveSession[] {
    return this.all().filter((s) => s.agentId === agentId);
  }

  /** The live sessions one process of an agent serves. */
  of(rt: AgentRuntime): LiveSession[] {
    return this.all().filter((s) => s.runtime === rt);
  }
}
