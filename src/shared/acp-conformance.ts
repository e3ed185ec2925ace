/**
 * What Switchboard does with each part of the Agent Client Protocol as the SDK defines it (stable and
 * unstable v1 schema): every method, `session/update` kind, content block type and tool call content type.
 * test/shared/conformance.test.ts reads the SDK's schema and fails when the SDK defines something this
 * table does not decide, or when the table names something the SDK no longer has. docs/conformance.md is
 * rendered from this table (the same test checks it).
 */

export type Conformance =
  | { status: 'supported'; note?: string }
  | { status: 'ignored'; reason: string }
  | { status: 'not_yet'; note?: string };

const yes = (note?: string): Conformance => (note ? { status: 'supported', note } : { status: 'supported' });
const ignored = (reason: string): Conformance => ({ status: 'ignored', reason });

export const ACP_CONFORMANCE = {
  /** JSON-RPC methods of both sides (`x-method` in the schema). */
  methods: {
    initialize: yes(),
    authenticate: yes('agent, env-var and terminal methods'),
    logout: yes('when the agent advertises auth.logout'),
    'session/new': yes(),
    'session/load': yes('reopens a stored session; its replay (before or after the answer, whatever the agent wraps around it: all it sends until the next prompt, then by content) is not shown or stored twice'),
    'session/resume': yes('preferred over load when advertised'),
    'session/list': yes('the agent’s own sessions, paged'),
    'session/delete': yes('deletes the agent’s copy when the user deletes a session'),
    'session/close': yes(),
    'session/prompt': yes(),
    'session/cancel': yes(),
    'session/set_mode': yes(),
    'session/set_config_option': yes(),
    'session/request_permission': yes(),
    'session/update': yes('see the update kinds below'),
    'fs/read_text_file': yes('confined to the session’s folders'),
    'fs/write_text_file': yes('confined to the session’s folders; reviewed and reverted with its turn’s checkpoints'),
    'terminal/create': yes(),
    'terminal/output': yes(),
    'terminal/release': yes(),
    'terminal/wait_for_exit': yes(),
    'terminal/kill': yes(),
    '$/cancel_request': yes('both ways: the agent may withdraw its requests; the client withdraws session setup the user gives up on, requests past the hang timeout and an unanswered session/close'),
    'elicitation/create': yes('form and URL modes, in a session (request-scoped ones are refused); cancelled with their turn; one asked during a tool call (toolCallId) links to that tool call'),
    'elicitation/complete': yes('marks the URL elicitation done'),
    // Unstable.
    'session/fork': yes('"Fork from here" on the last prompt of an idle session, when advertised: ACP forks the whole conversation (no message point); fork and parent linked in history'),
    'session/archive': yes('sessionCapabilities.archive advertised: Archive in History (hidden from the list, shown under the “Archived” filter, still searchable) archives at the agent too, its live copy closed first; an agent without it is said, and its refusal is said in a notice (History’s archive stands); test/main/acp/session-archive.test.ts, test/e2e/history-manage.test.ts'),
    'session/unarchive': yes('Unarchive in History, at the agent too'),
    'session/status': yes('sessionCapabilities.status advertised: asked before reopening a stored session; one the agent still holds open is resumed without replay (session/resume, load if the resume is refused), else loaded as before; History shows “open at the agent” / “saved” / “not at the agent” for sessions of a running agent that offers it (no agent is started for it); unknown values count as saved; test/main/acp/session-status.test.ts'),
    'session/set_title': yes('sessionCapabilities.title advertised: a rename of a live session in Switchboard is sent to the agent (its answer, a normalized title or an error, is logged: the user’s name stays); titles the agent sets (session_info_update) show unless the user named the session'),
    'providers/list': yes('agentCapabilities.providers advertised (Claude Agent 0.101): a Providers section in the agent’s settings lists each provider, its API and base URL, required or disabled (the agent’s text, bounded); test/main/agents/providers.test.ts'),
    'providers/set': yes('“Enable” / “Change” a provider: API (among those it supports), base URL (http/https) and headers (one line each, sent to every running process of the agent, not stored by Switchboard); the agent’s refusal is said'),
    'providers/disable': yes('“Disable” on a provider the agent does not mark required (a required one is refused without asking the agent, as the schema says)'),
    'auth/status': yes('asked when advertised (auth.status): the agent list shows signed in / signed out / no sign-in needed and the accounts, from the agent’s word; ACP has no "expiring" state (expired credentials are unauthenticated)'),
    'auth/status_update': yes('the agent list follows it; a sign-in that lapses (signed in → signed out) is said in each open session’s thread with its sign-in methods; Claude Agent’s own _auth/status_update is read the same way'),
    'mcp/message': ignored('Switchboard’s own MCP server (delegation) is given to the agent as a stdio server, which every agent supports, and the user’s servers as stdio/http/sse, which reach their tools directly; tunnelling them through the client would only add a hop, and none of the shared agents offers it. An agent’s mcp/message is answered -32601'),
    'proxy/initialize': ignored('for proxies chained in front of an agent; Switchboard is a client, not a proxy'),
    'proxy/successor': ignored('for proxies chained in front of an agent; Switchboard is a client, not a proxy'),
  },
  /** `sessionUpdate` kinds of `session/update`. */
  sessionUpdates: {
    user_message_chunk: yes(),
    agent_message_chunk: yes('sanitized markdown'),
    agent_thought_chunk: yes('collapsible'),
    tool_call: yes(),
    tool_call_update: yes(),
    plan: yes(),
    available_commands_update: yes('slash commands'),
    current_mode_update: yes(),
    config_option_update: yes(),
    session_info_update: yes('title'),
    usage_update: yes(),
    notice: yes('stable since 2026-10-09: clientCapabilities.session.notices advertised; shown in the thread by severity'),
    compaction_update: yes('stable since 2026-10-09: clientCapabilities.session.compaction advertised; a “context compacted” marker, patched in place, kept in history'),
    compaction_summary_chunk: yes('the marker’s summary, collapsed until expanded'),
    // Unstable.
    plan_update: yes('clientCapabilities.plan advertised; several plans per session, each edited in place by id (items, markdown or a file), across turns; at most 64 per session'),
    plan_removed: yes('the plan stays in the thread, marked removed by the agent'),
    subagent_update: yes(
      'clientCapabilities.subagents advertised; each child is a session of its own (stored linked to its parent, searchable), shown under the tool call that started it with its own streaming thread, state, time and a Cancel when its capabilities allow; at most 32 per session, 3 deep; titles sanitized',
    ),
    session_message: yes('a message between sessions (a task for a child, its report), patched in place by messageId'),
    session_message_chunk: yes('appended to its message'),
  },
  /** `type` of content blocks (prompts, messages, tool call content). */
  contentBlocks: {
    text: yes(),
    image: yes('shown; sent when the agent advertises image prompts'),
    audio: yes('shown as a labelled chip (not played); sent when the agent advertises audio prompts'),
    resource_link: yes('@-mentions'),
    resource: yes('embedded context when the agent advertises it'),
  },
  /** `type` of tool call content. */
  toolCallContent: {
    content: yes('tool output, preformatted'),
    diff: yes('Monaco diff'),
    terminal: yes('live terminal'),
  },
} as const satisfies Record<string, Record<string, Conformance>>;

export type ConformanceSection = keyof typeof ACP_CONFORMANCE;

const TITLES: Record<ConformanceSection, string> = {
  methods: 'Methods',
  sessionUpdates: 'Session update kinds',
  contentBlocks: 'Content block types',
  toolCallContent: 'Tool call content types',
};

const LABEL: Record<Conformance['status'], string> = { supported: 'supported', ignored: 'ignored on purpose', not_yet: 'not yet' };

/** The table as Markdown (docs/conformance.md). */
export function conformanceMarkdown(unstable: ReadonlySet<string>): string {
  const out = [
    '# ACP conformance',
    '',
    'What Switchboard does with each part of the Agent Client Protocol (v1) as SDK `@agentclientprotocol/sdk` defines it.',
    'Generated from `src/shared/acp-conformance.ts` by `test/shared/conformance.test.ts` (run it with',
    '`SWITCHBOARD_WRITE_CONFORMANCE=1` to rewrite this file); the test fails when the SDK defines something the table does',
    'not decide. *Unstable* marks what only the SDK\'s unstable schema has.',
  ];
  for (const section of Object.keys(ACP_CONFORMANCE) as ConformanceSection[]) {
    out.push('', `## ${TITLES[section]}`, '', '| Name | Status | Notes |', '| --- | --- | --- |');
    for (const [name, c] of Object.entries(ACP_CONFORMANCE[section]) as Array<[string, Conformance]>) {
      const note = c.status === 'ignored' ? c.reason : (c.note ?? '');
      out.push(`| \`${name}\`${unstable.has(`${section}:${name}`) ? ' (unstable)' : ''} | ${LABEL[c.status]} | ${note.replace(/\|/g, '\\|')} |`);
    }
  }
  return `${out.join('\n')}\n`;
}
