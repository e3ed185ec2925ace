import { systemClock, type Clock } from '../base/clock';

export interface AcpOptions {
  /** Longest line accepted from an agent; longer ones are dropped with a warning. */
  maxLineBytes: number;
  /** How long `initialize` may take (agents may hang on network calls at start-up). */
  initializeTimeoutMs: number;
  /** Between SIGTERM and SIGKILL when stopping an agent. */
  stopGraceMs: number;
  /** Time and timers of the supervisor, the flood guard and agents' activity (tests pass a fake clock). */
  clock: Clock;
}

export const DEFAULT_ACP_OPTIONS: AcpOptions = {
  maxLineBytes: 16 * 1024 * 1024,
  initializeTimeoutMs: 60_000,
  stopGraceMs: 2000,
  clock: systemClock,
};
