import { z } from 'zod';
import { ELICITATION_LIMITS } from '../elicitation';
import { request } from './define';
import { sessionIdSchema } from './sessions';

/**
 * Elicitations: the agent asks the user for input (ACP `elicitation/create`). A request shows as an
 * `elicitation` entry of the session's thread; the user's answer goes back with sessions.respondElicitation.
 */

const valueSchema = z.union([
  z.string().max(ELICITATION_LIMITS.stringLength),
  z.number().finite(),
  z.boolean(),
  z.array(z.string().max(ELICITATION_LIMITS.option)).max(ELICITATION_LIMITS.options),
]);

const base = { sessionId: sessionIdSchema, requestId: z.string().min(1).max(100) };

export const elicitationRequests = {
  /**
   * accept (a form's content, checked against its fields: invalid_params says which are wrong and nothing
   * is answered; a URL elicitation's accept means the user chose to open it), decline or cancel.
   */
  'sessions.respondElicitation': request(
    z.discriminatedUnion('action', [
      z
        .object({
          ...base,
          action: z.literal('accept'),
          content: z
            .record(z.string().max(ELICITATION_LIMITS.name), valueSchema)
            .refine((c) => Object.keys(c).length <= ELICITATION_LIMITS.fields, `at most ${ELICITATION_LIMITS.fields} fields`)
            .optional(),
        })
        .strict(),
      z.object({ ...base, action: z.literal('decline') }).strict(),
      z.object({ ...base, action: z.literal('cancel') }).strict(),
    ]),
    z.object({}),
  ),
} as const;
