import { z } from 'zod';
import { request } from './define';

/** Settings: one key-value store of the app's preferences (values are JSON). */

export const settingKeySchema = z.string().min(1).max(200).regex(/^[a-zA-Z0-9_.-]+$/);

export { MCP_SERVERS_SETTING, mcpServerSettingSchema, type McpServerSetting } from './mcp';

export const settingsRequests = {
  'settings.get': request(z.object({ key: settingKeySchema }).strict(), z.object({ value: z.unknown() })),
  'settings.set': request(z.object({ key: settingKeySchema, value: z.unknown() }).strict(), z.object({})),
} as const;
