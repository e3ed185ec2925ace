import { z } from 'zod';
import { event, request } from './define';
import { LOCAL_HOST_ID, sshTargetOf } from './hosts';
import { importSourceIds, type ImportSourceId } from '../import-sources';

/**
 * Importing the agents' own histories (the sessions their command-line tools stored before and beside
 * Switchboard) into History: found, imported with progress, kept up to date while the switch is on.
 */

export { importSourceIds, importSourceNames, type ImportSourceId } from '../import-sources';
export const importSourceIdSchema = z.enum(importSourceIds);

/** The agent id an imported session has while no configured agent can continue it. */
export const unboundAgentId = (source: ImportSourceId): string => `cli:${source}`;

/** The tool named by an unbound agent id, else null. */
export function unboundSource(agentId: string): ImportSourceId | null {
  const m = /^cli:(.+)$/.exec(agentId);
  const parsed = m ? importSourceIdSchema.safeParse(m[1]) : null;
  return parsed?.success ? parsed.data : null;
}

/**
 * One agent's store on one host, as Import, its switches and its runs name it: the agent's id for this
 * machine's store, `<agent>@<host id>` for an SSH host's (`claude-code@ssh:devbox`).
 */
export const importTargetKey = (source: ImportSourceId, hostId: string): string => (hostId === LOCAL_HOST_ID ? source : `${source}@${hostId}`);

export function parseImportTarget(key: string): { source: ImportSourceId; hostId: string } | null {
  const at = key.indexOf('@');
  const source = importSourceIdSchema.safeParse(at < 0 ? key : key.slice(0, at));
  if (!source.success) return null;
  if (at < 0) return { source: source.data, hostId: LOCAL_HOST_ID };
  const hostId = key.slice(at + 1);
  return sshTargetOf(hostId) !== null ? { source: source.data, hostId } : null;
}

export const importTargetSchema = z
  .string()
  .max(450)
  .refine((k) => parseImportTarget(k) !== null, 'must be an agent\'s store: "claude-code", or "claude-code@ssh:<host>"');

/** What was found of one agent's store on this machine or on a connected SSH host. */
export const importSourceSummarySchema = z.object({
  source: importSourceIdSchema,
  /** The store's key (importTargetKey): what the switch and Import name it by. */
  key: z.string(),
  /** The host it is on ('local': this machine), and what the user calls that host. */
  hostId: z.string(),
  hostLabel: z.string(),
  /** The agent's name, as the user knows it. */
  name: z.string(),
  /** Where its sessions are (a folder, or OpenCode's database). */
  location: z.string(),
  found: z.boolean(),
  sessions: z.number().int(),
  bytes: z.number(),
  /** Oldest and newest session activity, ms since the epoch (null when nothing was found). */
  from: z.number().nullable(),
  to: z.number().nullable(),
  /** Sessions already in History from this store. */
  imported: z.number().int(),
  /** Whether new sessions and new lines are picked up as the agent writes them (the setting history.importKeep). */
  keepImporting: z.boolean(),
});
export type ImportSourceSummary = z.infer<typeof importSourceSummarySchema>;

export const importSkipSchema = z.object({ path: z.string(), reason: z.string() });
export type ImportSkip = z.infer<typeof importSkipSchema>;

export const importProgressSchema = z.object({
  running: z.boolean(),
  /** The stores' keys (importTargetKey). */
  sources: z.array(z.string()),
  filesDone: z.number().int(),
  filesTotal: z.number().int(),
  bytesDone: z.number(),
  bytesTotal: z.number(),
  /** Sessions added or extended by this run. */
  sessions: z.number().int(),
  /** Entries of a format newer than the parser knows, kept as text. */
  keptAsText: z.number().int(),
  /** Files, lines or sessions left out, with the reason (the first 200). */
  skipped: z.array(importSkipSchema),
  skippedCount: z.number().int(),
  cancelled: z.boolean(),
  /** Why the run stopped early, in a sentence. */
  error: z.string().nullable(),
});
export type ImportProgress = z.infer<typeof importProgressSchema>;

const sources = z.array(importTargetSchema).min(1).max(200);

export const historyImportRequests = {
  /** Finds each agent's store, here and on each connected SSH host, and says what is in it (nothing is read but folder listings and sizes). */
  'historyImport.scan': request(z.object({}).strict(), z.object({ sources: z.array(importSourceSummarySchema) })),
  /** Imports what is new in these stores (only files that changed since the last import are read). */
  'historyImport.start': request(z.object({ sources }).strict(), z.object({ progress: importProgressSchema })),
  'historyImport.cancel': request(z.object({}).strict(), z.object({ progress: importProgressSchema })),
  'historyImport.status': request(z.object({}).strict(), z.object({ progress: importProgressSchema })),
  /**
   * The set-up agent that continues an imported session (reopened through ACP with the tool's own session id):
   * the session is bound to it, and the choice is remembered for the tool's other sessions (setting
   * history.importAgents).
   */
  'historyImport.chooseAgent': request(z.object({ sessionId: z.string().min(1).max(200), agentId: z.string().min(1).max(500) }).strict(), z.object({ agentId: z.string() })),
} as const;

export const historyImportEvents = {
  'historyImport.progress': event(importProgressSchema),
} as const;
