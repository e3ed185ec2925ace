import type { AgentExit, StdoutPause } from './agent-process';

/**
 * What an agent's runtime talks to: its process (agent-process.ts) or its network connection
 * (agent-socket.ts). Both hand the agent's output on as newline-ended JSON lines and take the client's the
 * same way, so the wire tap (log, store, flood guard) is one for both.
 */
export interface AgentLink {
  readonly pid: number | null;
  /** How it ended; null while it runs. */
  readonly exit: AgentExit | null;
  write(data: string): Promise<void>;
  writeNowOrNever(data: string): void;
  pauseStdout(reason: StdoutPause): void;
  resumeStdout(reason: StdoutPause): void;
  stop(graceMs?: number): Promise<AgentExit>;
}

export interface AgentLinkHandlers {
  onStdout: (chunk: Buffer) => void;
  onStdoutEnd: () => void;
  onExit: (exit: AgentExit) => void;
}
