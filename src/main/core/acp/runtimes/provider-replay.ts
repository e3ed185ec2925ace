import { methods as unstableMethods } from '@agentclientprotocol/sdk/unstable';

/**
 * The model providers the user chose for an agent, given again to each new process of it. ACP keeps provider
 * configuration process-scoped and unpersisted by the agent ("clients SHOULD configure providers before creating
 * or loading sessions"): without this a restart, a crash, a process for another folder or an agent woken from
 * sleep would route to the agent's defaults. Kept encrypted with the agent's secrets (headers carry API keys).
 */
export const providersScope = (agentId: string): string => `providers:${agentId}`;

export type ProviderChoice = { apiType: string; baseUrl: string; headers: Record<string, string> } | { disabled: true };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseChoice(json: string): ProviderChoice | null {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return null;
  }
  if (!isRecord(v)) return null;
  if (v.disabled === true) return { disabled: true };
  if (typeof v.apiType !== 'string' || typeof v.baseUrl !== 'string' || !isRecord(v.headers)) return null;
  const headers = Object.fromEntries(Object.entries(v.headers).filter((e): e is [string, string] => typeof e[1] === 'string'));
  return { apiType: v.apiType, baseUrl: v.baseUrl, headers };
}

/** Gives a new process the stored choices (provider id → choice JSON); what it refuses is returned, said by provider. */
export async function replayProviders(request: (method: string, params: unknown) => Promise<unknown>, stored: Record<string, string>): Promise<string[]> {
  const problems: string[] = [];
  for (const [providerId, json] of Object.entries(stored)) {
    const choice = parseChoice(json);
    if (!choice) continue;
    try {
      if ('disabled' in choice) await request(unstableMethods.agent.providers.disable, { providerId });
      else await request(unstableMethods.agent.providers.set, { providerId, ...choice });
    } catch (e) {
      problems.push(`provider "${providerId.slice(0, 200)}" could not be set again: ${String((e as Error)?.message ?? e).slice(0, 300)}`);
    }
  }
  return problems;
}
