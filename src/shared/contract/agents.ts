import type { AgentCapabilities, Implementation, SessionInfo as AcpSessionInfo } from '@agentclientprotocol/sdk';
import { z } from 'zod';
import { absolutePathSchema, event, request } from './define';

/** Agents (processes speaking ACP): their definitions, status, sign-in, and their own session lists. */

export const agentIdSchema = z.string().min(1).max(200);
const envName = z.string().min(1).max(500).regex(/^[^=\0]+$/, 'not a valid environment variable name');
const envSchema = z.record(envName, z.string().max(100_000));
const argsSchema = z.array(z.string().max(100_000)).max(1000);
const absolutePath = absolutePathSchema;
const dim = z.number().int().min(1).max(1000);
/** A bearer token: visible ASCII, no spaces (RFC 6750's token68 and what servers hand out), so it cannot break the header. */
const bearerToken = z.string().min(1).max(16_384).regex(/^[\x21-\x7e]+$/, 'a token is visible ASCII characters without spaces');

// ───────────────────────────── agents ─────────────────────────────

/** Per-agent compatibility choices for known agent bugs. */
export const agentCompatSchema = z
  .object({
    /**
     * Answer `fs/read_text_file` of a missing file inside the session roots with empty content instead of
     * the -32002 error (Gemini CLI 0.61 cannot create new files otherwise).
     */
    missingFileAsEmpty: z.boolean(),
  })
  .strict();
export type AgentCompat = z.infer<typeof agentCompatSchema>;

export const authMethodInfoSchema = z.discriminatedUnion('type', [
  /** The agent authenticates itself when asked (`authenticate`). */
  z.object({ type: z.literal('agent'), id: z.string(), name: z.string(), description: z.string().nullable() }),
  /** The user provides values the agent reads from its environment; stored encrypted, agent restarted. */
  z.object({
    type: z.literal('env_var'),
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    link: z.string().nullable(),
    vars: z.array(
      z.object({ name: z.string(), label: z.string().nullable(), secret: z.boolean(), optional: z.boolean(), stored: z.boolean() }),
    ),
  }),
  /** The agent's own command with extra args, run interactively in a terminal. */
  z.object({ type: z.literal('terminal'), id: z.string(), name: z.string(), description: z.string().nullable(), args: z.array(z.string()) }),
]);
export type AuthMethodInfo = z.infer<typeof authMethodInfoSchema>;

/**
 * What the agent says of its own sign-in (`auth/status`, `auth/status_update`, or Claude Agent's
 * `_auth/status_update`): the state is the only field acted on; the rest is display text, bounded.
 */
export const agentAuthStateSchema = z.enum(['signed_in', 'signed_out', 'not_required', 'unknown']);
export type AgentAuthState = z.infer<typeof agentAuthStateSchema>;
export const agentAuthStatusSchema = z.object({
  state: agentAuthStateSchema,
  /** The accounts or credentials the agent reports ("Anthropic API key", "Claude Max · me@example.com"). */
  accounts: z.array(z.object({ label: z.string().max(200), detail: z.string().max(300).nullable(), active: z.boolean().nullable() })).max(8),
  /** When Switchboard heard it (ms). */
  at: z.number(),
});
export type AgentAuthStatus = z.infer<typeof agentAuthStatusSchema>;

export const agentRuntimeStateSchema = z.enum(['stopped', 'starting', 'running', 'exited', 'failed']);
export type AgentRuntimeState = z.infer<typeof agentRuntimeStateSchema>;

export const agentStatusSchema = z.object({
  agentId: z.string(),
  state: agentRuntimeStateSchema,
  pid: z.number().int().nullable(),
  /** Why it failed or exited, in words. */
  error: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  protocolVersion: z.number().nullable(),
  agentInfo: z.custom<Implementation>().nullable(),
  capabilities: z.custom<AgentCapabilities>().nullable(),
  authMethods: z.array(authMethodInfoSchema),
  /** The agent advertised `logout`. */
  canLogout: z.boolean(),
  /** What the agent last said of its sign-in; null/absent: it said nothing (yet). */
  auth: agentAuthStatusSchema.nullable().optional(),
  startedAt: z.number().nullable(),
  /**
   * The project folder this process serves (one process per agent and folder, setting
   * `agents.processPerFolder`); absent or null: the agent's own process (its working folder or home).
   */
  folder: z.string().nullable().optional(),
  /** The host the process runs on; absent: this machine. */
  hostId: z.string().optional(),
});
export type AgentStatus = z.infer<typeof agentStatusSchema>;

export const agentSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  source: z.enum(['registry', 'custom', 'builtin']),
  command: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  cwd: z.string().nullable(),
  version: z.string().nullable(),
  registryId: z.string().nullable(),
  /** User overrides on top of the installed command: args replace, env merges. */
  overrides: z.object({ args: z.array(z.string()).nullable(), env: z.record(z.string(), z.string()) }),
  compat: agentCompatSchema,
  /** A network agent's URL (ws:, wss:, http:, https:; its `command` holds it too); null or absent: a command. */
  url: z.string().nullable().optional(),
  /** A network agent has a bearer token stored (encrypted; never sent to the window). */
  tokenStored: z.boolean().optional(),
  /** Names of environment variables stored (encrypted) from env-var authentication. */
  storedSecrets: z.array(z.string()),
  status: agentStatusSchema,
  /** The agent's processes started in a session's folder (see AgentStatus.folder), one per folder. */
  folderProcesses: z.array(agentStatusSchema).optional(),
});
export type AgentSummary = z.infer<typeof agentSummarySchema>;

const aid = z.object({ agentId: agentIdSchema }).strict();
const empty = z.object({});

/**
 * A model provider the agent offers (`providers/list`, unstable ACP): where its requests go. All of it is the
 * agent's text, bounded; `current` null: disabled. Headers are never read back (the agent does not return them).
 */
export const agentProviderSchema = z.object({
  id: z.string().max(200),
  /** The API protocols it accepts ("anthropic", "openai", …). */
  supported: z.array(z.string().max(100)).max(32),
  /** It cannot be disabled. */
  required: z.boolean(),
  current: z.object({ apiType: z.string().max(100), baseUrl: z.string().max(2048) }).nullable(),
});
export type AgentProvider = z.infer<typeof agentProviderSchema>;
const providersResult = z.object({ offered: z.boolean(), providers: z.array(agentProviderSchema) });
const headerName = z.string().min(1).max(200).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'not a valid header name');
const headerValue = z.string().max(16_384).regex(/^[^\r\n\0]*$/, 'a header value is one line');

export const agentRequests = {
  'agents.list': request(z.object({}).strict(), z.object({ agents: z.array(agentSummarySchema) })),
  'agents.addCustom': request(
    z
      .object({
        name: z.string().min(1).max(200),
        command: z.string().min(1).max(4096),
        args: argsSchema.default([]),
        env: envSchema.default({}),
        cwd: absolutePath.nullable().default(null),
      })
      .strict(),
    agentSummarySchema,
  ),
  /**
   * An agent reached over the network (ACP's draft WebSocket or Streamable HTTP transport): `https:`/`wss:`,
   * or `http:`/`ws:` on this machine only. The token (sent as `Authorization: Bearer`) is stored encrypted.
   */
  'agents.addByUrl': request(
    z.object({ name: z.string().min(1).max(200), url: z.string().min(1).max(2048), token: bearerToken.nullable().default(null) }).strict(),
    agentSummarySchema,
  ),
  /**
   * Custom agents: any field. Builtin agents: `args` (null = their own), `env` (merged over theirs) and
   * `compat`. Registry agents: `compat` only (their args/env overrides belong to registry.setOverrides).
   * Takes effect at the next start.
   */
  'agents.update': request(
    z
      .object({
        agentId: agentIdSchema,
        name: z.string().min(1).max(200).optional(),
        command: z.string().min(1).max(4096).optional(),
        cwd: absolutePath.nullable().optional(),
        args: argsSchema.nullable().optional(),
        env: envSchema.optional(),
        compat: agentCompatSchema.partial().strict().optional(),
        /** A network agent's URL (replaces its command). */
        url: z.string().min(1).max(2048).optional(),
        /** A network agent's bearer token: a new one, or null to forget it; absent: unchanged. */
        token: bearerToken.nullable().optional(),
      })
      .strict(),
    agentSummarySchema,
  ),
  'agents.remove': request(aid, empty),
  'agents.start': request(aid, agentStatusSchema),
  'agents.stop': request(aid, empty),
  /** Stops (if running) and starts the agent; sessions it can resume come back. */
  'agents.restart': request(aid, z.object({ status: agentStatusSchema, resumedSessions: z.array(z.string()) })),
  /** The tail of the agent's log: its stderr, sessionless ACP messages, warnings. */
  'agents.log': request(
    z.object({ agentId: agentIdSchema, maxBytes: z.number().int().min(1).max(10_000_000).optional() }).strict(),
    z.object({ text: z.string(), truncated: z.boolean(), path: z.string() }),
  ),
  /**
   * agent methods: `authenticate`. env_var methods: `values` stored encrypted, agent restarted with them,
   * then `authenticate`. terminal methods: the agent's command with the method's args runs in a pty
   * (stream it with agentTerminal.* events, type into it with agentTerminal.write); when it exits with
   * status 0 the agent is restarted. Sessions waiting for authentication are retried afterwards.
   */
  'agents.authenticate': request(
    z
      .object({
        agentId: agentIdSchema,
        methodId: z.string().min(1).max(500),
        values: z.record(envName, z.string().max(100_000)).optional(),
        cols: dim.optional(),
        rows: dim.optional(),
      })
      .strict(),
    z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('authenticated') }),
      z.object({ kind: z.literal('terminal'), terminalId: z.string(), command: z.string(), args: z.array(z.string()) }),
    ]),
  ),
  /** `logout` when advertised; forgets stored env-var secrets (restarting the agent if there were any). */
  'agents.logout': request(aid, empty),
  /** The agent's model providers (`providers/list`, when it advertises `providers`); starts the agent if needed. */
  'agents.providers': request(aid, providersResult),
  /** Routes a provider (`providers/set`, replacing its whole configuration) in each running process of the agent. */
  'agents.setProvider': request(
    z
      .object({
        agentId: agentIdSchema,
        providerId: z.string().min(1).max(200),
        apiType: z.string().min(1).max(100),
        baseUrl: z.string().min(1).max(2048).regex(/^https?:\/\//i, 'the base URL starts with https:// or http://'),
        headers: z.record(headerName, headerValue).refine((h) => Object.keys(h).length <= 64, 'at most 64 headers').default({}),
      })
      .strict(),
    providersResult,
  ),
  /** `providers/disable`; a provider the agent marks required is refused without asking it. */
  'agents.disableProvider': request(z.object({ agentId: agentIdSchema, providerId: z.string().min(1).max(200) }).strict(), providersResult),
  /** The agent's own session list (session/list, when advertised). */
  'agents.listSessions': request(
    z.object({ agentId: agentIdSchema, cwd: absolutePath.optional(), cursor: z.string().max(10_000).optional() }).strict(),
    z.object({ sessions: z.array(z.custom<AcpSessionInfo>()), nextCursor: z.string().nullable() }),
  ),

  /** Which of these ACP session ids (from agents.listSessions) are already Switchboard sessions. */
  'agents.knownSessions': request(
    z.object({ agentId: agentIdSchema, acpSessionIds: z.array(z.string().max(500)).max(1000) }).strict(),
    z.object({ known: z.record(z.string(), z.string()) }),
  ),
} as const;

export const agentEvents = {
  'agent.status': event(agentStatusSchema),
} as const;
