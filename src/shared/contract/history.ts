import { z } from 'zod';
import { importSourceIdSchema } from './history-import';
import type { ThreadEntry } from '../acp-thread/types';
import { storeStatusSchema } from './app';
import { event, request } from './define';

/**
 * Session history: the list of past sessions (grouped by project and agent), full-text search over
 * everything that was said and done in them, per-session operations and store backups.
 */

const sessionId = z.string().min(1).max(200);
const agentId = z.string().min(1).max(200);
const project = z.string().min(1).max(4096);
const timestamp = z.number().int().min(0);

/**
 * What one transcript row is (a search filter). Consecutive chunks of a message form one row. `entry`: a
 * thread entry kind without a row kind of its own (a notice, …). Every row that is a thread entry carries it.
 */
export const historyEntryKinds = ['prompt', 'user', 'agent', 'thought', 'tool', 'write', 'terminal', 'plan', 'stop', 'entry'] as const;
export const historyEntryKindSchema = z.enum(historyEntryKinds);
export type HistoryEntryKind = z.infer<typeof historyEntryKindSchema>;

/** Another session, by id and the title history shows for it (fork links). */
export const sessionLinkSchema = z.object({ id: z.string(), title: z.string() });
export type SessionLink = z.infer<typeof sessionLinkSchema>;

/**
 * A subagent session under a listed session (ACP subagents: a child, or a child's child): what the tree under
 * its parent shows. `status` is as stored; a child not live any more is ended whatever it says.
 */
export const historySubagentSchema = z.object({
  id: z.string(),
  /** The session that started it: the listed session, or another child of it. */
  parentId: z.string(),
  agentId: z.string(),
  /** What the agent called it; '' when it gave no title. */
  title: z.string(),
  status: z.string(),
  createdAt: z.number(),
  /** Time of its last message (or of its last state change when it has none). */
  lastActivityAt: z.number(),
  /** The sentence it was closed with (e.g. closed with its parent), kept across restarts; absent or null: none. */
  endedWhy: z.string().nullable().optional(),
  /** Started through its parent's delegation tools (a session of its own), not announced by its agent. */
  delegated: z.boolean().optional(),
});
export type HistorySubagent = z.infer<typeof historySubagentSchema>;

export const historySessionSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  /** The project: the session's working directory. */
  cwd: z.string(),
  /** What to show: the user's name for it, else the agent's title, else the first line of the first prompt. */
  title: z.string(),
  titleSource: z.enum(['custom', 'client', 'agent', 'prompt', 'none']),
  status: z.string(),
  pinned: z.boolean(),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** Time of the last message of the session (or updatedAt when it has none). */
  lastActivityAt: z.number(),
  deletedAt: z.number().nullable(),
  /** When the user archived it (History → Archive); null or absent: not archived. */
  archivedAt: z.number().nullable().optional(),
  messageCount: z.number().int(),
  turnCount: z.number().int(),
  toolCallCount: z.number().int(),
  failedToolCalls: z.number().int(),
  filesTouched: z.number().int(),
  filesEdited: z.number().int(),
  /** Turns that ended in an error, a refusal or a token/turn limit. */
  failedTurns: z.number().int(),
  lastStopReason: z.string().nullable(),
  /** The session this one was forked from (session/fork). */
  forkedFrom: sessionLinkSchema.nullable(),
  /** Sessions forked from this one (not deleted), oldest first. */
  forks: z.array(sessionLinkSchema),
  /** The agent's own tool this session was imported from (History → Import); null: Switchboard ran it. */
  importedFrom: importSourceIdSchema.nullable(),
  /** The host it ran on, and is continued on ('local': this machine; an imported session: the host whose store held it). */
  hostId: z.string(),
  /**
   * Its subagent sessions, children and their children, oldest first (bounded). Children are listed here,
   * under the session that started them, not as sessions of their own.
   */
  subagents: z.array(historySubagentSchema),
});
export type HistorySession = z.infer<typeof historySessionSchema>;

export const historyGroupSchema = z.object({
  cwd: z.string(),
  agentId: z.string(),
  sessionCount: z.number().int(),
  pinnedCount: z.number().int(),
  lastActivityAt: z.number(),
});
export type HistoryGroup = z.infer<typeof historyGroupSchema>;

export const indexingStatusSchema = z.object({
  /** False while messages written before the index existed are still being indexed. */
  done: z.boolean(),
  /** Messages of the log not indexed yet. */
  pendingMessages: z.number().int(),
});

const filters = {
  agentIds: z.array(agentId).max(100).optional(),
  projects: z.array(project).max(100).optional(),
  /** Inclusive lower / exclusive upper bound, ms since the epoch. */
  from: timestamp.optional(),
  to: timestamp.optional(),
  /** Only sessions (list) or entries (search) of turns that failed. */
  failedOnly: z.boolean().optional(),
};

export const highlightedTextSchema = z.object({
  /** Plain text, never HTML: render it as text. */
  text: z.string(),
  /** UTF-16 offsets into text of the matched terms, [start, end). */
  highlights: z.array(z.object({ start: z.number().int(), end: z.number().int() })),
});
export type HighlightedText = z.infer<typeof highlightedTextSchema>;

export const searchHitSchema = z.object({
  sessionId: z.string(),
  entryId: z.number().int(),
  /** Sequence number of the entry's first message: open the session scrolled to it (history.entries aroundSeq). */
  seq: z.number().int(),
  /** 'changes': the files a turn changed (its checkpoint), found by their paths; seq is the turn's prompt. */
  kind: z.union([historyEntryKindSchema, z.literal('title'), z.literal('changes')]),
  ts: z.number(),
  turn: z.number().int(),
  failed: z.boolean(),
  snippet: highlightedTextSchema,
  toolTitle: z.string().nullable(),
  session: z.object({ title: z.string(), agentId: z.string(), cwd: z.string() }),
  score: z.number(),
});
export type SearchHit = z.infer<typeof searchHitSchema>;

const toolTerminalSchema = z.object({
  terminalId: z.string(),
  output: z.string(),
  exitCode: z.number().nullable(),
  signal: z.string().nullable(),
  truncated: z.boolean(),
});

/** A thread entry as src/shared/acp-thread builds it (already sanitized there: checked here by shape only). */
const threadEntrySchema = z.custom<ThreadEntry>((v) => typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string');

export const historyEntrySchema = z.object({
  id: z.number().int(),
  seq: z.number().int(),
  lastSeq: z.number().int(),
  ts: z.number(),
  /** 0 before the first prompt, then 1, 2, … */
  turn: z.number().int(),
  kind: historyEntryKindSchema,
  failed: z.boolean(),
  /** The message text (prompt, user/agent message, thought), or the entry's text in words for other kinds. */
  text: z.string(),
  /**
   * The thread entry, as the shared thread model (src/shared/acp-thread) folds it, within the index's size
   * limits: drawn by the same views as a live session. Absent for what the log holds beside the thread.
   */
  entry: threadEntrySchema.optional(),
  /** A file the agent wrote through the client (fs/write_text_file). */
  write: z.object({ path: z.string(), content: z.string(), truncated: z.boolean() }).optional(),
  /** Output of a client terminal no tool call shows. */
  terminal: toolTerminalSchema.optional(),
  /** A turn that ended as the user stopped it or at a limit (a failed one is a turn_error entry). */
  stop: z.object({ stopReason: z.string().nullable() }).optional(),
  /**
   * The live prompt id of the entry's turn (checkpoints.listTurns' promptId), known once the turn's
   * checkpoint was recorded: how a transcript finds each turn's changes.
   */
  promptId: z.string().optional(),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

export const backupInfoSchema = z.object({
  /** File name inside the backups folder. */
  id: z.string(),
  createdAt: z.number(),
  bytes: z.number().int(),
});
export type BackupInfo = z.infer<typeof backupInfoSchema>;

const backupId = z.string().regex(/^switchboard-\d{8}T\d{9}Z\.db$/, 'not a backup name');
const sessionIds = z.array(sessionId).min(1).max(1000);

export const historyRequests = {
  /** Sessions, pinned first then by last activity, plus every (project, agent) group with counts. */
  'history.list': request(
    z
      .object({
        ...filters,
        pinnedOnly: z.boolean().optional(),
        /** List the soft-deleted sessions instead (the trash, for undo). */
        deleted: z.boolean().optional(),
        /** Archived sessions: left out (default), listed too, or listed alone (the "Archived" filter). */
        archived: z.enum(['exclude', 'include', 'only']).optional(),
        limit: z.number().int().min(1).max(1000).default(200),
        offset: z.number().int().min(0).default(0),
      })
      .strict(),
    z.object({
      groups: z.array(historyGroupSchema),
      sessions: z.array(historySessionSchema),
      total: z.number().int(),
      indexing: indexingStatusSchema,
    }),
  ),
  /**
   * Full-text search. Every word is matched as a prefix (`auth fi` finds "authentication fixed"); any text is a
   * valid query. Best matches first (relevance and recency); at most `perSession` hits per session.
   */
  'history.search': request(
    z
      .object({
        query: z.string().max(1000),
        ...filters,
        sessionId: sessionId.optional(),
        kinds: z.array(z.union([historyEntryKindSchema, z.literal('title'), z.literal('changes')])).max(20).optional(),
        limit: z.number().int().min(1).max(200).default(20),
        perSession: z.number().int().min(1).max(50).default(3),
      })
      .strict(),
    z.object({
      hits: z.array(searchHitSchema),
      /** Only the most recent matches were ranked (a very common query); narrow it to see older ones. */
      truncated: z.boolean(),
      indexing: indexingStatusSchema,
    }),
  ),
  /** null resets to the automatic title. */
  'history.rename': request(
    z.object({ sessionId, title: z.string().max(500).nullable() }).strict(),
    z.object({ session: historySessionSchema }),
  ),
  'history.pin': request(z.object({ sessionId, pinned: z.boolean() }).strict(), z.object({ session: historySessionSchema })),
  /** Soft delete: hidden at once, purged for good after the retention period unless undone. */
  'history.delete': request(
    z.object({ sessionIds }).strict(),
    z.object({ deleted: z.array(z.string()), purgeAfter: z.number() }),
  ),
  /** Archives or unarchives sessions in Switchboard's store (sessions.archiveOnAgent follows at the agent). */
  'history.archive': request(z.object({ sessionIds, archived: z.boolean() }).strict(), z.object({ changed: z.array(z.string()) })),
  'history.undoDelete': request(z.object({ sessionIds }).strict(), z.object({ restored: z.array(z.string()) })),
  /** A whole session from its message log, as Markdown or JSON, with a suggested file name. */
  'history.export': request(
    z.object({ sessionId, format: z.enum(['markdown', 'json']) }).strict(),
    z.object({ text: z.string(), fileName: z.string(), mimeType: z.string() }),
  ),
  /**
   * A page of a session's transcript entries for a virtualized view. With aroundSeq the page is the one
   * holding the entry of that message (e.g. a search hit) and targetIndex is that entry's index.
   */
  'history.entries': request(
    z
      .object({
        sessionId,
        offset: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(500).default(100),
        aroundSeq: z.number().int().min(0).optional(),
      })
      .strict(),
    z.object({
      total: z.number().int(),
      offset: z.number().int(),
      entries: z.array(historyEntrySchema),
      targetIndex: z.number().int().nullable(),
    }),
  ),
  /** Automatic daily backups of the store (newest first); available while the store is broken. */
  'store.backups.list': request(z.object({}).strict(), z.object({ dir: z.string(), backups: z.array(backupInfoSchema) })),
  'store.backups.create': request(z.object({}).strict(), z.object({ backup: backupInfoSchema })),
  /**
   * Replaces the store with a backup. The current file is kept beside it (movedTo). Other services hold the
   * old connection: the app should restart when restartRequired.
   */
  'store.backups.restore': request(
    z.object({ id: backupId }).strict(),
    z.object({ store: storeStatusSchema, movedTo: z.string().nullable(), restartRequired: z.boolean() }),
  ),
} as const;

export const historyEvents = {
  /** Sessions were renamed, pinned, deleted, restored or purged (refresh the list). */
  'history.changed': event(
    z.object({ sessionIds: z.array(z.string()), reason: z.enum(['rename', 'pin', 'delete', 'undo', 'purge', 'import', 'archive', 'unarchive']) }),
  ),
} as const;
