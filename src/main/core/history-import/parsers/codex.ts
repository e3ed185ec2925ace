import { withoutExecHeader } from './codex-output';
import { isObject, str, timeOf, unknownItem, type LineParser, type ParsedRecord, type TranscriptItem } from './types';

/**
 * Codex's rollouts, `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`: one `{timestamp, type, payload}` a
 * line (codex-rs/protocol: RolloutItem). `session_meta` opens the file (id, cwd, cli_version);
 * `response_item` carries the conversation (ResponseItem: message, reasoning, function_call,
 * function_call_output, custom_tool_call[_output], local_shell_call, web_search_call); `event_msg`,
 * `turn_context` and `compacted` repeat or describe it and are not imported. The fixtures
 * (test/fixtures/agent-histories/codex-*) follow the format in Codex's repository.
 */

/** What Codex sends as user messages on its own: the environment and instruction files. */
const INJECTED = /^\s*(<environment_context>|<user_instructions>|<permissions instructions>|# AGENTS\.md instructions)/;

const QUIET = new Set(['event_msg', 'turn_context', 'compacted']);

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return typeof content === 'string' ? content : '';
  return content.map((c) => (isObject(c) && typeof c.text === 'string' ? c.text : isObject(c) && c.type === 'input_image' ? '[image]' : '')).join('');
}

/** Text output, without the header Codex wrote for the model: failed when it names a non-zero exit code. */
function textOutput(text: string, failed = false): { output: string; failed: boolean } {
  const { output, exitCode } = withoutExecHeader(text);
  return { output, failed: failed || (exitCode !== null && exitCode !== 0) };
}

/**
 * A tool's output: Codex's shell tools record `{"output", "metadata": {"exit_code"}}` as a JSON string, or the
 * output with a header naming its exit code (see codex-output.ts).
 */
function outputOf(output: unknown): { output: string; failed: boolean } {
  if (typeof output === 'string') {
    if (output.startsWith('{')) {
      try {
        const o = JSON.parse(output) as unknown;
        if (isObject(o) && typeof o.output === 'string') {
          const code = isObject(o.metadata) ? o.metadata.exit_code : undefined;
          return textOutput(o.output, typeof code === 'number' && code !== 0);
        }
      } catch {
        // Not JSON after all: the text itself.
      }
    }
    return textOutput(output);
  }
  if (Array.isArray(output)) return textOutput(textOf(output));
  if (isObject(output)) return textOutput(str(output.content) ?? textOf(output.content_items), output.success === false);
  return { output: '', failed: false };
}

function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return { arguments: args };
  }
}

function responseItem(p: Record<string, unknown>, ts: number): TranscriptItem[] {
  switch (p.type) {
    case 'message': {
      const text = textOf(p.content);
      if (p.role === 'user') return text && !INJECTED.test(text) ? [{ type: 'prompt', ts, text }] : [];
      if (p.role === 'assistant') return text ? [{ type: 'agent', ts, text }] : [];
      return [];
    }
    case 'reasoning': {
      const parts = [...(Array.isArray(p.summary) ? p.summary : []), ...(Array.isArray(p.content) ? p.content : [])];
      const text = parts.map((s) => (isObject(s) ? (str(s.text) ?? '') : '')).filter(Boolean).join('\n\n');
      return text ? [{ type: 'thought', ts, text }] : [];
    }
    case 'function_call':
      return [{ type: 'tool_call', ts, id: str(p.call_id) ?? `call-${ts}`, name: str(p.name) ?? 'function', input: parseArguments(p.arguments) }];
    case 'custom_tool_call':
      return [{ type: 'tool_call', ts, id: str(p.call_id) ?? `call-${ts}`, name: str(p.name) ?? 'tool', input: str(p.input) ?? p.input ?? {} }];
    case 'local_shell_call': {
      const action = isObject(p.action) ? p.action : {};
      return [{ type: 'tool_call', ts, id: str(p.call_id) ?? `shell-${ts}`, name: 'local_shell', input: { command: action.command, workdir: action.working_directory } }];
    }
    case 'web_search_call': {
      const action = isObject(p.action) ? p.action : {};
      return [{ type: 'tool_call', ts, id: `search-${ts}`, name: 'web_search', input: { query: action.query ?? action.url } }];
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
      return [{ type: 'tool_result', ts, id: str(p.call_id) ?? '', ...outputOf(p.output) }];
    case 'ghost_snapshot':
    case 'compaction':
    case 'compaction_summary':
      return [];
    default:
      return [unknownItem(`response_item ${String(p.type)}`, p, ts)];
  }
}

export const codexParser: LineParser<Record<string, never>> = {
  source: 'codex',
  initialState: () => ({}),
  record(_state, value, fallbackTs): ParsedRecord {
    if (!isObject(value)) return { items: [unknownItem('not an object', value, fallbackTs)] };
    const ts = timeOf(value.timestamp, fallbackTs);
    const payload = isObject(value.payload) ? value.payload : {};
    const type = str(value.type) ?? '';
    if (type === 'session_meta') {
      return {
        items: [],
        meta: {
          ...(str(payload.id) ? { agentSessionId: str(payload.id) } : {}),
          ...(str(payload.cwd) ? { cwd: str(payload.cwd) } : {}),
          ...(str(payload.cli_version) ? { version: str(payload.cli_version) } : {}),
        },
      };
    }
    if (type === 'response_item') return { items: responseItem(payload, ts) };
    if (QUIET.has(type)) return { items: [] };
    return { items: [unknownItem(type || 'untyped', value, ts)] };
  },
};
