import { systemClock, type Clock } from '../base/clock';
import type { Host } from '../host/host';
import { LocalHost } from '../host/local/local-host';

export interface AcpOptions {
  /** Longest line accepted from an agent; longer ones are dropped with a warning. */
  maxLineBytes: number;
  /** How long `initialize` may take (agents may hang on network calls at start-up). */
  initializeTimeoutMs: number;
  /** Between SIGTERM and SIGKILL when stopping an agent. */
  stopGraceMs: number;
  /** Where agent processes start: this machine (tests hand in a host whose agents run in-process). */
  agentHost: Pick<Host, 'spawn'>;
  /** Time and timers of the supervisor, the flood guard and agents' activity (tests pass a fake clock). */
  clock: Clock;
}

export const DEFAULT_ACP_OPTIONS: AcpOptions = {
  maxLineBytes: 16 * 1024 * 1024,
  initializeTimeoutMs: 60_000,
  stopGraceMs: 2000,
  agentHost: new LocalHost(),
  clock: systemClock,
};
