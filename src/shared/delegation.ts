import { z } from 'zod';

/**
 * Switchboard's delegation tools: what an agent given the delegation MCP server may ask (issue 42). The same
 * schemas check the arguments in the MCP server process and, again, in the main process: whatever the agent
 * sends is untrusted, checked like a contract request.
 */

/** The MCP server's name as the agent sees it (and as "what the agent was given" lists it). */
export const DELEGATION_SERVER_NAME = 'switchboard-delegation';
/** The variables that carry the channel to the main process (never shown: only their names). */
export const DELEGATION_SOCKET_ENV = 'SWITCHBOARD_DELEGATION_SOCKET';
export const DELEGATION_SECRET_ENV = 'SWITCHBOARD_DELEGATION_SECRET';

/** The longest line either side of the channel sends. */
export const MAX_CHANNEL_LINE = 1024 * 1024;
/** The most of a diff a read returns. */
export const MAX_DIFF_CHARS = 200_000;
/** The most of a last message a read returns. */
export const MAX_MESSAGE_CHARS = 50_000;

const sessionId = z.string().uuid().describe('The id start_session returned');
const waitSeconds = z.number().int().min(1).max(3600).optional().describe('How long to wait at most (default 600 s)');

export const delegationTools = {
  list_agents: {
    description: 'Lists the coding agents set up in Switchboard, with what the user says each is good at.',
    args: z.object({}).strict(),
  },
  start_session: {
    description:
      'Starts a session with another agent on a task, in this folder, in a new git worktree on a new branch from the current branch, or in a container made for it (on this folder). ' +
      'Returns its session id at once, or (wait: true) once its turn ended, with its state and last message.',
    args: z
      .object({
        agent: z.string().min(1).max(200).describe('The agent: its name or id, as list_agents gives them'),
        task: z.string().min(1).max(20_000).describe('What the agent should do (its first prompt)'),
        where: z
          .enum(['folder', 'worktree', 'container'])
          .default('folder')
          .describe('"folder": this folder; "worktree": a new worktree from the current branch; "container": this folder, in a container made for the session'),
        wait: z.boolean().default(false).describe('Wait for the session to finish its turn'),
        waitSeconds,
      })
      .strict(),
  },
  read_session: {
    description: "Reads a session this session started: its state, its last message, the files it changed and their diff (optionally waiting for its turn to end).",
    args: z
      .object({
        sessionId,
        wait: z.boolean().default(false).describe('Wait for its turn to end first'),
        waitSeconds,
        diff: z.boolean().default(true).describe('Include the diff of the files it changed'),
      })
      .strict(),
  },
  send_followup: {
    description: 'Sends a follow-up prompt to a session this session started (queued while it works).',
    args: z.object({ sessionId, text: z.string().min(1).max(20_000), wait: z.boolean().default(false), waitSeconds }).strict(),
  },
  cancel_session: {
    description: "Cancels the turn of a session this session started.",
    args: z.object({ sessionId }).strict(),
  },
} as const;

export type DelegationTool = keyof typeof delegationTools;
export const DELEGATION_TOOLS = Object.keys(delegationTools) as DelegationTool[];

/** One request on the channel, from the MCP server process. */
export const channelRequestSchema = z
  .object({
    id: z.number().int().nonnegative(),
    secret: z.string().min(16).max(200),
    tool: z.string().max(100),
    args: z.unknown(),
  })
  .strict();
export type ChannelRequest = z.infer<typeof channelRequestSchema>;

/** Its answer: the text the tool returns, or the sentence saying why it refused. */
export const channelResponseSchema = z.object({ id: z.number().int(), ok: z.boolean(), text: z.string() });
export type ChannelResponse = z.infer<typeof channelResponseSchema>;
