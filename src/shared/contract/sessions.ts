import type { PermissionOption, SessionConfigOption, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { z } from 'zod';
import type { ThreadEntry, ThreadEvent, ThreadState } from '../acp-thread/types';
import { agentIdSchema } from './agents';
import { absolutePathSchema, event, request } from './define';
import { containerChoiceSchema } from './containers';
import { hostIdSchema, LOCAL_HOST_ID } from './hosts';

/**
 * Sessions of agents: the ACP client in the main process.
 * ACP payloads are the SDK's types; they come from untrusted agents and are passed on as received
 * (after schema validation of session updates), so event payloads use z.custom rather than re-validating.
 */

export const sessionIdSchema = z.string().min(1).max(100);

/** Most characters a prompt's text may hold; longer text goes in as a file (sessions.attachText). */
export const MAX_PROMPT_TEXT = 2_000_000;
/** Most characters sessions.attachText saves. */
export const MAX_ATTACHED_TEXT = 20_000_000;
const absolutePath = absolutePathSchema;

// ───────────────────────────── sessions ─────────────────────────────

export const sessionStatusSchema = z.enum(['starting', 'idle', 'working', 'awaiting_permission', 'auth_required', 'failed', 'closed']);
export type SessionStatus = z.infer<typeof sessionStatusSchema>;

export const sessionInfoSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  acpSessionId: z.string().nullable(),
  /** Where the agent, its terminals and its files are: 'local' or an SSH host's id. */
  hostId: z.string(),
  cwd: z.string(),
  /** Extra roots, only when the agent advertised additionalDirectories. */
  additionalDirectories: z.array(z.string()),
  title: z.string().nullable(),
  status: sessionStatusSchema,
  /** Why the session failed or needs authentication. */
  error: z.string().nullable(),
  /** What the prompt may contain (the agent's promptCapabilities). */
  prompt: z.object({ image: z.boolean(), audio: z.boolean(), embeddedContext: z.boolean() }),
  /** The agent advertises session/fork (sessions.fork). */
  canFork: z.boolean(),
  /** The session this one was forked from (its history title), when it is a fork. */
  forkedFrom: z.object({ id: z.string(), title: z.string() }).nullable(),
  /** An ACP subagent session: the session whose agent started it; whether the agent lets the user cancel it. */
  subagent: z.object({ parentId: z.string(), canCancel: z.boolean() }).optional(),
  /** A session started through another session's delegation tools: that session (its parent, as for subagents). */
  delegatedBy: z.string().optional(),
  /**
   * Its agent was stopped while every session of it was idle, to give its memory back ('asleep'); the next prompt or
   * a look at the tab brings the session back (session/resume, else session/load), 'waking' meanwhile.
   */
  asleep: z.enum(['asleep', 'waking']).optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type SessionInfo = z.infer<typeof sessionInfoSchema>;

/** What the user puts in a prompt; converted to ACP content blocks per the agent's prompt capabilities. */
export const promptBlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string().max(MAX_PROMPT_TEXT) }).strict(),
  /** An @-mention of a file inside the session roots: embedded (embeddedContext) or linked. */
  z.object({ type: z.literal('mention'), path: absolutePath }).strict(),
  /** Base64 image; only when the agent advertised promptCapabilities.image. */
  z
    .object({
      type: z.literal('image'),
      mimeType: z.string().regex(/^image\/[\w.+-]+$/),
      data: z.string().max(30_000_000),
      uri: z.string().max(4096).optional(),
    })
    .strict(),
]);
export type PromptBlock = z.infer<typeof promptBlockSchema>;
const promptSchema = z.array(promptBlockSchema).min(1).max(200);

export const queueItemSchema = z.object({ id: z.string(), prompt: z.array(promptBlockSchema), createdAt: z.number() });
export type QueueItem = z.infer<typeof queueItemSchema>;

export const permissionRequestSchema = z.object({
  sessionId: z.string(),
  agentId: z.string(),
  requestId: z.string(),
  toolCall: z.custom<ToolCallUpdate>(),
  options: z.array(z.custom<PermissionOption>()),
  createdAt: z.number(),
});
export type PermissionRequestInfo = z.infer<typeof permissionRequestSchema>;

export const sessionSnapshotSchema = z.object({
  session: sessionInfoSchema,
  thread: z.custom<ThreadState>(),
  /** `n` of the last event folded into `thread`: drop `session.update` events with n ≤ this. */
  n: z.number().int(),
  queue: z.array(queueItemSchema),
  /** What the queue waits for before its first prompt goes (a worktree's setup command). */
  queueWaitingFor: z.string().optional(),
  permissions: z.array(permissionRequestSchema),
});
export type SessionSnapshot = z.infer<typeof sessionSnapshotSchema>;


export const reopenPlanSchema = z.object({
  mode: z.enum(['resume', 'load', 'live']).nullable(),
  reason: z.string(),
  agentName: z.string(),
});
export type ReopenPlan = z.infer<typeof reopenPlanSchema>;

const sid = z.object({ sessionId: sessionIdSchema }).strict();
const empty = z.object({});
const queueResult = z.object({ items: z.array(queueItemSchema) });

export const sessionRequests = {
  'sessions.create': request(
    z
      .object({
        agentId: agentIdSchema,
        /** The host the session runs on; its folders are on that host. */
        hostId: hostIdSchema.default(LOCAL_HOST_ID),
        cwd: absolutePath,
        additionalDirectories: z.array(absolutePath).max(64).default([]),
        /** Run it in a container on `hostId` (which is then this machine or an SSH host), made for the session. */
        container: containerChoiceSchema.optional(),
        /**
         * The id the new session gets, chosen by the client so that it can give up on the session before this
         * returns (sessions.close or sessions.cancel withdraw session/new). Default: one chosen by the core.
         */
        sessionId: z.string().uuid().optional(),
        /** Give the session Switchboard's delegation MCP server (default: as its agent's setting, delegation.agents, says). */
        delegation: z.boolean().optional(),
      })
      .strict(),
    sessionInfoSchema,
  ),
  /**
   * A new session forked from this one by the agent (session/fork, when advertised): the fork goes on with the
   * whole conversation so far (ACP forks a whole session, not from a given message). The session must be idle.
   */
  'sessions.fork': request(sid, sessionInfoSchema),
  /** Sent now when the session is idle, else queued (sent when the current turn ends). */
  'sessions.prompt': request(
    z.object({ sessionId: sessionIdSchema, prompt: promptSchema }).strict(),
    z.object({ promptId: z.string(), queued: z.boolean() }),
  ),
  'sessions.cancel': request(z.object({ sessionId: sessionIdSchema, clearQueue: z.boolean().default(false) }).strict(), empty),
  'sessions.setMode': request(z.object({ sessionId: sessionIdSchema, modeId: z.string().min(1).max(500) }).strict(), empty),
  'sessions.setConfigOption': request(
    z.object({ sessionId: sessionIdSchema, configId: z.string().min(1).max(500), value: z.union([z.string().max(500), z.boolean()]) }).strict(),
    z.object({ configOptions: z.array(z.custom<SessionConfigOption>()) }),
  ),
  'sessions.respondPermission': request(
    z.discriminatedUnion('outcome', [
      z
        .object({
          sessionId: sessionIdSchema,
          requestId: z.string().min(1).max(100),
          outcome: z.literal('selected'),
          optionId: z.string().min(1).max(500),
          /** The user confirmed an "always" option whose name contradicts its kind (else it is refused, conflict). */
          confirmMismatch: z.boolean().optional(),
        })
        .strict(),
      z.object({ sessionId: sessionIdSchema, requestId: z.string().min(1).max(100), outcome: z.literal('cancelled') }).strict(),
    ]),
    empty,
  ),
  'sessions.queue.list': request(sid, queueResult),
  'sessions.queue.update': request(z.object({ sessionId: sessionIdSchema, itemId: z.string().min(1).max(100), prompt: promptSchema }).strict(), queueResult),
  'sessions.queue.remove': request(z.object({ sessionId: sessionIdSchema, itemId: z.string().min(1).max(100) }).strict(), queueResult),
  'sessions.queue.move': request(
    z.object({ sessionId: sessionIdSchema, itemId: z.string().min(1).max(100), toIndex: z.number().int().min(0) }).strict(),
    queueResult,
  ),
  'sessions.queue.clear': request(sid, queueResult),
  'sessions.close': request(sid, empty),
  /** The user looks at the session: an asleep one is brought back (see SessionInfo.asleep); others are left as they are. */
  'sessions.wake': request(sid, empty),
  /**
   * A stored (closed, or failed after an agent exit) session live again: session/resume when the agent
   * advertises it (the thread starts from the stored messages), else session/load (the agent replays it).
   */
  'sessions.reopen': request(sid, sessionInfoSchema),
  /**
   * How sessions.reopen would bring a stored session back (starts its agent to learn its capabilities):
   * 'resume', 'load', 'live' (it already is), or null (read-only: continue in a new session); `reason` says
   * so in words.
   */
  'sessions.reopenPlan': request(sid, reopenPlanSchema),
  /**
   * One of the agent's own sessions (agents.listSessions) as a Switchboard session, opened live with
   * session/resume or session/load. Importing one already imported reopens that session.
   */
  'sessions.import': request(
    z
      .object({
        agentId: agentIdSchema,
        acpSessionId: z.string().min(1).max(500),
        cwd: absolutePath,
        title: z.string().max(1000).nullable().optional(),
      })
      .strict(),
    z.object({ session: sessionInfoSchema, mode: z.enum(['resume', 'load']), imported: z.boolean() }),
  ),
  /**
   * session/delete of the agent's own copy, when the agent advertises `sessionCapabilities.delete` (a live
   * session is closed first). The stored transcript is untouched (history.delete handles that).
   */
  'sessions.deleteOnAgent': request(sid, z.object({ deleted: z.boolean(), reason: z.string() })),
  /**
   * session/archive (or unarchive) of the agent's own copy, when the agent advertises `sessionCapabilities.archive`
   * (a live session is closed first). `done` false: the agent has no archive (reason says so); its refusal is an error.
   */
  /**
   * For History: what each session's agent says it holds (session/status), asked only of running agents that offer
   * it: `open` (in its memory: reopening resumes it without replay), `saved`, or `gone` (it does not know it).
   * Sessions live in Switchboard, or not asked about, are left out.
   */
  'sessions.heldAtAgents': request(
    z.object({ sessionIds: z.array(sessionIdSchema).max(200) }).strict(),
    z.object({ held: z.record(z.string(), z.enum(['open', 'saved', 'gone'])) }),
  ),
  'sessions.archiveOnAgent': request(
    z.object({ sessionId: sessionIdSchema, archived: z.boolean() }).strict(),
    z.object({ done: z.boolean(), reason: z.string() }),
  ),
  /**
   * Current state of a live session, for a view that attaches. With `tail`, its thread holds only its last
   * `tail` entries (thread.firstIndex of them come before: fetch them with sessions.entries as they come into
   * view), and its toolIndex only their tool calls (the rest: sessions.toolIndex); without it, the whole thread.
   */
  'sessions.state': request(z.object({ sessionId: sessionIdSchema, tail: z.number().int().min(0).optional() }).strict(), sessionSnapshotSchema),
  /**
   * A page of a live session's thread entries: [from, from + count), fewer at its end. `n` is the last event
   * folded into them (as sessions.state's n): session.update events after it may change them.
   */
  'sessions.entries': request(
    z.object({ sessionId: sessionIdSchema, from: z.number().int().min(0), count: z.number().int().min(1).max(2000) }).strict(),
    z.object({ from: z.number().int(), entries: z.array(z.custom<ThreadEntry>()), total: z.number().int(), n: z.number().int() }),
  ),
  /**
   * The whole toolIndex of a live session's thread (tool call id → entry index): sessions.state with `tail`
   * holds only the tail's. `n` is the last event folded into it.
   */
  'sessions.toolIndex': request(
    z.object({ sessionId: sessionIdSchema }).strict(),
    z.object({ toolIndex: z.record(z.string(), z.number().int()), n: z.number().int() }),
  ),
  /**
   * The subagent sessions of a session (live or stored), by the ACP ids its thread names them with:
   * what a child's card shows (its session, to attach to or read; its state and time).
   */
  'sessions.subagents': request(
    z.object({ sessionId: sessionIdSchema }).strict(),
    z.object({
      subagents: z.array(
        z.object({
          id: z.string(),
          acpSessionId: z.string(),
          agentId: z.string(),
          status: sessionStatusSchema,
          live: z.boolean(),
          canCancel: z.boolean(),
          createdAt: z.number(),
          updatedAt: z.number(),
        }),
      ),
    }),
  ),
  /** Live (not closed) sessions of this run. */
  'sessions.live': request(z.object({}).strict(), z.object({ sessions: z.array(sessionInfoSchema) })),
  /** Fuzzy file search inside the session's roots, for @-mentions. */
  'sessions.mentionSearch': request(
    z.object({ sessionId: sessionIdSchema, query: z.string().max(500), limit: z.number().int().min(1).max(200).default(50) }).strict(),
    z.object({ results: z.array(z.object({ path: z.string(), relativePath: z.string(), root: z.string() })), truncated: z.boolean() }),
  ),
  /**
   * Text too long for a prompt (a large paste), saved as a new file in the session's folder
   * (`pasted-<time>.txt`), to be mentioned in the prompt instead. Resolves with its path.
   */
  'sessions.attachText': request(
    z.object({ sessionId: sessionIdSchema, text: z.string().min(1).max(MAX_ATTACHED_TEXT) }).strict(),
    z.object({ path: z.string() }),
  ),
  /** A text file inside the session's roots (symlinks resolved), e.g. to show a tool call location. */
  'sessions.readFile': request(
    z.object({ sessionId: sessionIdSchema, path: absolutePath }).strict(),
    z.object({ path: z.string(), content: z.string() }),
  ),
} as const;

export const sessionUpdateItemSchema = z.object({
  n: z.number().int(),
  /** seq in the message log of the (last) update this event comes from; null for client-side events. */
  seq: z.number().int().nullable(),
  event: z.custom<ThreadEvent>(),
  /** Consecutive text chunks of one message joined into this update: how many (absent: one). */
  merged: z.number().int().min(2).optional(),
});
export type SessionUpdateItem = z.infer<typeof sessionUpdateItemSchema>;

export const warningKindSchema = z.enum([
  'malformed_line',
  'oversized_line',
  'unknown_update',
  'invalid_update',
  'unknown_session',
  'unknown_request',
  'store_error',
  /** A setting could not be applied (an MCP server the agent cannot use…). */
  'settings',
  /** The agent left a request unanswered past the timeout (agents.requestTimeoutSeconds). */
  'unresponsive',
  /** The agent floods its output: it is read slower for now (agents.flood* settings); nothing is dropped. */
  'flooding',
  /** The agent could not archive or unarchive its own copy of a session. */
  'archive',
  'suppressed',
]);

export const sessionEvents = {
  /**
   * Everything that changes a session's thread, in order, after it is persisted, in batches (one per
   * chunk of agent output, so a 20,000-chunk stream is a few dozen messages, not 20,000): the agent's ACP
   * updates (`event.type === 'update'`) and the client's own actions. Fold with acp-thread:
   * `applyEvents(thread, events.map((e) => e.event))`. `n` counts events per session (drop those with
   * n ≤ sessions.state's n); `seq` is the stored message's sequence number (null for client actions).
   */
  'session.update': event(z.object({ sessionId: z.string(), events: z.array(sessionUpdateItemSchema) })),
  'session.state': event(sessionInfoSchema),
  /** The agent asks for permission: answer with sessions.respondPermission. */
  'session.permission': event(permissionRequestSchema),
  'session.permissionResolved': event(
    z.object({
      sessionId: z.string(),
      requestId: z.string(),
      outcome: z.enum(['selected', 'cancelled']),
      optionId: z.string().nullable(),
      /** Answered by a stored rule, not by the user. */
      byRule: z.boolean(),
    }),
  ),
  'session.queue': event(z.object({ sessionId: z.string(), items: z.array(queueItemSchema), waitingFor: z.string().optional() })),
  /** Something the agent sent was dropped or ignored; the session goes on. sessionId null: agent-wide. */
  'session.warning': event(
    z.object({ sessionId: z.string().nullable(), agentId: z.string(), kind: warningKindSchema, message: z.string(), ts: z.number() }),
  ),
} as const;
