import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { LogEntry } from '../store/message-log';
import { isObject, str, type TranscriptItem } from './parsers/types';

/**
 * An imported conversation written as the ACP messages a live session logs (session/prompt and its answer,
 * session/update notifications), so that History indexes, searches, shows and exports it like any other
 * session, through the same thread model.
 */

/** Where the writing of one session stands between imports (stored with its file). */
export interface WireState {
  /** The next JSON-RPC id for a prompt. */
  rpc: number;
  /** The id of the prompt whose turn is open, if one is. */
  openPrompt: number | null;
}

export const initialWireState = (): WireState => ({ rpc: 1, openPrompt: null });

/** Largest text kept of one tool output (the agents' stores keep whole file dumps). */
const MAX_TOOL_OUTPUT = 256 * 1024;

const bounded = (s: string): string => (s.length > MAX_TOOL_OUTPUT ? `${s.slice(0, MAX_TOOL_OUTPUT)}\n… (${s.length - MAX_TOOL_OUTPUT} more characters not imported)` : s);

interface ToolShape {
  kind: ToolKind;
  title: string;
  locations: ToolCallLocation[];
  content: ToolCallContent[];
}

const KINDS: Array<[RegExp, ToolKind]> = [
  [/^(bash|shell|run_shell_command|exec_command|local_shell|container\.exec|shell_command|terminal)$/i, 'execute'],
  [/^(write|edit|multiedit|write_file|replace|edit_file|apply_patch|notebookedit|str_replace_based_edit_tool|patch)$/i, 'edit'],
  [/^(read|read_file|read_many_files|view|cat|notebookread)$/i, 'read'],
  [/^(grep|glob|search_file_content|list_directory|ls|find|codebase_search|search)$/i, 'search'],
  [/^(webfetch|web_fetch|websearch|web_search|google_web_search|fetch)$/i, 'fetch'],
  [/^(todowrite|write_todos|todo_write|think|update_plan)$/i, 'think'],
];

function kindOf(name: string): ToolKind {
  for (const [re, kind] of KINDS) if (re.test(name)) return kind;
  return 'other';
}

const oneLine = (s: string, max = 160): string => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** A tool call's title, kind, the files it names and its diff, from the agent's tool name and arguments. */
export function toolShape(rawName: string, input: unknown): ToolShape {
  const name = rawName.replace(/^mcp__acp__/, '');
  const kind = kindOf(name);
  const args = isObject(input) ? input : {};
  const path = str(args.file_path) ?? str(args.filePath) ?? str(args.absolute_path) ?? str(args.path) ?? str(args.notebook_path);
  const locations: ToolCallLocation[] = path ? [{ path }] : [];
  const content: ToolCallContent[] = [];
  let title = name;
  if (kind === 'execute') {
    const cmd = Array.isArray(args.command) ? args.command.filter((c): c is string => typeof c === 'string').join(' ') : str(args.command) ?? str(args.cmd);
    if (cmd) title = `Run: ${oneLine(cmd)}`;
  } else if (kind === 'edit' && path) {
    title = `${name === 'Write' || name === 'write_file' ? 'Write' : 'Edit'} ${path}`;
    const newText = str(args.content) ?? str(args.new_string) ?? str(args.newString) ?? str(args.newText);
    if (newText !== undefined) {
      const oldText = str(args.old_string) ?? str(args.oldString) ?? str(args.oldText) ?? null;
      content.push({ type: 'diff', path, oldText: oldText === null ? null : bounded(oldText), newText: bounded(newText) });
    }
  } else if (path) {
    title = `${name} ${path}`;
  } else {
    const what = str(args.pattern) ?? str(args.query) ?? str(args.url) ?? str(args.description);
    if (what) title = `${name}: ${oneLine(what)}`;
  }
  if (kind === 'edit' && !content.length && typeof input === 'string') content.push({ type: 'content', content: { type: 'text', text: bounded(input) } });
  return { kind, title, locations, content };
}

interface Ids {
  /** The Switchboard session the log row belongs to. */
  log: string;
  /** The agent's own id, which the messages name. */
  agent: string;
  /** A session/update's JSON up to its update (the same for all of a session's): only the update is serialized. */
  updateHead: string;
}

function update(ids: Ids, u: SessionUpdate, ts: number): LogEntry {
  const body = { jsonrpc: '2.0', method: 'session/update', params: { sessionId: ids.agent, update: u } };
  return { sessionId: ids.log, direction: 'a2c', method: 'session/update', body: `${ids.updateHead}${JSON.stringify(u)}}}`, ts, parsed: body };
}

function endTurn(sessionId: string, state: WireState, ts: number): LogEntry[] {
  if (state.openPrompt === null) return [];
  const body = { jsonrpc: '2.0', id: `import-${state.openPrompt}`, result: { stopReason: 'end_turn' } };
  state.openPrompt = null;
  return [{ sessionId, direction: 'a2c', method: null, body: JSON.stringify(body), ts, parsed: body }];
}

/**
 * The log entries of `items` for Switchboard session `sessionId` (the agent's own id goes in the messages).
 * A turn is closed when the next prompt comes, or by `finish` at the end of what the file holds now.
 */
export function toWire(sessionId: string, agentSessionId: string, items: readonly TranscriptItem[], state: WireState): LogEntry[] {
  const out: LogEntry[] = [];
  const ids: Ids = { log: sessionId, agent: agentSessionId, updateHead: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(agentSessionId)},"update":` };
  for (const item of items) {
    switch (item.type) {
      case 'prompt': {
        out.push(...endTurn(sessionId, state, item.ts));
        const id = state.rpc++;
        state.openPrompt = id;
        const body = { jsonrpc: '2.0', id: `import-${id}`, method: 'session/prompt', params: { sessionId: agentSessionId, prompt: [{ type: 'text', text: item.text }] } };
        out.push({ sessionId, direction: 'c2a', method: 'session/prompt', body: JSON.stringify(body), ts: item.ts, parsed: body });
        break;
      }
      case 'agent':
        if (item.text) out.push(update(ids, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: item.text } }, item.ts));
        break;
      case 'thought':
        if (item.text) out.push(update(ids, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: item.text } }, item.ts));
        break;
      case 'tool_call': {
        const shape = toolShape(item.name, item.input);
        out.push(
          update(
            ids,
            { sessionUpdate: 'tool_call', toolCallId: item.id, title: shape.title, kind: shape.kind, status: 'in_progress', rawInput: item.input as Record<string, unknown>, locations: shape.locations, content: shape.content },
            item.ts,
          ),
        );
        break;
      }
      case 'tool_result':
        out.push(
          update(
            ids,
            {
              sessionUpdate: 'tool_call_update',
              toolCallId: item.id,
              status: item.failed ? 'failed' : 'completed',
              ...(item.output ? { content: [{ type: 'content', content: { type: 'text', text: bounded(item.output) } }] } : {}),
            },
            item.ts,
          ),
        );
        break;
      case 'unknown':
        out.push(
          update(
            ids,
            {
              sessionUpdate: 'tool_call',
              toolCallId: `import-unknown-${state.rpc}-${out.length}`,
              title: `An entry of a newer format (${oneLine(item.kind, 60)}), kept as text`,
              kind: 'other',
              status: 'completed',
              content: [{ type: 'content', content: { type: 'text', text: item.text } }],
            },
            item.ts,
          ),
        );
        break;
    }
  }
  return out;
}

/** Closes the open turn, if any, at the end of what a file holds now. */
export function finish(sessionId: string, state: WireState, ts: number): LogEntry[] {
  return endTurn(sessionId, state, ts);
}
