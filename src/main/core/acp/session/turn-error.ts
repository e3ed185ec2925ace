import { RequestError } from '@agentclientprotocol/sdk';
import type { TurnError } from '../../../../shared/acp-thread';
import { IpcFailure } from '../../../../shared/contract';

/** How a failed turn is told: the agent's JSON-RPC error, Switchboard's own refusal, or anything else thrown. */
export const turnErrorOf = (e: unknown): TurnError => {
  if (e instanceof RequestError) return { code: e.code, message: e.message };
  if (e instanceof IpcFailure) return { code: e.code, message: e.message };
  return { code: 'error', message: e instanceof Error ? e.message : String(e) };
};
