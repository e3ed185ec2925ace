/**
 * What is stored with a session in a container (the sessions table's `container` column, JSON): what its
 * container is made from and its whole fence, so that after a restart the same container is found again (by
 * the session's label) or made again with the same fence. The store is read as untrusted input.
 */
import { z } from 'zod';
import { containerSourceSchema, type ContainerChoice, type NetworkModeChoice } from '../../../shared/contract/containers';
import { DEFAULT_LIMITS, type Fence } from './fence';

export interface FenceDefaults {
  network: NetworkModeChoice;
  memoryMiB: number;
  cpus: number;
}

const storedSchema = z
  .object({
    v: z.literal(1),
    source: containerSourceSchema,
    fence: z
      .object({
        network: z.enum(['none', 'api', 'full']),
        allowHosts: z.array(z.string().max(253)).max(50),
        memoryBytes: z.number().int().positive(),
        cpus: z.number().positive(),
        pids: z.number().int().positive(),
        folders: z.array(z.string().min(1).max(4096)).min(1).max(65),
        readOnly: z.array(z.string().min(1).max(4096)).max(4).optional(),
      })
      .strict(),
    /** The agent's program files mounted read-only at their paths (agent-programs.ts), linked when the session was placed. */
    programs: z.array(z.string().min(1).max(4096)).max(2).optional(),
  })
  .strict();
export type StoredContainer = z.infer<typeof storedSchema>;

/**
 * The fence of a new session: the form's choice over Settings' defaults; its folders are the session's. The
 * `api` network's allow-list is the form's, or else `apiHosts` (the agent's API and Settings' extra hosts).
 */
export function resolveFence(choice: ContainerChoice, defaults: FenceDefaults, folders: readonly string[], apiHosts: readonly string[] = []): Fence {
  const network = choice.fence.network ?? defaults.network;
  return {
    network,
    allowHosts: network === 'api' ? [...new Set(choice.fence.allowHosts ?? apiHosts)] : [],
    memoryBytes: (choice.fence.memoryMiB ?? defaults.memoryMiB) * 1024 ** 2,
    cpus: choice.fence.cpus ?? defaults.cpus,
    pids: DEFAULT_LIMITS.pids,
    folders: [...folders],
  };
}

export function storeContainer(source: ContainerChoice['source'], fence: Fence): string {
  const { readOnly, programs, ...rest } = fence;
  return JSON.stringify({
    v: 1,
    source,
    fence: { ...rest, allowHosts: [...fence.allowHosts], folders: [...fence.folders], ...(readOnly ? { readOnly: [...readOnly] } : {}) },
    ...(programs?.length ? { programs: programs.map((p) => p.target) } : {}),
  } satisfies StoredContainer);
}

/** The stored container, or null when the text is not one (a damaged or foreign store). */
export function readStoredContainer(text: string | null): StoredContainer | null {
  if (!text || text.length > 256 * 1024) return null;
  try {
    const parsed = storedSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
