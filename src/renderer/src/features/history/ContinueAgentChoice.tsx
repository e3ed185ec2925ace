import type { ImportSourceId } from '@shared/contract/history-import';
import { importSourceNames, unboundSource } from '@shared/contract/history-import';
import { useAgents } from '../agents';

interface Props {
  /** The tool the session was imported from. */
  source: ImportSourceId;
  /** The agent the session is bound to now (an unbound id while none is). */
  agentId: string | null;
  disabled: boolean;
  onChoose(agentId: string): void;
}

/**
 * Which set-up agent continues a session imported from a tool's own store: the one that matched the tool (or
 * was chosen before for it) comes preselected; any other, e.g. a wrapper script added under a name of the
 * user's own, can be chosen (remembered for the tool's other sessions).
 */
export function ContinueAgentChoice({ source, agentId, disabled, onChoose }: Props) {
  const agents = useAgents((s) => s.agents);
  const bound = agentId !== null && unboundSource(agentId) === null && agents.some((a) => a.id === agentId);
  if (agents.length === 0) return null;
  return (
    <label className="transcript-continue-agent" title={`The agent that continues this session, imported from ${importSourceNames[source]}`}>
      Continue with{' '}
      <select value={bound ? agentId! : ''} disabled={disabled} onChange={(e) => e.target.value && onChoose(e.target.value)} data-testid="transcript-continue-agent">
        {!bound && (
          <option value="" disabled>
            Choose an agent…
          </option>
        )}
        {agents.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
      </select>
    </label>
  );
}
