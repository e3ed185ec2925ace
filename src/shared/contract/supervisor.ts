import { z } from 'zod';
import { event, request } from './define';

/**
 * The agent supervisor: what every agent process costs (memory, CPU, of its whole process group), how
 * it last ended, and what the supervisor does about it (automatic restarts with backoff, giving up on
 * an agent that exits in a loop, stopping idle agents, flagging one that stopped answering, throttling
 * one that floods).
 */

/** Settings keys (numbers; absent or invalid: the default). */
export const SUPERVISOR_SETTINGS = {
  /** Stop an agent with no open session after this many minutes (0: never). Default 10. */
  idleStopMinutes: 'agents.idleStopMinutes',
  /** A request the agent does not answer, while it writes nothing, fails after this many seconds (0: never). Default 60.
   * Time the agent waits on Switchboard (a permission, a terminal) or runs a tool call does not count. */
  requestTimeoutSeconds: 'agents.requestTimeoutSeconds',
  /** Restart a crashed agent that has open sessions (boolean). Default true. */
  autoRestart: 'agents.autoRestart',
  /** First restart delay in seconds; doubles on each crash, capped at 30 s. Default 1. */
  restartDelaySeconds: 'agents.restartDelaySeconds',
  /** At most this many automatic restarts… Default 5. */
  maxRestarts: 'agents.maxRestarts',
  /** …within this many minutes; past that the agent is left stopped. Default 5. */
  restartWindowMinutes: 'agents.restartWindowMinutes',
  /** An agent writing more messages a second than this (0: never throttle)… Default 5,000. */
  floodPerSecond: 'agents.floodPerSecond',
  /** …for this many seconds in a row is flooding… Default 5. */
  floodSeconds: 'agents.floodSeconds',
  /** …and is then read at this many messages a second until it calms down. Default 1,000. */
  floodThrottlePerSecond: 'agents.floodThrottlePerSecond',
} as const;

export const SUPERVISOR_DEFAULTS = {
  idleStopMinutes: 10,
  requestTimeoutSeconds: 60,
  autoRestart: true,
  restartDelaySeconds: 1,
  maxRestarts: 5,
  restartWindowMinutes: 5,
  maxRestartDelaySeconds: 30,
  floodPerSecond: 5000,
  floodSeconds: 5,
  floodThrottlePerSecond: 1000,
} as const;

/** The supervisor's number settings. */
export type SupervisorNumberSetting = Exclude<keyof typeof SUPERVISOR_SETTINGS, 'autoRestart'>;

/** A number setting as stored, or its default when absent or invalid (numbers must be finite and ≥ 0). */
export function supervisorNumber(name: SupervisorNumberSetting, stored: unknown): number {
  return typeof stored === 'number' && Number.isFinite(stored) && stored >= 0 ? stored : SUPERVISOR_DEFAULTS[name];
}

export const agentExitInfoSchema = z.object({
  code: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** The last lines the agent wrote to stderr before it ended. */
  stderrTail: z.string(),
  at: z.number(),
});
export type AgentExitInfo = z.infer<typeof agentExitInfoSchema>;

export const agentMetricsSchema = z.object({
  agentId: z.string(),
  /** The project folder of this process of the agent (see AgentStatus.folder); null: the agent's own process. */
  folder: z.string().nullable().optional(),
  /** The process group leader (the agent), when running. */
  pid: z.number().int().nullable(),
  /** Processes in the agent's group (the agent and what it started). */
  processes: z.number().int(),
  /** Resident memory of the whole group, bytes; null when not running or unknown. */
  rssBytes: z.number().nullable(),
  /** CPU of the whole group over the last interval, percent of one core. */
  cpuPercent: z.number().nullable(),
  sampledAt: z.number(),
  /** Automatic restarts within the current window. */
  restarts: z.number().int(),
  /** When the next automatic restart happens (a crashed agent with open sessions). */
  nextRestartAt: z.number().nullable(),
  /** Automatic restarts stopped (an exit loop): why, in words. Cleared by a manual start. */
  gaveUp: z.string().nullable(),
  /** The agent left a request unanswered past the timeout; cleared when it writes again or restarts. */
  unresponsive: z.string().nullable(),
  /** The agent floods its output and is read slower (flood control): why, in words; cleared when it calms down. */
  throttled: z.string().nullable(),
  lastExit: agentExitInfoSchema.nullable(),
});
export type AgentMetrics = z.infer<typeof agentMetricsSchema>;

export const supervisorRequests = {
  /** The latest sample of every known agent. */
  'agents.metrics': request(z.object({}).strict(), z.object({ agents: z.array(agentMetricsSchema) })),
} as const;

export const supervisorEvents = {
  /** Samples of the agents that run or changed, about once a second at most. */
  'agent.metrics': event(z.object({ agents: z.array(agentMetricsSchema) })),
} as const;
