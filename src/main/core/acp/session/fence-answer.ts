/**
 * A wider auto-approve policy for a session fenced in a container (issue 38): when the user allows it
 * (Settings → Containers) and the session's container has no network or only the agent's API, a permission
 * request for a file edit or a command inside the container is allowed without asking; anything else (a fetch,
 * a mode switch, an unknown kind) still asks. The answer says that the fence answered it.
 */
import { parseHostId } from '../../../../shared/contract/hosts';

/** Kinds of tool call that act only inside the container (its mounted folder and its own layer). */
const INSIDE_KINDS: ReadonlySet<string> = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute']);

export type FencedNetwork = 'none' | 'api';

/** The network of the session's container when it is fenced (none or api), read from its stored record. */
export function fencedNetwork(hostId: string, storedContainer: (key: string) => string | null): FencedNetwork | null {
  const a = parseHostId(hostId);
  if (a?.kind !== 'container') return null;
  try {
    const stored = JSON.parse(storedContainer(a.key) ?? 'null') as { fence?: { network?: unknown } } | null;
    const network = stored?.fence?.network;
    return network === 'none' || network === 'api' ? network : null;
  } catch {
    return null;
  }
}

export const fenceCovers = (toolKind: string): boolean => INSIDE_KINDS.has(toolKind);
