import type { TurnError } from '../../../../shared/acp-thread';

/** A prompt turn of a live session, as the sessions service tells its listeners (checkpoints, compare). */
export interface SessionTurn {
  sessionId: string;
  promptId: string;
  /** The host the folders are on ('local': this machine). */
  hostId: string;
  /** The session's folder and its additional folders. */
  roots: readonly string[];
}

/** How a turn ended (any way it ends: the agent's stop reason, or the error). */
export interface SessionTurnEnd extends SessionTurn {
  stopReason: string | null;
  error: TurnError | null;
}
