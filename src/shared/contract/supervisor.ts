import { z } from 'zod';
import { event, request } from './define';

/**
 * The agent supervisor: what every agent process costs (memory, CPU, of its whole process group), how
 * it last ended, and what the supervisor does about it (automatic restarts with backoff, giving up on
 * an agent that exits in a loop, stopping idle agents, flagging one that stopped answering, throttling
 * one that floods).
 */

/** The supervisor's settings keys (their schemas, defaults and descriptions: SETTINGS in ./settings). */
export const SUPERVISOR_SETTINGS = {
  idleStopMinutes: 'agents.idleStopMinutes',
  sleepIdleMinutes: 'agents.sleepIdleMinutes',
  memoryBudgetMb: 'agents.memoryBudgetMb',
  requestTimeoutSeconds: 'agents.requestTimeoutSeconds',
  autoRestart: 'agents.autoRestart',
  restartDelaySeconds: 'agents.restartDelaySeconds',
  maxRestarts: 'agents.maxRestarts',
  restartWindowMinutes: 'agents.restartWindowMinutes',
  floodPerSecond: 'agents.floodPerSecond',
  floodSeconds: 'agents.floodSeconds',
  floodThrottlePerSecond: 'agents.floodThrottlePerSecond',
} as const;

/** Automatic restart delays double on each crash up to this. */
export const MAX_RESTART_DELAY_SECONDS = 30;

/** The supervisor's number settings. */
export type SupervisorNumberSetting = Exclude<keyof typeof SUPERVISOR_SETTINGS, 'autoRestart'>;

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
  /** Samples of the agents whose figures changed (sampled about once a second; the same figures again are not sent). */
  'agent.metrics': event(z.object({ agents: z.array(agentMetricsSchema) })),
} as const;
