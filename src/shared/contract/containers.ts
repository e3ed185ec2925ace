import { z } from 'zod';
import { absolutePathSchema, event, request } from './define';
import { machineHostIdSchema } from './hosts';

/**
 * Sessions in containers (issue 38): a session's agent, terminals and tools run inside a container made for it
 * (from the repository's devcontainer.json, or from an image) on this machine or an SSH host, behind a fence:
 * only the session's folders mounted, the network chosen, memory and CPUs limited. The host id of such a session
 * is `container:<session id>@<host id>` (hosts.ts).
 */

/** An image reference as engines take it (no option, no space): `name[:tag][@digest]`. */
export const imageRefSchema = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/:@+-]*$/, 'not an image name: letters, digits and . _ / : @ + - only, not starting with a sign');

export const networkModeSchema = z.enum(['none', 'api', 'full']);
export type NetworkModeChoice = z.infer<typeof networkModeSchema>;

/** What a container is made from. `allow`: ids of the repository's fence-lowering settings the user allows. */
export const containerSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('repo'), allow: z.array(z.string().min(1).max(200)).max(50).default([]) }).strict(),
  z.object({ kind: z.literal('image'), image: imageRefSchema }).strict(),
]);
export type ContainerSourceChoice = z.infer<typeof containerSourceSchema>;

/** An entry of the `api` network's allow-list: `name` (port 443), `name:port`, or `*.suffix`. */
export const allowHostSchema = z
  .string()
  .trim()
  .min(1)
  .max(260)
  .regex(/^(\*\.)?[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/, 'not a host: a name, name:port or *.suffix');

/** The fence asked for; what is left out comes from Settings → Containers. */
export const fenceChoiceSchema = z
  .object({
    network: networkModeSchema.optional(),
    /** For `api`: the hosts the container may reach (`name` on 443, `name:port`, `*.suffix`). */
    allowHosts: z.array(allowHostSchema).max(50).optional(),
    memoryMiB: z.number().int().min(64).max(1024 * 1024).optional(),
    cpus: z.number().min(0.1).max(512).optional(),
  })
  .strict();
export type FenceChoice = z.infer<typeof fenceChoiceSchema>;

/** `sessions.create`'s `container`: the session runs in a container on `hostId` (this machine or an SSH host). */
export const containerChoiceSchema = z.object({ source: containerSourceSchema, fence: fenceChoiceSchema.default({}) }).strict();
export type ContainerChoice = z.infer<typeof containerChoiceSchema>;

/** The fence of a session as it is: each setting, and whether the engine enforces it. */
export const fenceViewSchema = z.object({
  network: networkModeSchema,
  /** For `api`: the hosts it may reach. */
  allowHosts: z.array(z.string()),
  memoryMiB: z.number(),
  cpus: z.number(),
  engine: z.string(),
  settings: z.array(z.object({ setting: z.string(), enforced: z.boolean(), how: z.string() })),
});
export type FenceView = z.infer<typeof fenceViewSchema>;

export const policyItemSchema = z.object({ id: z.string(), key: z.string(), detail: z.string(), why: z.string(), verdict: z.enum(['refused', 'ask']) });
export type PolicyItemView = z.infer<typeof policyItemSchema>;

/** A folder's devcontainer.json as the new-session form shows it before the first start. */
export const repoContainerSchema = z.object({
  file: z.string(),
  source: z.string(),
  features: z.array(z.string()),
  commands: z.array(z.object({ name: z.string(), command: z.string() })),
  /** Its settings that would lower the fence: refused, or run only once allowed (`allowed`: allowed already). */
  items: z.array(policyItemSchema.extend({ allowed: z.boolean() })),
});
export type RepoContainer = z.infer<typeof repoContainerSchema>;

export const engineStatusSchema = z.object({
  hostId: z.string(),
  /** The engine in use ('podman 4.3.1'), or null with `problem` saying what to install or start. */
  engine: z.string().nullable(),
  problem: z.string().nullable(),
});
export type EngineStatus = z.infer<typeof engineStatusSchema>;

export const containerRowSchema = z.object({
  hostId: z.string(),
  id: z.string(),
  name: z.string(),
  sessionId: z.string(),
  state: z.enum(['running', 'stopped', 'other']),
  sizeBytes: z.number().nullable(),
  image: z.string(),
});
export type ContainerRow = z.infer<typeof containerRowSchema>;

const onHost = z.object({ hostId: machineHostIdSchema.default('local') }).strict();
const oneContainer = z.object({ hostId: machineHostIdSchema.default('local'), id: z.string().min(1).max(200) }).strict();

export const containerRequests = {
  /** The engine on a host, or why there is none usable (one sentence with what to install or start). */
  'containers.engine': request(onHost, engineStatusSchema),
  /** The folder's devcontainer.json (null when it has none), summarised, with its fence-lowering settings. */
  'containers.repoConfig': request(z.object({ hostId: machineHostIdSchema.default('local'), folder: absolutePathSchema }).strict(), z.object({ config: repoContainerSchema.nullable() })),
  /** Switchboard's containers on a host (never one the user made). */
  'containers.list': request(onHost, z.object({ containers: z.array(containerRowSchema) })),
  'containers.stop': request(oneContainer, z.object({})),
  'containers.remove': request(oneContainer, z.object({})),
  /** The hosts of an agent's API: the allow-list offered for the network "only the agent's API". */
  'containers.apiHosts': request(z.object({ agentId: z.string().min(1).max(200) }).strict(), z.object({ hosts: z.array(z.string()) })),
  /** The fence of a container session, as enforced. */
  'containers.fence': request(z.object({ sessionId: z.string().min(1).max(200) }).strict(), z.object({ fence: fenceViewSchema.nullable() })),
} as const;

export const containerEvents = {
  /** A session's container is being made or started: the dev container CLI's progress, a line at a time. */
  'containers.progress': event(z.object({ sessionId: z.string(), line: z.string() })),
} as const;

/** Per repository (its folder): the default image, and the fence-lowering settings the user allowed. */
export const repoContainerSettingSchema = z
  .object({
    image: imageRefSchema.optional(),
    allow: z.array(z.string().min(1).max(200)).max(50).optional(),
  })
  .strict();
export const containerReposSettingSchema = z.record(absolutePathSchema, repoContainerSettingSchema).refine((r) => Object.keys(r).length <= 500, 'at most 500 repositories');
