import { z } from 'zod';
import { absolutePathSchema, event, request } from './define';
import { containerChoiceSchema } from './containers';
import { hostIdSchema } from './hosts';
import { branchNameSchema } from './worktrees';

/**
 * Tasks (issue 41): work that runs while nobody watches. A task is its prompts, an agent, a folder, where it runs,
 * what it may answer itself, and its limits; it runs now, queued, or on a schedule. Every run ends in the Inbox.
 * The spend guard pauses a run (or an interactive session that opted in) the moment a limit is crossed.
 */

/** Limits; absent: no limit. Money in the currency of the price table (USD) or the agent's own reports. */
export const spendLimitsSchema = z
  .object({
    runTokens: z.number().int().positive().max(1e12).optional(),
    runMoney: z.number().positive().max(1e6).optional(),
    /** Wall-clock minutes per run (time waiting for the user included). */
    runMinutes: z.number().positive().max(7 * 24 * 60).optional(),
    dayTokens: z.number().int().positive().max(1e12).optional(),
    dayMoney: z.number().positive().max(1e6).optional(),
  })
  .strict();
export type SpendLimits = z.infer<typeof spendLimitsSchema>;
export const LIMIT_KEYS = ['runTokens', 'runMoney', 'runMinutes', 'dayTokens', 'dayMoney'] as const;
export type LimitKey = (typeof LIMIT_KEYS)[number];

/** Limits for all agents together, per day (Settings → Usage). */
export const globalLimitsSchema = z.object({ dayTokens: z.number().int().positive().max(1e12).optional(), dayMoney: z.number().positive().max(1e6).optional() }).strict();
export type GlobalLimits = z.infer<typeof globalLimitsSchema>;

const timeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time such as 07:30');

export const scheduleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('daily'), at: timeOfDay }).strict(),
  z.object({ kind: z.literal('weekdays'), at: timeOfDay }).strict(),
  /** Every N hours from `from` (ms): N real hours apart, whatever the clocks do. */
  z.object({ kind: z.literal('hours'), every: z.number().int().min(1).max(24 * 7), from: z.number().int().min(0) }).strict(),
  z.object({ kind: z.literal('cron'), expression: z.string().min(9).max(200) }).strict(),
]);
export type Schedule = z.infer<typeof scheduleSchema>;

/** Where a run works: the folder itself, a new worktree of its repository, or the folder on an SSH host. */
export const runPlaceSchema = z.enum(['folder', 'worktree', 'ssh']);
export type RunPlace = z.infer<typeof runPlaceSchema>;

/**
 * What a run may answer itself while nobody watches: `ask` leaves every request waiting in the Inbox, `reads`
 * allows reads and searches, `edits` also edits in the run's folder; everything else is refused. Each answer is shown.
 */
export const runPolicySchema = z.enum(['ask', 'reads', 'edits', 'refuse']);
export type RunPolicy = z.infer<typeof runPolicySchema>;

export const taskInputSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    prompts: z.array(z.string().min(1).max(100_000)).min(1).max(20),
    agentId: z.string().min(1).max(200),
    folder: absolutePathSchema,
    place: runPlaceSchema.default('folder'),
    hostId: hostIdSchema.optional(),
    policy: runPolicySchema.default('ask'),
    limits: spendLimitsSchema.default({}),
    schedule: scheduleSchema.nullable().default(null),
    /** Also runs when a new commit lands on this branch of its repository (one run for a quiet spell of commits). */
    onCommit: z.object({ branch: branchNameSchema }).strict().nullable().default(null),
    /** Runs its session in a container made for the run (on its host), with this image or the repository's devcontainer. */
    container: containerChoiceSchema.nullable().default(null),
  })
  .strict();
export type TaskInput = z.infer<typeof taskInputSchema>;

export const taskSchema = taskInputSchema.extend({
  id: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** The session it was made from ("run this again"). */
  fromSession: z.string().nullable(),
  /** The next three run times of its schedule. */
  nextRuns: z.array(z.number()),
  scheduleText: z.string().nullable(),
});
export type Task = z.infer<typeof taskSchema>;

export const runStateSchema = z.enum(['queued', 'held', 'running', 'paused', 'done', 'failed', 'cancelled']);
export type RunState = z.infer<typeof runStateSchema>;

export const pauseSchema = z.object({
  limit: z.enum(LIMIT_KEYS).or(z.literal('allDayTokens')).or(z.literal('allDayMoney')),
  /** What the limit allowed and what was spent when it was crossed. */
  allowed: z.number(),
  spent: z.number(),
  at: z.number(),
});
export type Pause = z.infer<typeof pauseSchema>;

export const taskRunSchema = z.object({
  id: z.string(),
  taskId: z.string().nullable(),
  name: z.string(),
  agentId: z.string(),
  state: runStateSchema,
  trigger: z.enum(['now', 'queue', 'schedule', 'missed', 'rerun', 'session', 'commit']),
  position: z.number(),
  sessionId: z.string().nullable(),
  folder: z.string(),
  worktree: z.string().nullable(),
  branch: z.string().nullable(),
  queuedAt: z.number(),
  startedAt: z.number().nullable(),
  endedAt: z.number().nullable(),
  stopReason: z.string().nullable(),
  error: z.string().nullable(),
  /** Prompts sent so far (of the task's). */
  promptsSent: z.number(),
  tokens: z.number(),
  money: z.number(),
  /** 'agent': the agent's own reported cost; 'prices': tokens × the price table; 'mixed'. */
  moneySource: z.enum(['agent', 'prices', 'mixed', 'none']),
  pause: pauseSchema.nullable(),
  /** The agent's last message of the run (bounded). */
  lastMessage: z.string().nullable(),
  /** open: in the Inbox; else what the user did with it. */
  inbox: z.enum(['none', 'open', 'merged', 'reverted', 'dismissed', 'continued']),
  /** Why a queued run waits (a daily limit reached). */
  holdReason: z.string().nullable(),
  /** The permission requests its policy answered while nobody watched, each shown. */
  answers: z.array(z.object({ at: z.number(), tool: z.string(), allowed: z.boolean() })),
});
export type TaskRun = z.infer<typeof taskRunSchema>;

export const missedRunSchema = z.object({ taskId: z.string(), name: z.string(), dueAt: z.number() });
export type MissedRun = z.infer<typeof missedRunSchema>;

export const priceSchema = z.object({
  /** A model id, or a prefix ending in '*'; '*' is the fallback. */
  model: z.string().min(1).max(200),
  /** USD per million tokens (blended input and output). */
  perMillion: z.number().min(0).max(10_000),
});
export const priceTableSchema = z.object({ asOf: z.string().max(20), prices: z.array(priceSchema).max(500) });
export type PriceTable = z.infer<typeof priceTableSchema>;

export const usageDaySchema = z.object({ day: z.string(), tokens: z.number(), money: z.number() });
export const usageSchema = z.object({
  today: z.string(),
  byAgent: z.array(z.object({ agentId: z.string(), tokens: z.number(), money: z.number() })),
  byTask: z.array(z.object({ taskId: z.string(), name: z.string(), tokens: z.number(), money: z.number() })),
  days: z.array(usageDaySchema),
});
export type Usage = z.infer<typeof usageSchema>;

const id = z.string().min(1).max(100);
const empty = z.object({});

export const taskRequests = {
  'tasks.list': request(empty, z.object({ tasks: z.array(taskSchema) })),
  'tasks.save': request(z.object({ id: id.optional(), task: taskInputSchema }).strict(), taskSchema),
  'tasks.delete': request(z.object({ id }).strict(), empty),
  /** A task made of a session's prompts, agent and folder ("run this again"); not saved until tasks.save. */
  'tasks.fromSession': request(z.object({ sessionId: id }).strict(), taskInputSchema),
  /** The next three times and the words of a schedule. */
  'tasks.previewSchedule': request(z.object({ schedule: scheduleSchema }).strict(), z.object({ text: z.string(), nextRuns: z.array(z.number()) })),
  /** Queues a run of the task (it starts when a slot is free). */
  'tasks.enqueue': request(z.object({ taskId: id }).strict(), taskRunSchema),
  'tasks.runs': request(z.object({ inbox: z.boolean().default(false) }).strict(), z.object({ runs: z.array(taskRunSchema), paused: z.boolean() })),
  'tasks.queue.move': request(z.object({ runId: id, before: id.nullable() }).strict(), empty),
  /** Holds the whole queue (running runs go on; no new one starts) or lets it go. */
  'tasks.queue.pause': request(z.object({ paused: z.boolean() }).strict(), empty),
  /** Cancels a queued or running run (the turn is cancelled; its changes stay). */
  'tasks.cancel': request(z.object({ runId: id }).strict(), empty),
  'tasks.missed': request(empty, z.object({ missed: z.array(missedRunSchema) })),
  'tasks.resolveMissed': request(z.object({ taskId: id, dueAt: z.number(), action: z.enum(['run', 'skip']) }).strict(), empty),
  /** Continue with +X: the crossed limit is raised by `more` for this run, and the run goes on. */
  'tasks.continue': request(z.object({ runId: id, more: z.number().positive().max(1e12), prompt: z.string().max(100_000).optional() }).strict(), taskRunSchema),
  'tasks.stop': request(z.object({ runId: id }).strict(), taskRunSchema),
  /** Inbox actions that only change its state (merge and revert go through worktrees and checkpoints first). */
  'tasks.inbox.set': request(z.object({ runId: id, inbox: z.enum(['merged', 'reverted', 'dismissed', 'continued']) }).strict(), taskRunSchema),
  'tasks.rerun': request(z.object({ runId: id }).strict(), taskRunSchema),
  /** An interactive session opts in to the guard with its limits (null: opts out). */
  'tasks.guardSession': request(z.object({ sessionId: id, limits: spendLimitsSchema.nullable() }).strict(), z.object({ runId: z.string().nullable() })),
  'tasks.usage': request(z.object({ days: z.number().int().min(1).max(90).default(14) }).strict(), usageSchema),
  'tasks.prices': request(empty, priceTableSchema),
};

export const taskEvents = {
  /** A run changed (queued, started, paused, ended, moved in the Inbox). */
  'tasks.run': event(taskRunSchema),
  'tasks.changed': event(z.object({})),
  /** The guard paused a run: "needs you". */
  'tasks.paused': event(z.object({ run: taskRunSchema })),
};
