import { z } from 'zod';
import { request } from './define';

/** Settings: one key-value store of the app's preferences (values are JSON). */

export const settingKeySchema = z.string().min(1).max(200).regex(/^[a-zA-Z0-9_.-]+$/);

/** Settings key `mcp.servers`: MCP servers offered to every new session (http/sse only to agents that support them). */
export const MCP_SERVERS_SETTING = 'mcp.servers';
export const mcpServerSettingSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('stdio'),
    name: z.string().min(1),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    enabled: z.boolean().default(true),
  }),
  z.object({
    type: z.enum(['http', 'sse']),
    name: z.string().min(1),
    url: z.string().url(),
    headers: z.record(z.string(), z.string()).default({}),
    enabled: z.boolean().default(true),
  }),
]);
export type McpServerSetting = z.infer<typeof mcpServerSettingSchema>;

export const settingsRequests = {
  'settings.get': request(z.object({ key: settingKeySchema }).strict(), z.object({ value: z.unknown() })),
  'settings.set': request(z.object({ key: settingKeySchema, value: z.unknown() }).strict(), z.object({})),
} as const;
