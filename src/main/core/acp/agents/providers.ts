import { methods as unstableMethods } from '@agentclientprotocol/sdk/unstable';
import { IpcFailure } from '../../../../shared/contract';
import type { AgentProvider } from '../../../../shared/contract/agents';
import type { AgentRuntime } from '../runtimes/agent-runtime';
import type { RuntimePool } from '../supervisor/runtime-pool';
import { providersScope, type ProviderChoice } from '../runtimes/provider-replay';

/**
 * Model providers (unstable ACP `providers/list|set|disable`, advertised as `agentCapabilities.providers`): the
 * Providers section of an agent's settings, instead of env variables typed by hand. What the agent lists is its
 * text: bounded here, shown through VisibleText. A set or disable goes to every running process of the agent (one
 * per project folder when the agent runs that way), so that each session routes the same.
 */

const MAX_PROVIDERS = 32;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const bounded = (v: unknown, max: number): string | null => {
  if (typeof v !== 'string' || v === '') return null;
  return v.length > max ? `${v.slice(0, max - 1)}…` : v;
};

/** The `providers/list` answer as the contract holds it; entries without an id are dropped. */
export function parseProviders(result: unknown): AgentProvider[] {
  const list = isRecord(result) && Array.isArray(result.providers) ? result.providers : [];
  return list.flatMap((p): AgentProvider[] => {
    if (!isRecord(p)) return [];
    const id = bounded(p.providerId, 200);
    if (id === null) return [];
    const supported = (Array.isArray(p.supported) ? p.supported : []).flatMap((x) => bounded(x, 100) ?? []).slice(0, 32);
    const c = isRecord(p.current) ? p.current : null;
    const apiType = c ? bounded(c.apiType, 100) : null;
    const baseUrl = c ? bounded(c.baseUrl, 2048) : null;
    return [{ id, supported, required: p.required === true, current: apiType !== null && baseUrl !== null ? { apiType, baseUrl } : null }];
  }).slice(0, MAX_PROVIDERS);
}

export const offersProviders = (rt: AgentRuntime): boolean => {
  const p = (rt.capabilities as { providers?: unknown } | null)?.providers;
  return p !== undefined && p !== null;
};

const failure = (method: string, e: unknown) =>
  e instanceof IpcFailure ? e : new IpcFailure('agent_error', `${method} failed: ${String((e as Error)?.message ?? e).slice(0, 300)}`);

export class AgentProviders {
  constructor(private readonly pool: RuntimePool) {}

  /** What the user chose is kept, to be given again to the agent's next processes (provider-replay.ts). */
  private remember(agentId: string, providerId: string, choice: ProviderChoice): void {
    this.pool.secrets.set(providersScope(agentId), providerId, JSON.stringify(choice));
  }

  /** The agent's own process, started if needed (providers belong to the agent, not to a session). */
  private async main(agentId: string): Promise<AgentRuntime> {
    const rt = this.pool.runtime(agentId);
    await rt.ensureStarted();
    return rt;
  }

  private running(agentId: string, main: AgentRuntime): AgentRuntime[] {
    const others = this.pool.runtimesOf(agentId).filter((rt) => rt !== main && rt.connected && offersProviders(rt));
    return [main, ...others];
  }

  async list(agentId: string): Promise<{ offered: boolean; providers: AgentProvider[] }> {
    const rt = await this.main(agentId);
    if (!offersProviders(rt)) return { offered: false, providers: [] };
    try {
      return { offered: true, providers: parseProviders(await rt.request(unstableMethods.agent.providers.list, {})) };
    } catch (e) {
      throw failure('providers/list', e);
    }
  }

  async set(p: { agentId: string; providerId: string; apiType: string; baseUrl: string; headers: Record<string, string> }) {
    const rt = await this.offering(p.agentId);
    const params = { providerId: p.providerId, apiType: p.apiType, baseUrl: p.baseUrl, headers: p.headers };
    await this.each(p.agentId, rt, unstableMethods.agent.providers.set, params);
    this.remember(p.agentId, p.providerId, { apiType: p.apiType, baseUrl: p.baseUrl, headers: p.headers });
    return this.list(p.agentId);
  }

  async disable(p: { agentId: string; providerId: string }) {
    const rt = await this.offering(p.agentId);
    const known = parseProviders(await rt.request(unstableMethods.agent.providers.list, {}).catch((e: unknown) => Promise.reject(failure('providers/list', e))));
    // The schema: clients must not call providers/disable for a required provider.
    if (known.find((x) => x.id === p.providerId)?.required) throw new IpcFailure('invalid_params', `The agent needs the provider "${p.providerId.slice(0, 200)}": it cannot be disabled.`);
    await this.each(p.agentId, rt, unstableMethods.agent.providers.disable, { providerId: p.providerId });
    this.remember(p.agentId, p.providerId, { disabled: true });
    return this.list(p.agentId);
  }

  private async offering(agentId: string): Promise<AgentRuntime> {
    const rt = await this.main(agentId);
    if (!offersProviders(rt)) throw new IpcFailure('unavailable', 'This agent does not offer model providers.');
    return rt;
  }

  private async each(agentId: string, main: AgentRuntime, method: string, params: unknown): Promise<void> {
    for (const rt of this.running(agentId, main)) {
      try {
        await rt.request(method, params);
      } catch (e) {
        throw failure(method, e);
      }
    }
  }
}
