import { z } from 'zod';
import { event, request } from './define';

/**
 * Checkpoints: a snapshot of each session folder before and after every turn, whoever wrote the files
 * (the agent's own tools, a shell command, the user). Review a turn's changes, revert a hunk, a file or
 * a turn, rewind a folder to before a turn, and undo any of those.
 */

const id = z.string().min(1).max(100);
const relPath = z.string().min(1).max(4096);

/** Whether checkpoints can be taken at all (they need the `git` binary). */
export const checkpointStatusSchema = z.discriminatedUnion('available', [
  z.object({ available: z.literal(true), gitVersion: z.string() }),
  z.object({ available: z.literal(false), reason: z.enum(['git_missing', 'git_too_old']), message: z.string() }),
]);
export type CheckpointStatus = z.infer<typeof checkpointStatusSchema>;

export const changedFileSchema = z.object({
  path: z.string(),
  /** For renames: where the file was. */
  oldPath: z.string().nullable(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  kind: z.enum(['file', 'symlink']),
  /** Line counts; 0 for binary and too-large files. */
  additions: z.number().int(),
  deletions: z.number().int(),
  binary: z.boolean(),
  /** Over the size cap: recorded as changed (path, size) but its content was not kept; cannot be reverted. */
  tooLarge: z.boolean(),
  /**
   * Ignored (the folder's .gitignore as it was before the turn) or inside .git: recorded as changed (path,
   * size) but its content was not kept. Rewinding a turn that added it removes it.
   */
  ignored: z.boolean().default(false),
  /** Set when this change can make tools run code (a git hook or config, .envrc, editor tasks, package scripts): why. */
  flag: z.string().nullable().default(null),
  /** Bytes before and after (null where the file did not exist). */
  oldSize: z.number().int().nullable(),
  newSize: z.number().int().nullable(),
});
export type ChangedFile = z.infer<typeof changedFileSchema>;

export const changeSummarySchema = z.object({
  added: z.number().int(),
  modified: z.number().int(),
  deleted: z.number().int(),
  renamed: z.number().int(),
  additions: z.number().int(),
  deletions: z.number().int(),
  /** Files listed as ignored (content not kept). */
  ignored: z.number().int().default(0),
  /** Files whose change can make tools run code (see changedFileSchema.flag). */
  flagged: z.number().int().default(0),
});
export type ChangeSummary = z.infer<typeof changeSummarySchema>;

export const changeSetSchema = z.object({
  /** Checkpoint ids: the change set is what happened between them. Pass them to fileDiff and revert. */
  from: z.string(),
  to: z.string(),
  summary: changeSummarySchema,
  files: z.array(changedFileSchema),
  /** More files changed than listed (the listing is capped). */
  truncated: z.boolean(),
});
export type ChangeSet = z.infer<typeof changeSetSchema>;

export const turnCheckpointSchema = z.object({
  /** One per turn and folder (a session with additional folders has several per turn). */
  id: z.string(),
  sessionId: z.string(),
  promptId: z.string(),
  folderId: z.string(),
  folder: z.string(),
  /** The folder is gone from disk (a past session's): its changes can be reviewed, not restored. */
  folderMissing: z.boolean(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  /**
   * The turn did not wait for its "before" snapshot to finish (a huge folder's first snapshot takes long):
   * what the agent wrote in its first moments may be counted as before the turn.
   */
  beforeLate: z.boolean(),
  /** running: the turn is still going; recording: the "after" snapshot is being taken; failed: see error. */
  state: z.enum(['running', 'recording', 'recorded', 'failed']),
  error: z.string().nullable(),
  /** Null until the turn is recorded. */
  changes: changeSetSchema.nullable(),
  /**
   * Other sessions that had a turn in the same folder at the same time: their changes may be mixed in. Empty
   * when this turn changed nothing (nothing to mix up).
   */
  overlaps: z.array(z.object({ sessionId: z.string(), label: z.string() })),
  /** A restore about this turn (its rewind, its revert) was cut short and finished at the next start: what happened. */
  notice: z.string().nullable().default(null),
});
export type TurnCheckpoint = z.infer<typeof turnCheckpointSchema>;

export const hunkSchema = z.object({
  index: z.number().int(),
  oldStart: z.number().int(),
  oldLines: z.number().int(),
  newStart: z.number().int(),
  newLines: z.number().int(),
});
export type Hunk = z.infer<typeof hunkSchema>;

export const fileDiffSchema = z.object({
  file: changedFileSchema,
  /** Null for binary, too large or absent sides. */
  oldText: z.string().nullable(),
  newText: z.string().nullable(),
  /** Line hunks (zero context), indexed for checkpoints.revert's hunk scope. Empty for binary files. */
  hunks: z.array(hunkSchema),
});
export type FileDiff = z.infer<typeof fileDiffSchema>;

export const restoreReportSchema = z.object({
  /** The restore, itself a checkpoint pair: pass it to checkpoints.undoRestore. Null when nothing changed. */
  restoreId: z.string().nullable(),
  applied: z.array(z.object({ path: z.string(), action: z.enum(['written', 'removed', 'merged']) })),
  /** Files left as they are, each with the reason (changed since, too large to keep, not a regular file…). */
  refused: z.array(
    z.object({
      path: z.string(),
      reason: z.string(),
      /**
       * Set when the file was changed since (by the user, or a later turn) and putting it back anyway is the
       * user's choice (pass the path in `overwrite`): the lines that would be lost (bounded; none for a binary
       * file or one deleted since), and how many more there are.
       */
      choice: z.object({ lines: z.array(z.string()), more: z.number().int() }).optional(),
    }),
  ),
});
export type RestoreReport = z.infer<typeof restoreReportSchema>;

export const restoreSchema = z.object({
  id: z.string(),
  folderId: z.string(),
  kind: z.enum(['revert', 'rewind', 'undo']),
  label: z.string(),
  createdAt: z.number(),
  /** Set when undone (by the undo restore with this id). */
  undoneBy: z.string().nullable(),
  report: restoreReportSchema,
  /** Set when the restore was cut short (Switchboard stopped mid-way) and finished at the next start: what happened. */
  notice: z.string().nullable().default(null),
});
export type Restore = z.infer<typeof restoreSchema>;

export const checkpointFolderSchema = z.object({
  id: z.string(),
  path: z.string(),
  /** Bytes the folder's checkpoints take on disk. */
  bytes: z.number().int(),
  checkpoints: z.number().int(),
  oldestAt: z.number().nullable(),
  newestAt: z.number().nullable(),
});
export type CheckpointFolder = z.infer<typeof checkpointFolderSchema>;

const revertScope = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('all') }).strict(),
  z.object({ kind: z.literal('file'), path: relPath }).strict(),
  z.object({ kind: z.literal('hunk'), path: relPath, hunk: z.number().int().min(0) }).strict(),
]);

/** A turn's changed files by the subagent session whose tool calls wrote them (shared: two children wrote it). */
export const childChangesSchema = z.object({
  children: z.array(
    z.object({
      childId: z.string(),
      title: z.string(),
      files: z.array(z.object({ path: z.string(), sharedWith: z.array(z.object({ childId: z.string(), title: z.string() })) })),
    }),
  ),
});
export type ChildChanges = z.infer<typeof childChangesSchema>;
/** Paths changed since that the user chose to put back anyway, losing what they hold now (see refused[].choice). */
const overwritePaths = z.array(relPath).max(10_000).optional();

export const checkpointRequests = {
  'checkpoints.status': request(z.object({}).strict(), checkpointStatusSchema),
  /** A session's turns, newest last, each with its change set once recorded. */
  'checkpoints.listTurns': request(z.object({ sessionId: id }).strict(), z.object({ turns: z.array(turnCheckpointSchema) })),
  /**
   * Everything a session changed, per folder: from before its first turn to the folder now (to after its last
   * turn while a turn runs there). `editedSince`: files changed after the agent's last turn (a revert, a hand edit).
   */
  'checkpoints.sessionChanges': request(
    z.object({ sessionId: id }).strict(),
    z.object({
      folders: z.array(z.object({ folderId: z.string(), folder: z.string(), folderMissing: z.boolean(), changes: changeSetSchema, editedSince: z.array(z.string()) })),
    }),
  ),
  /** One file's content on both sides of a change set, with its hunks. */
  'checkpoints.fileDiff': request(z.object({ from: id, to: id, path: relPath }).strict(), fileDiffSchema),
  /**
   * Undoes what happened between two checkpoints of a folder (a turn: its `changes.from`/`to`), all of it,
   * one file or one hunk. The agent's turns in between are undone and every other change kept (the user's own
   * edits): merged where clean, otherwise refused with the lines that would be lost, for the user to choose.
   */
  'checkpoints.revert': request(z.object({ from: id, to: id, scope: revertScope, overwrite: overwritePaths }).strict(), restoreReportSchema),
  /** Which of a turn's changes its subagent sessions made (by their tool calls' locations inside the turn). */
  'checkpoints.childChanges': request(z.object({ sessionId: id, turnId: id }).strict(), childChangesSchema),
  /**
   * Reverts the hunks a child made in a turn, as the hunk revert does, one restore each (undoable); a file two
   * children wrote is reverted only in the hunks told apart as this child's, the rest refused with the reason.
   */
  'checkpoints.revertChild': request(
    z.object({ sessionId: id, turnId: id, childId: id }).strict(),
    z.object({ reports: z.array(restoreReportSchema), refused: z.array(z.object({ path: z.string(), reason: z.string() })) }),
  ),
  /**
   * Puts the folder back as it was before the turn (refused while a turn runs in the folder), undoing the agent's
   * turns since and keeping the user's own later edits (merged, else refused with a choice).
   */
  'checkpoints.rewind': request(z.object({ turnId: id, overwrite: overwritePaths }).strict(), restoreReportSchema),
  'checkpoints.undoRestore': request(z.object({ restoreId: id }).strict(), restoreReportSchema),
  'checkpoints.listRestores': request(z.object({ folderId: id }).strict(), z.object({ restores: z.array(restoreSchema) })),
  /** Folders with checkpoints and the disk they use. */
  'checkpoints.folders': request(z.object({}).strict(), z.object({ folders: z.array(checkpointFolderSchema) })),
  'checkpoints.deleteFolder': request(z.object({ folderId: id }).strict(), z.object({})),
  /** Applies the retention settings now (it also runs by itself). */
  'checkpoints.prune': request(z.object({}).strict(), z.object({ removedCheckpoints: z.number().int() })),
} as const;

export const checkpointEvents = {
  /**
   * Switchboard snapshots a session's folder: in the background when the session opens (`background`), before a
   * turn while the prompt waits (`before_turn`, at most a while), or still the first one when a turn went ahead
   * of it (`turn_went`). Shown as Switchboard's work, not the agent's. `files`: how many it holds (null until
   * known); `percent`: how far (null until known); `done` ends it.
   */
  'checkpoints.snapshotting': event(
    z.object({
      sessionId: z.string(),
      folder: z.string(),
      files: z.number().int().nullable(),
      percent: z.number().int().min(0).max(100).nullable().optional(),
      phase: z.enum(['background', 'before_turn', 'turn_went']).optional(),
      startedAt: z.number(),
      done: z.boolean(),
    }),
  ),
  /** A turn's checkpoints changed state, or a restore happened in a folder. */
  'checkpoints.changed': event(z.object({ folderId: z.string(), sessionId: z.string().nullable(), turnId: z.string().nullable() })),
} as const;
