import { z } from 'zod';
import { event, request } from './define';

/**
 * Importing the agents' own histories (the sessions their command-line tools stored before and beside
 * Switchboard) into History: found, imported with progress, kept up to date while the switch is on.
 */

export const importSourceIds = ['claude-code', 'codex', 'gemini-cli', 'qwen-code', 'opencode'] as const;
export const importSourceIdSchema = z.enum(importSourceIds);
export type ImportSourceId = z.infer<typeof importSourceIdSchema>;

export const importSourceNames: Record<ImportSourceId, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'gemini-cli': 'Gemini CLI',
  'qwen-code': 'Qwen Code',
  opencode: 'OpenCode',
};

/** The agent id an imported session has while no configured agent can continue it. */
export const unboundAgentId = (source: ImportSourceId): string => `cli:${source}`;

/** The tool named by an unbound agent id, else null. */
export function unboundSource(agentId: string): ImportSourceId | null {
  const m = /^cli:(.+)$/.exec(agentId);
  const parsed = m ? importSourceIdSchema.safeParse(m[1]) : null;
  return parsed?.success ? parsed.data : null;
}

/** What was found of one agent's store on this machine. */
export const importSourceSummarySchema = z.object({
  source: importSourceIdSchema,
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
  sources: z.array(importSourceIdSchema),
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

const sources = z.array(importSourceIdSchema).min(1).max(importSourceIds.length);

export const historyImportRequests = {
  /** Finds each agent's store and says what is in it (nothing is read but folder listings and sizes). */
  'historyImport.scan': request(z.object({}).strict(), z.object({ sources: z.array(importSourceSummarySchema) })),
  /** Imports what is new in these stores (only files that changed since the last import are read). */
  'historyImport.start': request(z.object({ sources }).strict(), z.object({ progress: importProgressSchema })),
  'historyImport.cancel': request(z.object({}).strict(), z.object({ progress: importProgressSchema })),
  'historyImport.status': request(z.object({}).strict(), z.object({ progress: importProgressSchema })),
} as const;

export const historyImportEvents = {
  'historyImport.progress': event(importProgressSchema),
} as const;
