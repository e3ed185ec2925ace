/** A prompt turn of a session, as seen by observers of the turn lifecycle (checkpoints). */
export interface TurnInfo {
  sessionId: string;
  promptId: string;
  /** The session's folder and its additional folders. */
  roots: readonly string[];
}

/** Told when a turn starts and ends. Observers must not throw. */
export interface TurnObserver {
  /** Before the prompt goes to the agent; the turn waits for the returned promise. */
  turnStarting(turn: TurnInfo): Promise<void>;
  /** After the turn ended (any way it ends); must not block. */
  turnEnded(turn: TurnInfo): void;
}
