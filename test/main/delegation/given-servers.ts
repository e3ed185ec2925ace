import type { TestCore } from '../acp/helpers';

export interface GivenServer {
  name: string;
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
}

/**
 * The delegation server each session is given, as its agent gets it (its secret included: the message log keeps
 * only the names of a server's env values). Recorded from the core's own DelegationService as it answers.
 */
export function recordGivenServers(t: TestCore): (sessionId: string) => GivenServer[] {
  const given = new Map<string, GivenServer>();
  const service = t.core.delegation;
  const serverFor = service.serverFor.bind(service);
  service.serverFor = async (sessionId, agentId, hostId) => {
    const out = await serverFor(sessionId, agentId, hostId);
    if (out && 'acp' in out && 'command' in out.acp) given.set(sessionId, out.acp);
    return out;
  };
  return (sessionId) => {
    const server = given.get(sessionId);
    return server ? [server] : [];
  };
}
