import { z } from 'zod';
import { event, request } from './define';

/**
 * Compare mode: one prompt to several agents, each in its own git worktree of the same repository;
 * then their changes side by side, and "apply this one" into the main checkout.
 */

const absolutePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'must be an absolute path');


export const compareRunSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  worktree: z.string(),
  branch: z.string(),
  sessionId: z.string().nullable(),
  /** Set once the run's turn ended. */
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  stopReason: z.string().nullable(),
  error: z.string().nullable(),
  appliedAt: z.number().nullable(),
  /** Time the run's session spent waiting for the user (permission, question, sign-in), not counted as its work. */
  waitedMs: z.number(),
  /** When its session began waiting for the user, while it does (null: it is not waiting). */
  waitingSince: z.number().nullable(),
});
export type CompareRun = z.infer<typeof compareRunSchema>;

export const compareSchema = z.object({
  id: z.string(),
  repo: z.string(),
  baseCommit: z.string(),
  prompt: z.string(),
  createdAt: z.number(),
  runs: z.array(compareRunSchema),
});
export type Compare = z.infer<typeof compareSchema>;

export const compareRequests = {
  /**
   * Creates one worktree per agent at the repository's HEAD (the repo must be a git checkout) and, with
   * `start` (the default), a session of each agent in its worktree, sent the prompt.
   */
  'compare.create': request(
    z
      .object({
        repo: absolutePath,
        prompt: z.string().min(1).max(1_000_000),
        agentIds: z.array(z.string().min(1).max(200)).min(1).max(8),
        start: z.boolean().default(true),
      })
      .strict(),
    compareSchema,
  ),
  /** Links a run to the session started in its worktree, and records its end. */
  'compare.updateRun': request(
    z
      .object({
        compareId: z.string().min(1).max(100),
        runId: z.string().min(1).max(100),
        sessionId: z.string().min(1).max(100).optional(),
        ended: z.object({ stopReason: z.string().max(100).nullable(), error: z.string().max(10_000).nullable() }).optional(),
      })
      .strict(),
    compareSchema,
  ),
  'compare.get': request(z.object({ compareId: z.string().min(1).max(100) }).strict(), compareSchema),
  'compare.list': request(z.object({}).strict(), z.object({ compares: z.array(compareSchema) })),
  /** Applies a run's changes to the main checkout (refused, with the reason, when they do not apply cleanly). */
  'compare.apply': request(
    z.object({ compareId: z.string().min(1).max(100), runId: z.string().min(1).max(100) }).strict(),
    z.object({ files: z.array(z.string()) }),
  ),
  /** Removes every worktree and branch of the comparison. */
  'compare.discard': request(z.object({ compareId: z.string().min(1).max(100) }).strict(), z.object({})),
} as const;

export const compareEvents = {
  'compare.changed': event(compareSchema),
} as const;
