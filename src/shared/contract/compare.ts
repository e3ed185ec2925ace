import { z } from 'zod';
import { absolutePathSchema, event, request } from './define';
import { spendLimitsSchema } from './tasks';
import { branchNameSchema, mergeStrategySchema, worktreeErrorSchema } from './worktrees';

/**
 * Compare mode: one prompt to several agents, each a worktree session (its own worktree on its own branch,
 * made as the new-session form makes one); then their changes side by side. "Apply this one" is the worktree
 * merge of that run's branch into the base; the other runs stay worktree sessions, to keep or to discard.
 */

export const compareRunSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  /** The run's worktree session's folder and branch. */
  worktree: z.string(),
  branch: z.string(),
  sessionId: z.string().nullable(),
  /** Set once the run's turn ended. */
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  stopReason: z.string().nullable(),
  error: z.string().nullable(),
  /** Merged into the base by "apply this one". */
  appliedAt: z.number().nullable(),
  /** The user chose to keep it as a worktree session after another run was applied. */
  keptAt: z.number().nullable(),
  /** Its worktree was discarded (or removed): no longer a worktree Switchboard knows. */
  discarded: z.boolean(),
  /** Time the run's session spent waiting for the user (permission, question, sign-in), not counted as its work. */
  waitedMs: z.number(),
  /** When its session began waiting for the user, while it does (null: it is not waiting). */
  waitingSince: z.number().nullable(),
});
export type CompareRun = z.infer<typeof compareRunSchema>;

/** The judge of a comparison: an agent that reads each run's diff and last message and scores them against criteria. */
export const compareJudgeSchema = z.object({
  agentId: z.string(),
  criteria: z.string(),
  /** The judge's session (null until every run ended and it started). */
  sessionId: z.string().nullable(),
  /** Its scored summary: the judge agent's last message (its text, untrusted: shown as text). */
  verdict: z.string().nullable(),
  /** The scores it gave ("Run N: S/10" lines of the verdict), by run. */
  scores: z.array(z.object({ runId: z.string(), score: z.number() })),
  error: z.string().nullable(),
  startedAt: z.number().nullable(),
  endedAt: z.number().nullable(),
});
export type CompareJudge = z.infer<typeof compareJudgeSchema>;

export const judgeInputSchema = z.object({ agentId: z.string().min(1).max(200), criteria: z.string().max(20_000).default('') }).strict();

export const compareSchema = z.object({
  id: z.string(),
  /** The main checkout's top folder. */
  repo: z.string(),
  /** The branch the runs started from and "apply this one" merges into. */
  base: z.string(),
  baseCommit: z.string(),
  prompt: z.string(),
  createdAt: z.number(),
  runs: z.array(compareRunSchema),
  judge: compareJudgeSchema.nullable(),
});
export type Compare = z.infer<typeof compareSchema>;

const compareId = z.string().min(1).max(100);
const runId = z.string().min(1).max(100);

export const compareRequests = {
  /**
   * One worktree session per agent: a new branch `compare/<prompt words>-<agent>` from `base` (default: the
   * branch checked out in the main checkout), in the worktrees folder. With `start` (the default) each run's
   * session is started in its worktree and sent the prompt. `repo` must be in a git repository with a commit.
   */
  'compare.create': request(
    z
      .object({
        repo: absolutePathSchema,
        base: branchNameSchema.optional(),
        prompt: z.string().min(1).max(1_000_000),
        agentIds: z.array(z.string().min(1).max(200)).min(1).max(8),
        start: z.boolean().default(true),
        /** A judge agent and its criteria: it scores the runs once every one ended. */
        judge: judgeInputSchema.optional(),
        /** Each run's spend limits (the spend guard pauses a run that reaches one); every run counts toward today's. */
        limits: spendLimitsSchema.optional(),
      })
      .strict(),
    compareSchema,
  ),
  /** Links a run to the session started in its worktree, and records its end. */
  'compare.updateRun': request(
    z
      .object({
        compareId,
        runId,
        sessionId: z.string().min(1).max(100).optional(),
        ended: z.object({ stopReason: z.string().max(100).nullable(), error: z.string().max(10_000).nullable() }).optional(),
      })
      .strict(),
    compareSchema,
  ),
  'compare.get': request(z.object({ compareId }).strict(), compareSchema),
  'compare.list': request(z.object({}).strict(), z.object({ compares: z.array(compareSchema) })),
  /**
   * "Apply this one": the run's uncommitted changes are committed on its branch (message: `message`, else the
   * prompt), then the branch is merged into the base as `worktrees.merge` does (default squash). A conflict or
   * local changes in the way are refused with the files listed, and nothing in the main checkout is touched.
   */
  'compare.apply': request(
    z.object({ compareId, runId, strategy: mergeStrategySchema.default('squash'), message: z.string().max(100_000).optional() }).strict(),
    z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true), value: z.object({ base: z.string(), head: z.string(), strategy: mergeStrategySchema, files: z.array(z.string()) }) }),
      z.object({ ok: z.literal(false), error: worktreeErrorSchema }),
    ]),
  ),
  /** Names the comparison's judge (or another one) and starts it now when every run ended already. */
  'compare.judge': request(z.object({ compareId, judge: judgeInputSchema }).strict(), compareSchema),
  /**
   * The comparison as one self-contained HTML file (prompt, runs, times, tokens, diffs, the judge's verdict): no
   * script, no request to anywhere, every run's content escaped.
   */
  'compare.export': request(z.object({ compareId }).strict(), z.object({ fileName: z.string(), html: z.string() })),
  /** Keeps a run as a worktree session (the answer to "keep or discard" after another was applied). */
  'compare.keep': request(z.object({ compareId, runId }).strict(), compareSchema),
} as const;

export const compareEvents = {
  'compare.changed': event(compareSchema),
} as const;
