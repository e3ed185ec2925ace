import { z } from 'zod';
import { event, request } from './define';

/** An agent id of the ACP Registry (its folder name there): lowercase letters, digits and hyphens. */
export const registryIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[a-z][a-z0-9-]*$/, 'a registry id is lowercase letters, digits and hyphens, starting with a letter');

/** How a registry entry is obtained: a platform archive, an npm package or a PyPI package run through uv. */
export const distKindSchema = z.enum(['binary', 'npx', 'uvx']);
export type DistKind = z.infer<typeof distKindSchema>;

/** The `agents` row of an installed registry agent has this id (stable across updates and rollbacks). */
export const registryAgentId = (registryId: string): string => `registry-${registryId}`;

/** The setting (settings.get/set) holding the registry URL; http(s) or file:. Unset → the ACP CDN. */
export const REGISTRY_URL_SETTING = 'registry.url';
export const DEFAULT_REGISTRY_URL = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';

const envSchema = z.record(z.string().min(1).max(256), z.string().max(32_768));
const argsSchema = z.array(z.string().max(32_768)).max(256);

/** Where the listed entries came from, and how fresh they are. */
export const registrySourceSchema = z.object({
  /** The configured registry URL. */
  url: z.string(),
  /** The URL the listed entries were read from (differs from `url` when only an older copy of another URL is kept). */
  dataUrl: z.string().nullable(),
  /** network: fetched this session; cache: the last good copy on disk; none: no copy at all. */
  origin: z.enum(['network', 'cache', 'none']),
  /** When the listed copy was downloaded (ms since epoch). */
  fetchedAt: z.number().nullable(),
  /** Last time the registry answered (200 or 304). */
  checkedAt: z.number().nullable(),
  /** The last check answered 304 Not Modified. */
  notModified: z.boolean(),
  /** Why the last refresh failed (the listed entries are then the previous good copy); null when it worked. */
  error: z.string().nullable(),
  /** Non-fatal remarks about the registry document itself. */
  warnings: z.array(z.string()),
  /** The registry document's own `version`. */
  registryVersion: z.string().nullable(),
});
export type RegistrySource = z.infer<typeof registrySourceSchema>;

export const registryProgressStepSchema = z.enum([
  'preparing',
  'downloading',
  'extracting',
  'installing',
  'verifying',
  'finishing',
  'done',
  'failed',
  'cancelled',
]);
export type RegistryProgressStep = z.infer<typeof registryProgressStepSchema>;

export const registryProgressSchema = z.object({
  registryId: registryIdSchema,
  operation: z.enum(['install', 'update']),
  version: z.string(),
  kind: distKindSchema,
  step: registryProgressStepSchema,
  /** Bytes downloaded so far (downloading) or null when not measurable (npm, uv). */
  bytesDone: z.number().nullable(),
  /** Expected size when the server said so. */
  bytesTotal: z.number().nullable(),
  /** What Switchboard is doing, in its words (or the failure reason when step is 'failed'). */
  message: z.string().nullable(),
  /** The last lines the tool (npm, uv) printed, shown behind "Details". */
  output: z.array(z.string()).optional(),
});
export type RegistryProgress = z.infer<typeof registryProgressSchema>;

export const installedAgentSchema = z.object({
  registryId: registryIdSchema,
  /** Id of the `agents` row (what the new-session picker lists). */
  agentId: z.string(),
  name: z.string(),
  version: z.string(),
  kind: distKindSchema,
  /** Another installed version to roll back to (kept after an update). */
  previousVersion: z.string().nullable(),
  installedAt: z.number(),
  /** <dataDir>/agents/<id>/<version> */
  dir: z.string(),
  /** What the agent is started with (overrides applied). */
  command: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  /** The user's overrides: args replace the registry's args (null: keep them); env is merged over the registry's env. */
  overrides: z.object({ args: z.array(z.string()).nullable(), env: z.record(z.string(), z.string()) }),
  /** E.g. "needs Node >=22, found 20.19.0" (the agent may still work). */
  warnings: z.array(z.string()),
  /** Set when the install is unusable (files missing…); reinstall fixes it. */
  problem: z.string().nullable(),
  /** The entry is still listed by the registry. */
  inRegistry: z.boolean(),
  latestVersion: z.string().nullable(),
  updateAvailable: z.boolean(),
});
export type InstalledAgent = z.infer<typeof installedAgentSchema>;

export const registryEntrySchema = z.object({
  id: registryIdSchema,
  name: z.string(),
  version: z.string(),
  description: z.string(),
  repository: z.string().nullable(),
  authors: z.array(z.string()),
  license: z.string().nullable(),
  /** Icon URL as listed; fetch it through registry.icon (sanitized), never directly. */
  icon: z.string().nullable(),
  distributions: z.array(distKindSchema),
  /** What registry.install uses by default on this machine; null when none fits (see unavailableReason). */
  installKind: distKindSchema.nullable(),
  unavailableReason: z.string().nullable(),
  installed: installedAgentSchema.nullable(),
  updateAvailable: z.boolean(),
  /** The running install/update, if any. */
  progress: registryProgressSchema.nullable(),
});
export type RegistryEntry = z.infer<typeof registryEntrySchema>;

/** An entry of the registry that failed validation; listed so it does not just vanish. */
export const invalidRegistryEntrySchema = z.object({
  index: z.number().int(),
  id: z.string().nullable(),
  name: z.string().nullable(),
  reasons: z.array(z.string()),
});
export type InvalidRegistryEntry = z.infer<typeof invalidRegistryEntrySchema>;

export const registryListSchema = z.object({
  source: registrySourceSchema,
  /** This machine's platform key, e.g. linux-x86_64. */
  platform: z.string().nullable(),
  entries: z.array(registryEntrySchema),
  invalid: z.array(invalidRegistryEntrySchema),
  /** Every installed registry agent, including those the registry no longer lists. */
  installed: z.array(installedAgentSchema),
});
export type RegistryList = z.infer<typeof registryListSchema>;

export const runtimeToolSchema = z.object({
  name: z.enum(['node', 'npm', 'uv']),
  found: z.boolean(),
  path: z.string().nullable(),
  version: z.string().nullable(),
  /** path: on the login shell's PATH; probe: found in a usual location (nvm, asdf, Homebrew…). */
  via: z.enum(['path', 'probe']).nullable(),
  /** How to get it, when missing. */
  fix: z.string().nullable(),
});
export type RuntimeTool = z.infer<typeof runtimeToolSchema>;

export const runtimeCheckSchema = z.object({
  ok: z.boolean(),
  tools: z.array(runtimeToolSchema),
  /** Human sentences: what is missing and how to get it, or why an installed agent cannot start. */
  problems: z.array(z.string()),
  warnings: z.array(z.string()),
});
export type RuntimeCheck = z.infer<typeof runtimeCheckSchema>;

const installResultSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('installed'), agent: installedAgentSchema }),
  z.object({ status: z.literal('cancelled') }),
]);
export type RegistryInstallResult = z.infer<typeof installResultSchema>;

const byId = z.object({ registryId: registryIdSchema }).strict();

export const registryRequests = {
  /** The registry as last loaded (fetched once if there is no copy at all) with install state. */
  'registry.list': request(z.object({}).strict(), registryListSchema),
  /** Fetches the registry now (conditional GET); a failure keeps the previous copy and is reported in source.error. */
  'registry.refresh': request(z.object({}).strict(), registryListSchema),
  /**
   * Installs the registry's current version; resolves when done (progress through registry.progress).
   * Failures are typed errors with a readable message (missing runtime, ETARGET, refused archive…).
   */
  'registry.install': request(z.object({ registryId: registryIdSchema, kind: distKindSchema.optional() }).strict(), installResultSchema),
  'registry.cancelInstall': request(byId, z.object({ cancelled: z.boolean() })),
  /** Installs the registry's newer version and switches to it; the current one is kept for rollback. */
  'registry.update': request(byId, installResultSchema),
  /** Switches back to the previous installed version (the newer one stays installed). */
  'registry.rollback': request(byId, z.object({ agent: installedAgentSchema })),
  /** Removes every installed version's files, the agents row and the overrides. */
  'registry.uninstall': request(byId, z.object({ removed: z.boolean() })),
  /** Stored separately from the install, so updates and rollbacks keep them. */
  'registry.setOverrides': request(
    z.object({ registryId: registryIdSchema, args: argsSchema.nullable(), env: envSchema }).strict(),
    z.object({ agent: installedAgentSchema.nullable() }),
  ),
  /** Without registryId: node, npm and uv. With it: what that agent needs to install or start. */
  'registry.runtimeCheck': request(z.object({ registryId: registryIdSchema.optional() }).strict(), runtimeCheckSchema),
  /** The entry's icon as sanitized SVG text (fills/strokes mapped to currentColor); null with the reason when unavailable. */
  'registry.icon': request(byId, z.object({ svg: z.string().nullable(), error: z.string().nullable() })),
} as const;

export const registryEvents = {
  'registry.progress': event(registryProgressSchema),
  /** Something changed (registry refreshed, agent installed/removed…): list again. The agents table changed too when registryId is set. */
  'registry.changed': event(
    z.object({
      reason: z.enum(['refreshed', 'installed', 'updated', 'rolledBack', 'uninstalled', 'overrides', 'relinked']),
      registryId: registryIdSchema.nullable(),
    }),
  ),
} as const;
