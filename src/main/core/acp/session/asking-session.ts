import type { ThreadEvent, ThreadState } from '../../../../shared/acp-thread';
import type { SessionHost } from './session-host';

/** One thread event on its way to the renderer: `seq` of the agent's update it came from, if any. */
export interface EmittedEvent {
  event: ThreadEvent;
  seq: number | null;
  merged?: number;
}

/** What a live session's questions to the user (permission requests, elicitations) need of it. */
export interface AskingSession {
  readonly id: string;
  readonly agentId: string;
  readonly cwd: string;
  readonly host: Pick<SessionHost, 'bus' | 'rules' | 'warn' | 'permissionAsked'>;
  thread(): ThreadState;
  /** The turn under way, if any. */
  turn(): { promptId: string; cancelled: boolean } | null;
  closed(): boolean;
  /** Folds events into the thread and tells the renderer. */
  emit(events: EmittedEvent[]): void;
  /** A store write whose failure is logged, not thrown. */
  db<T>(fn: () => T): T | undefined;
  /** The container's network when the session is fenced and the user lets a fence widen auto-approval; else null. */
  fence(): 'none' | 'api' | null;
  /** A question now waits for the user. */
  waitForUser(): void;
  /** A question was answered or withdrawn. */
  answered(): void;
}
