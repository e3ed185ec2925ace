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

export const permissionRequests = {
  'permissionRules.list': request(z.object({ agentId: agentIdSchema.optional() }).strict(), z.object({ rules: z.array(permissionRuleSchema) })),
  'permissionRules.remove': request(z.object({ id: z.number().int() }).strict(), empty),
} as const;
