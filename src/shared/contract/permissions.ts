import { z } from 'zod';
import { scopeProblem, PATTERN_MAX, type RuleScope } from '../permission-scope';
import { agentIdSchema } from './agents';
import { request } from './define';

/**
 * Permission rules: "always" answers to an agent's permission requests, each for one agent, tool kind,
 * pattern and project folder (optionally one session). See `src/shared/permission-scope.ts`.
 */

/** The tool kinds of ACP (a rule for `other` covers tool calls of no known kind). */
export const TOOL_KINDS = ['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other'] as const;

export const ruleScopeSchema = z
  .object({
    subject: z.enum(['command', 'path', 'title']),
    match: z.enum(['exact', 'prefix', 'glob']),
    pattern: z.string().min(1).max(PATTERN_MAX),
    folder: z.string().min(1).max(4096),
    sessionId: z.string().min(1).max(200).nullable(),
  })
  .strict()
  .superRefine((scope, ctx) => {
    const problem = scopeProblem(scope as RuleScope);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const permissionRuleSchema = z.object({
  id: z.number().int(),
  agentId: z.string(),
  toolKind: z.string(),
  /** null: a rule from before scopes (agent and tool kind only). It answers nothing until it is given a scope. */
  scope: ruleScopeSchema.nullable(),
  decision: z.enum(['allow', 'reject']),
  /** The label of the agent's option the user chose, when an answer made the rule. */
  label: z.string().nullable(),
  createdAt: z.number(),
});
export type PermissionRule = z.infer<typeof permissionRuleSchema>;

/** A file in which an agent keeps its own permission rules (answers that never reach Switchboard). */
export const agentRuleFileSchema = z.object({
  /** The project folder it was looked up for. */
  folder: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  path: z.string(),
  /** project: in the folder (`.claude/settings.local.json`…); user: in the agent's home. */
  level: z.enum(['project', 'user']),
  /** How many allow / deny / ask entries it holds (null when it could not be read as JSON). */
  entries: z.number().int().nullable(),
});
export type AgentRuleFile = z.infer<typeof agentRuleFileSchema>;

const empty = z.object({});

export const permissionRequests = {
  'permissionRules.list': request(z.object({ agentId: agentIdSchema.optional() }).strict(), z.object({ rules: z.array(permissionRuleSchema) })),
  'permissionRules.remove': request(z.object({ id: z.number().int() }).strict(), empty),
  /**
   * Adds a rule, or with `id` changes one (every part of it). A scope wider than a rule may be (no folder,
   * a glob outside it, a command prefix without its command) is refused.
   */
  'permissionRules.set': request(
    z
      .object({
        id: z.number().int().optional(),
        agentId: agentIdSchema,
        toolKind: z.enum(TOOL_KINDS),
        scope: ruleScopeSchema,
        decision: z.enum(['allow', 'reject']),
      })
      .strict(),
    z.object({ rule: permissionRuleSchema }),
  ),
  /**
   * The rule files that the agents of open sessions read for their folders (or, with `folder`, that every
   * agent would read for it): those that exist.
   */
  'permissionRules.agentFiles': request(z.object({ folder: z.string().min(1).max(4096).optional() }).strict(), z.object({ files: z.array(agentRuleFileSchema) })),
  /** The text of a file `permissionRules.agentFiles` lists (no other file). */
  'permissionRules.readAgentFile': request(z.object({ path: z.string().min(1).max(4096) }).strict(), z.object({ path: z.string(), content: z.string() })),
} as const;
