import { z } from 'zod';
import { agentIdSchema } from './agents';
import { request } from './define';

/** Permission rules: "always" answers to an agent's permission requests, per agent and tool kind. */

export const permissionRuleSchema = z.object({
  id: z.number().int(),
  agentId: z.string(),
  toolKind: z.string(),
  decision: z.enum(['allow', 'reject']),
  createdAt: z.number(),
});
export type PermissionRule = z.infer<typeof permissionRuleSchema>;

const empty = z.object({});

/** The tool kinds of ACP (a rule for `other` covers tool calls of no known kind). */
export const TOOL_KINDS = ['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other'] as const;

export const permissionRequests = {
  'permissionRules.list': request(z.object({ agentId: agentIdSchema.optional() }).strict(), z.object({ rules: z.array(permissionRuleSchema) })),
  'permissionRules.remove': request(z.object({ id: z.number().int() }).strict(), empty),
  /** Adds a rule, or changes the decision of the agent's rule for that tool kind. */
  'permissionRules.set': request(
    z.object({ agentId: agentIdSchema, toolKind: z.string().min(1).max(100), decision: z.enum(['allow', 'reject']) }).strict(),
    z.object({ rule: permissionRuleSchema }),
  ),
} as const;
