import { z } from 'zod';
import { absolutePathSchema, event, request } from './define';
import { machineHostIdSchema } from './hosts';
import { visiblePromptText } from '../prompt-words';

/**
 * Worktree sessions: a session that works in its own git worktree on its own branch, and the way back from
 * it (commit, merge into its base, push, pull request, discard). A worktree is a place; the session started
 * there is an ordinary session whose folder is the worktree. Every operation names the worktree by its path.
 *
 * Expected failures (a conflict, a hook that said no, a rejected push…) are values of `worktreeErrorSchema`
 * inside an `{ ok: false }` outcome, so that the renderer can show what happened (the conflicting files, the
 * hook's output); a malformed request is still an IPC error.
 */

const path = absolutePathSchema;
/** A path relative to the worktree ('/'-separated). */
const relPath = z.string().min(1).max(4096);
function isBranchName(name: string): boolean {
  for (const ch of name) if (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) return false;
  return !/[\s~^:?*[\\]|\.\.|\/\/|@\{|^[-/.]|[/.]$|\.lock$|\/\./.test(name);
}

/** A branch name as git accepts it (checked again by `git check-ref-format` in the main process). */
export const branchNameSchema = z
  .string()
  .min(1)
  .max(200)
  .refine(isBranchName, 'not a valid branch name');

export const mergeStrategies = ['ff', 'merge', 'squash', 'rebase'] as const;
export const mergeStrategySchema = z.enum(mergeStrategies);
export type MergeStrategy = z.infer<typeof mergeStrategySchema>;

export const commitSchema = z.object({ sha: z.string(), subject: z.string() });
export type CommitRef = z.infer<typeof commitSchema>;

/** Why a worktree operation did not happen. Nothing was changed unless the kind says otherwise. */
export const worktreeErrorSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('not_a_repo'), path: z.string(), message: z.string() }),
  /** The path is not a worktree Switchboard knows (create it, or pick it as an existing worktree, first). */
  z.object({ kind: z.literal('unknown_worktree'), path: z.string() }),
  /** A worktree path outside the folder chosen for worktrees (setting worktrees.folder). */
  z.object({ kind: z.literal('outside_folder'), path: z.string(), folder: z.string() }),
  z.object({ kind: z.literal('branch_exists'), branch: z.string() }),
  z.object({ kind: z.literal('invalid_branch'), branch: z.string(), message: z.string() }),
  z.object({ kind: z.literal('no_base'), base: z.string() }),
  z.object({ kind: z.literal('path_exists'), path: z.string() }),
  /** The merge would conflict: refused, nothing touched. */
  z.object({ kind: z.literal('conflict'), files: z.array(z.string()), base: z.string(), branch: z.string() }),
  /** Uncommitted changes in the way (in `path`): git refused, nothing touched. */
  z.object({ kind: z.literal('dirty'), path: z.string(), files: z.array(z.string()) }),
  z.object({ kind: z.literal('not_fast_forward'), base: z.string(), branch: z.string() }),
  z.object({ kind: z.literal('nothing_to_commit') }),
  z.object({ kind: z.literal('nothing_to_merge'), base: z.string(), branch: z.string() }),
  z.object({ kind: z.literal('no_remote'), message: z.string() }),
  /** The remote refused the push (never forced). */
  z.object({ kind: z.literal('push_rejected'), output: z.string() }),
  /** Commits were made (or, for a leftover, files changed) since the removal was confirmed: confirm again. */
  z.object({ kind: z.literal('changed_since_confirmation'), unmerged: z.array(commitSchema), files: z.array(z.object({ path: z.string(), code: z.string() })).optional() }),
  /** The session's agent was asked for a draft and gave none (its turn failed, or its reply held no title). */
  z.object({ kind: z.literal('no_draft'), message: z.string() }),
  /**
   * git (or gh) failed. `hook`: a hook that git runs for this operation is installed (its output is in `output`, which is
   * what git and the hook printed).
   */
  z.object({ kind: z.literal('git_failed'), command: z.string(), output: z.string(), hook: z.string().nullable() }),
]);
export type WorktreeError = z.infer<typeof worktreeErrorSchema>;

const outcome = <T extends z.ZodType>(value: T) =>
  z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), value }), z.object({ ok: z.literal(false), error: worktreeErrorSchema })]);
export type WorktreeOutcome<T> = { ok: true; value: T } | { ok: false; error: WorktreeError };

export const worktreeFileSchema = z.object({
  path: z.string(),
  /** git status's two letters (index, worktree): 'M ', ' M', '??', 'A ', 'D ', 'UU'… */
  code: z.string().max(2),
});
export type WorktreeFile = z.infer<typeof worktreeFileSchema>;

/** A worktree of a repository (the main checkout is one too). */
export const worktreeEntrySchema = z.object({
  path: z.string(),
  /** Null: a detached HEAD. */
  branch: z.string().nullable(),
  head: z.string(),
  main: z.boolean(),
  /** Made by (or picked in) Switchboard: it has a base and the Finish actions. */
  managed: z.boolean(),
});
export type WorktreeEntry = z.infer<typeof worktreeEntrySchema>;

export const repoBranchesSchema = z.object({
  /** The main checkout's top folder. */
  repo: z.string(),
  /** The branch checked out in the main checkout (null: detached). */
  currentBranch: z.string().nullable(),
  branches: z.array(z.object({ name: z.string(), head: z.string(), worktree: z.string().nullable() })),
  worktrees: z.array(worktreeEntrySchema),
  /** Where a new worktree of this repository goes (setting worktrees.folder). */
  folder: z.string(),
});
export type RepoBranches = z.infer<typeof repoBranchesSchema>;

/** A worktree session's place: what the header and the sidebar show. */
export const worktreeInfoSchema = z.object({
  path: z.string(),
  repo: z.string(),
  branch: z.string(),
  base: z.string(),
  createdAt: z.number(),
  /** The machine the worktree is on: 'local' or an SSH host ('ssh:…'). */
  hostId: z.string(),
});
export type WorktreeInfo = z.infer<typeof worktreeInfoSchema>;

export const worktreeStatusSchema = worktreeInfoSchema.extend({
  /** Commits on the branch not in the base, and in the base not on the branch. */
  ahead: z.number().int(),
  behind: z.number().int(),
  /** Uncommitted changes (staged, unstaged, untracked). */
  files: z.array(worktreeFileSchema),
  /** The branch's upstream, when it has one (after a push). */
  upstream: z.object({ name: z.string(), ahead: z.number().int(), behind: z.number().int() }).nullable(),
  /** The worktree folder is gone from disk. */
  missing: z.boolean(),
});
export type WorktreeStatus = z.infer<typeof worktreeStatusSchema>;

/** Per repository (keyed by the main checkout's path): setting worktrees.repos. */
export const repoWorktreeSettingSchema = z.object({
  /** The new-session form starts on "new worktree" for this repository. */
  alwaysNewWorktree: z.boolean().default(false),
  /** Run with /bin/sh in each new worktree (copy .env, npm ci…); empty: none. */
  setupCommand: z.string().max(4000).default(''),
  setupTimeoutSeconds: z.number().int().min(1).max(24 * 3600).default(600),
});
export type RepoWorktreeSetting = z.infer<typeof repoWorktreeSettingSchema>;
export const DEFAULT_REPO_WORKTREE_SETTING: RepoWorktreeSetting = repoWorktreeSettingSchema.parse({});

export const setupEndSchema = z.object({
  status: z.enum(['succeeded', 'failed', 'cancelled', 'timed_out']),
  exitCode: z.number().int().nullable(),
  /** The last of the output (the whole of it came as worktrees.setupOutput events). */
  tail: z.string(),
});
export type SetupEnd = z.infer<typeof setupEndSchema>;

/** How much of a setup command's output is kept from its first byte (the rest: its tail, once it ends). */
export const SETUP_OUTPUT_CHARS = 256 * 1024;

export const setupRunSchema = z.object({
  id: z.string(),
  path: z.string(),
  command: z.string(),
  startedAt: z.number(),
  ended: setupEndSchema.nullable(),
  /** Its output so far from the first byte (up to SETUP_OUTPUT_CHARS; the events carry on from its length). */
  output: z.string().optional(),
});
export type SetupRun = z.infer<typeof setupRunSchema>;

/**
 * A worktree Switchboard made that no open session works in: a worktree session's, a compare run's, or one an
 * earlier compare mode left (branch switchboard/compare-*, folder in the data folder), with what removing it loses.
 */
export const leftoverWorktreeSchema = z.object({
  /** The main checkout of its repository. */
  repo: z.string(),
  /** Null: only the branch is left (git no longer knows a worktree of it). */
  path: z.string().nullable(),
  /** Null: the worktree is on a detached HEAD. */
  branch: z.string().nullable(),
  origin: z.enum(['session', 'compare', 'old_compare']),
  /** The folder is gone from disk (git still lists it). */
  missing: z.boolean(),
  /** Commits removing the branch would lose: not in its base (for an earlier compare run's: on no other branch, tag or remote branch). */
  unmerged: z.array(commitSchema),
  /** Uncommitted changes (an untracked folder as one entry). */
  files: z.array(worktreeFileSchema),
  /** What could not be read of it (its folder is no longer a repository…): what it would lose is unknown. */
  problem: z.string().max(2000).optional(),
});
export type LeftoverWorktree = z.infer<typeof leftoverWorktreeSchema>;

export const worktreeRequests = {
  /** The branches and worktrees of the repository holding `repo` (any folder inside it), on `hostId` (default: this machine). */
  'worktrees.list': request(z.object({ repo: path, hostId: machineHostIdSchema.optional() }).strict(), outcome(repoBranchesSchema)),
  /**
   * A place for a new session: a new worktree on a new branch from `base` (under the worktrees folder; `path`
   * defaults to `<folder>/<branch>`), or an existing worktree of the repository. A new worktree runs the
   * repository's setup command, if any, in the background (`setup` names the run; its output comes as events).
   * `hostId`: an SSH host's repository, through its helper; the worktree goes beside the repository there
   * (`<repo>.worktrees/<branch>`), no setup command runs, and every later call on it (by path) goes to that host.
   */
  'worktrees.create': request(
    z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('new'), repo: path, branch: branchNameSchema, base: branchNameSchema, path: path.optional(), hostId: machineHostIdSchema.optional() }).strict(),
      z.object({ kind: z.literal('existing'), path, base: branchNameSchema.optional(), hostId: machineHostIdSchema.optional() }).strict(),
    ]),
    outcome(z.object({ worktree: worktreeInfoSchema, setup: setupRunSchema.nullable() })),
  ),
  /** The worktree Switchboard knows at each path (a session's folder), or null: the sidebar and the header ask. */
  'worktrees.describe': request(
    z.object({ paths: z.array(path).max(1000) }).strict(),
    z.object({ worktrees: z.record(z.string(), worktreeInfoSchema.nullable()) }),
  ),
  'worktrees.status': request(z.object({ path }).strict(), outcome(worktreeStatusSchema)),
  /** Commits the chosen files (all changes of each: staged or not, new or deleted). Hooks run as git runs them. */
  'worktrees.commit': request(
    z.object({ path, message: z.string().trim().min(1).max(100_000), files: z.array(relPath).min(1).max(100_000) }).strict(),
    outcome(z.object({ commit: commitSchema })),
  ),
  /**
   * Merges the worktree's branch into its base. Checked first: a conflict is refused and nothing is touched
   * (the conflicting files are listed). The base's checkout (if any) is changed only by the merge itself.
   */
  'worktrees.merge': request(
    z.object({ path, strategy: mergeStrategySchema, message: z.string().max(100_000).optional() }).strict(),
    outcome(z.object({ base: z.string(), head: z.string(), strategy: mergeStrategySchema })),
  ),
  /** Pushes the branch to its remote (default: its upstream's, else `origin`), setting the upstream. Never forced. */
  'worktrees.push': request(
    z.object({ path, remote: z.string().min(1).max(200).optional() }).strict(),
    outcome(z.object({ remote: z.string(), branch: z.string(), output: z.string(), compareUrl: z.string().nullable() })),
  ),
  /**
   * A pull request of the branch into its base: through `gh` when it is installed and signed in; otherwise the
   * branch is pushed and the compare URL the remote printed (if any) is returned.
   */
  'worktrees.pullRequest': request(
    z.object({ path, title: z.string().trim().min(1).max(1000), body: z.string().max(100_000).default(''), draft: z.boolean().default(false) }).strict(),
    outcome(
      z.discriminatedUnion('via', [
        z.object({ via: z.literal('gh'), url: z.string().nullable(), output: z.string() }),
        z.object({ via: z.literal('push'), compareUrl: z.string().nullable(), output: z.string(), reason: z.string() }),
      ]),
    ),
  ),
  /**
   * A pull request's title and description drafted by the session's agent (a prompt in the session, which must
   * work in this worktree), read from its reply: the user edits them before sending. Waits for the turn's end.
   */
  'worktrees.draftPullRequest': request(
    z.object({ path, sessionId: z.string().min(1).max(200) }).strict(),
    outcome(z.object({ title: z.string(), body: z.string() })),
  ),
  /** What discarding would lose: the branch's commits not in its base, and the uncommitted files. */
  'worktrees.discardPlan': request(z.object({ path }).strict(), outcome(z.object({ unmerged: z.array(commitSchema), files: z.array(worktreeFileSchema) }))),
  /**
   * Removes the worktree and its branch. `unmerged`: the commit shas the user saw in the confirmation; refused
   * (changed_since_confirmation) when the branch has other unmerged commits now.
   */
  'worktrees.discard': request(z.object({ path, unmerged: z.array(z.string().max(64)).max(100_000) }).strict(), outcome(z.object({}))),
  /** The worktrees Switchboard made that no open session works in, in the repositories it knows (Settings → Worktrees). */
  'worktrees.leftovers': request(z.object({}).strict(), z.object({ leftovers: z.array(leftoverWorktreeSchema) })),
  /**
   * Removes a leftover (as listed: its worktree with its uncommitted files, and its branch). `unmerged` and `files`:
   * what the user saw in the confirmation; refused (changed_since_confirmation) when more would be lost now.
   */
  'worktrees.removeLeftover': request(
    z
      .object({
        repo: path,
        path: path.nullable(),
        branch: branchNameSchema.nullable(),
        unmerged: z.array(z.string().max(64)).max(100_000),
        files: z.array(relPath).max(100_000),
      })
      .strict(),
    outcome(z.object({})),
  ),
  'worktrees.setupCancel': request(z.object({ id: z.string().min(1).max(100) }).strict(), z.object({ cancelled: z.boolean() })),
  'worktrees.setupRuns': request(z.object({ path: path.optional() }).strict(), z.object({ runs: z.array(setupRunSchema) })),
} as const;

export const worktreeEvents = {
  /** Output of a setup command, as it comes (stdout and stderr interleaved, UTF-8). */
  'worktrees.setupOutput': event(z.object({ id: z.string(), path: z.string(), chunk: z.string(), offset: z.number().int().min(0) })),
  'worktrees.setupEnded': event(z.object({ id: z.string(), path: z.string(), end: setupEndSchema })),
  /** A worktree was created, merged, committed to, pushed or discarded: its status may have changed. */
  'worktrees.changed': event(z.object({ path: z.string(), repo: z.string(), removed: z.boolean() })),
} as const;

/**
 * A branch name suggested from a session's first prompt: `<prefix>/<a-few-words>` of its visible words (no
 * slash command, tag block, mention path or markdown: shared/prompt-words), lower case, only letters, digits and
 * dashes. Empty prompt: `<prefix>/task`.
 */
export function suggestBranchName(prompt: string, prefix = 'sb'): string {
  const words = visiblePromptText(prompt)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w))
    .slice(0, 5);
  let slug = words.join('-').slice(0, 48).replace(/-+$/, '');
  if (!slug) slug = 'task';
  return `${prefix}/${slug}`;
}
const STOP_WORDS = new Set(['a', 'an', 'the', 'please', 'to', 'and', 'of', 'in', 'on', 'for', 'with', 'can', 'you', 'could', 'would', 'i', 'we', 'me', 'it', 'this', 'that', 'is', 'be']);
