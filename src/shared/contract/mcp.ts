import { z } from 'zod';
import { absolutePathSchema, event, request } from './define';

/**
 * MCP servers the user offers to agents at session/new. The main process keeps them in the `mcp.servers`
 * setting; values marked secret (environment variables, headers) live encrypted in the secret store and
 * never come back to a renderer.
 */

/** Settings key `mcp.servers`: the stored list (secret values not included). */
export const MCP_SERVERS_SETTING = 'mcp.servers';

const name = z.string().trim().min(1).max(200);
const varName = z.string().trim().min(1).max(200);
const value = z.string().max(16_384);

/** Which agents get a server: every agent, or only the listed agent ids. */
export const mcpAgentsSchema = z.union([z.literal('all'), z.array(z.string().min(1).max(200)).max(500)]);
export type McpAgents = z.infer<typeof mcpAgentsSchema>;

/**
 * One entry of the stored setting. Older entries (no id, no agents) stay valid: the id defaults to the
 * name, every agent gets them. `secretEnv`/`secretHeaders` name the values kept in the secret store.
 */
export const mcpServerSettingSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('stdio'),
    id: z.string().min(1).max(200).optional(),
    name: z.string().min(1),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    secretEnv: z.array(z.string()).default([]),
    enabled: z.boolean().default(true),
    agents: mcpAgentsSchema.default('all'),
  }),
  z.object({
    type: z.enum(['http', 'sse']),
    id: z.string().min(1).max(200).optional(),
    name: z.string().min(1),
    url: z.string().url(),
    headers: z.record(z.string(), z.string()).default({}),
    secretHeaders: z.array(z.string()).default([]),
    enabled: z.boolean().default(true),
    agents: mcpAgentsSchema.default('all'),
  }),
]);
export type McpServerSetting = z.infer<typeof mcpServerSettingSchema>;

/** A variable or header as the renderer sees it: a secret's value is never sent (null: stored, hidden). */
export const mcpPairViewSchema = z.object({ name: z.string(), value: z.string().nullable(), secret: z.boolean() });
export type McpPairView = z.infer<typeof mcpPairViewSchema>;

/** A variable or header as the renderer sends it: a secret without a value keeps the stored one. */
export const mcpPairInputSchema = z.object({ name: varName, value: value.optional(), secret: z.boolean().default(false) }).strict();
export type McpPairInput = z.input<typeof mcpPairInputSchema>;

const urlSchema = z
  .string()
  .trim()
  .max(4096)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http:// or https:// URL');

export const mcpServerInputSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('stdio'),
      name,
      command: z.string().trim().min(1).max(4096),
      args: z.array(z.string().max(16_384)).max(200).default([]),
      env: z.array(mcpPairInputSchema).max(200).default([]),
      enabled: z.boolean().default(true),
      agents: mcpAgentsSchema.default('all'),
    })
    .strict(),
  z
    .object({
      type: z.enum(['http', 'sse']),
      name,
      url: urlSchema,
      headers: z.array(mcpPairInputSchema).max(200).default([]),
      enabled: z.boolean().default(true),
      agents: mcpAgentsSchema.default('all'),
    })
    .strict(),
]);
export type McpServerInput = z.input<typeof mcpServerInputSchema>;
export type McpServerInputParsed = z.output<typeof mcpServerInputSchema>;

export const mcpServerViewSchema = z.discriminatedUnion('type', [
  z.object({
    id: z.string(),
    type: z.literal('stdio'),
    name: z.string(),
    command: z.string(),
    args: z.array(z.string()),
    env: z.array(mcpPairViewSchema),
    enabled: z.boolean(),
    agents: mcpAgentsSchema,
  }),
  z.object({
    id: z.string(),
    type: z.enum(['http', 'sse']),
    name: z.string(),
    url: z.string(),
    headers: z.array(mcpPairViewSchema),
    enabled: z.boolean(),
    agents: mcpAgentsSchema,
  }),
]);
export type McpServerView = z.infer<typeof mcpServerViewSchema>;

/** What an agent supports, as far as is known (null: the agent has not been started yet). */
export const mcpAgentViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  transports: z.object({ http: z.boolean(), sse: z.boolean() }).nullable(),
});
export type McpAgentView = z.infer<typeof mcpAgentViewSchema>;

export const mcpCheckResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), tools: z.array(z.string()), serverName: z.string().nullable(), ms: z.number() }),
  z.object({ ok: z.literal(false), error: z.string(), ms: z.number() }),
]);
export type McpCheckResult = z.infer<typeof mcpCheckResultSchema>;

/** A place an MCP configuration may be imported from. */
export const mcpImportSourceSchema = z.object({ label: z.string(), path: z.string(), exists: z.boolean() });

export const mcpImportEntrySchema = z.object({
  name: z.string(),
  /** What would be stored (secret values hidden). Null when the entry cannot be imported. */
  server: mcpServerViewSchema.nullable(),
  /** new: added; replace: a server of that name exists and would be replaced; invalid: see problem. */
  action: z.enum(['new', 'replace', 'invalid']),
  problem: z.string().nullable(),
});
export type McpImportEntry = z.infer<typeof mcpImportEntrySchema>;

/** `digest`: the SHA-256 of the bytes previewed; apply imports only if the file still holds exactly them. */
export const mcpImportPreviewSchema = z.object({ path: z.string(), digest: z.string(), entries: z.array(mcpImportEntrySchema) });
export type McpImportPreview = z.infer<typeof mcpImportPreviewSchema>;

const serverId = z.object({ id: z.string().min(1).max(200) }).strict();

export const mcpRequests = {
  'mcp.list': request(z.object({}).strict(), z.object({ servers: z.array(mcpServerViewSchema), agents: z.array(mcpAgentViewSchema) })),
  'mcp.add': request(z.object({ server: mcpServerInputSchema }).strict(), z.object({ server: mcpServerViewSchema })),
  'mcp.update': request(z.object({ id: z.string().min(1).max(200), server: mcpServerInputSchema }).strict(), z.object({ server: mcpServerViewSchema })),
  'mcp.remove': request(serverId, z.object({})),
  /** Starts (stdio) or connects to (http, sse) a stored server with the MCP SDK and lists its tools. */
  'mcp.check': request(serverId, mcpCheckResultSchema),
  /** Known MCP config files of desktop tools on this machine. */
  'mcp.importSources': request(z.object({}).strict(), z.object({ sources: z.array(mcpImportSourceSchema) })),
  /** Reads a config file (`mcpServers` shape) or a project folder's `.mcp.json`; stores nothing. */
  'mcp.importPreview': request(z.object({ path: absolutePathSchema }).strict(), mcpImportPreviewSchema),
  /**
   * Reads the file again and imports the named entries, only if it is still the previewed bytes (`digest`
   * of the preview; `conflict` otherwise). Secret values go from the file to the store directly.
   */
  'mcp.importApply': request(
    z.object({ path: absolutePathSchema, digest: z.string().regex(/^[0-9a-f]{64}$/), names: z.array(z.string().min(1).max(200)).min(1).max(500) }).strict(),
    z.object({ imported: z.array(z.string()), servers: z.array(mcpServerViewSchema) }),
  ),
} as const;

export const mcpEvents = {
  /** The stored servers changed (any window, or an import): views reload them. */
  'mcp.changed': event(z.object({})),
} as const;
