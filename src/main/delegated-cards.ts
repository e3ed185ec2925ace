import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { SessionInfo } from '../shared/contract/sessions';
import type { AcpServices } from './core/acp/acp-services';
import { ENDED_WITH_PARENT } from './core/acp/session/subagent-sessions';

/** Marks the card updates Switchboard writes into a parent's log (the agent never sent them). */
export const DELEGATED_META = 'switchboard/delegated';

/** A delegated child's status as the `subagent_update` state its parent's card shows. */
export function childState(status: SessionInfo['status']): { state: string; stopReason?: string } {
  switch (status) {
    case 'starting':
    case 'working':
      return { state: 'running' };
    case 'awaiting_permission':
    case 'auth_required':
      return { state: 'requires_action' };
    case 'idle':
      return { state: 'idle', stopReason: 'end_turn' };
    default:
      return { state: 'idle', stopReason: status };
  }
}

/**
 * The card of a delegated child in its parent's thread: Switchboard's own `subagent_update` (the shape an ACP
 * subagent's card takes), shown in the live parent and written into the parent's message log as if its agent had
 * sent it (marked in `_meta`), so that history, a reopened parent and a restarted Switchboard show the card as the
 * live thread did, linked to the child's stored thread.
 */
export function showCard(acp: AcpServices, parentId: string, childAcpSessionId: string, fields: Record<string, unknown>): void {
  const parent = acp.sessions.session(parentId);
  if (!parent || parent.status === 'closed') return;
  const update = { sessionUpdate: 'subagent_update', sessionId: childAcpSessionId, ...fields, _meta: { [DELEGATED_META]: true } };
  parent.showDelegated(update as unknown as SessionUpdate);
  const log = acp.context.messageLog();
  if (!log || !parent.acpSessionId) return;
  const body = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: parent.acpSessionId, update } });
  log.append({ sessionId: parentId, direction: 'a2c', method: 'session/update', body }).catch((e: Error) => {
    console.error(`the card of a delegated session was not stored: ${e.message}`);
  });
}

/** The card's state once the child's status changed; null when the parent's own ending says it (closed with it). */
export function cardState(info: SessionInfo): { state: string; stopReason?: string } | null {
  if (info.status === 'closed' && info.error === ENDED_WITH_PARENT) return null;
  return childState(info.status);
}
