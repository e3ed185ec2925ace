import { z } from 'zod';
import { request } from './define';

/**
 * What an agent was actually given when a session was set up (session/new, or resume/load after a
 * restart), recorded by the main process at that moment, and what was left out and why.
 * Environment values are never recorded: only the names.
 */
export const effectiveConfigSchema = z.object({
  recordedAt: z.number(),
  method: z.enum(['session/new', 'session/resume', 'session/load', 'session/fork']),
  cwd: z.string(),
  additionalDirectories: z.array(z.string()),
  mcpServers: z.array(
    z.object({
      name: z.string(),
      type: z.enum(['stdio', 'http', 'sse']),
      /** The command line (stdio) or the URL. */
      target: z.string(),
      /** Names of the environment variables (stdio) or headers (http, sse) given; values hidden. */
      keys: z.array(z.string()),
    }),
  ),
  /** Names of the variables Switchboard sets on the agent process (its settings, overrides, stored keys). */
  agentEnvKeys: z.array(z.string()),
  leftOut: z.array(z.object({ kind: z.enum(['mcpServer', 'directory']), name: z.string(), reason: z.string() })),
});
export type EffectiveConfig = z.infer<typeof effectiveConfigSchema>;

export const sessionConfigRequests = {
  /** Null when nothing was recorded (a session older than the recording, or never set up). */
  'sessions.effectiveConfig': request(z.object({ sessionId: z.string().min(1).max(100) }).strict(), z.object({ config: effectiveConfigSchema.nullable() })),
} as const;
