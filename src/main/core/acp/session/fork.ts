import type { AgentCapabilities } from '@agentclientprotocol/sdk';

/**
 * Whether the agent advertises session/fork (unstable in ACP v1: `sessionCapabilities.fork`, which the SDK's
 * stable types do not name yet).
 */
export function canFork(caps: AgentCapabilities | null | undefined): boolean {
  const session = caps?.sessionCapabilities as { fork?: unknown } | undefined;
  return session?.fork !== undefined && session.fork !== null;
}
