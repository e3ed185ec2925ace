import { partsToItems } from './qwen-code';
import { isObject, str, timeOf, unknownItem, type LineParser, type ParsedRecord, type TranscriptItem } from './types';

/**
 * Gemini CLI's chats, `~/.gemini/tmp/<project>/chats/session-*.jsonl` (fixtures:
 * test/fixtures/agent-histories/gemini-*), the project's folder named in `~/.gemini/projects.json`. The first
 * line is the session's header (sessionId, startTime); then messages (`type` user | gemini | info | error |
 * warning), each of which may be written again with more in it (a gemini message gains its tool calls'
 * results), and `$set` lines that replace fields (`messages`, `lastUpdated`). A message is imported once, when
 * first seen; a later copy adds only tool calls and results not imported yet.
 */

export interface GeminiState {
  /** Message id → the ids of its tool calls already imported, and whether their results were. */
  seen: Record<string, { calls: string[]; results: string[] }>;
}

/** Gemini CLI's own preamble, sent as the first user message of a session; it names the workspace folders. */
const PREAMBLE = /^\s*<session_context>/;
const WORKSPACE = /Workspace Directories:\*{0,2}\s*\n\s*-\s*(\/[^\n]*)/;

/** The session's folder, from the preamble of a message list. */
function preambleCwd(messages: unknown[]): string | undefined {
  for (const m of messages) {
    if (!isObject(m) || m.type !== 'user') continue;
    const text = textOf(m.content);
    if (PREAMBLE.test(text)) return WORKSPACE.exec(text)?.[1]?.trim();
  }
  return undefined;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

/** A message of the conversation, as Gemini CLI tells a session worth resuming: a prompt, or an answer, a tool call or a thought. */
function isConversation(m: unknown): boolean {
  if (!isObject(m)) return false;
  if (m.type === 'user') {
    const text = textOf(m.content).trim();
    return text !== '' && !PREAMBLE.test(text);
  }
  if (m.type === 'gemini') return textOf(m.content).trim() !== '' || (Array.isArray(m.toolCalls) && m.toolCalls.length > 0) || (Array.isArray(m.thoughts) && m.thoughts.length > 0);
  return false;
}

/**
 * Whether a record of a chat file holds a message of the conversation. Gemini CLI writes a file as it starts,
 * with its preamble only: such a file is no session (not counted, listed nor imported).
 */
export function geminiHasMessage(record: unknown): boolean {
  if (!isObject(record)) return false;
  if (isObject(record.$set)) return Array.isArray(record.$set.messages) && record.$set.messages.some(isConversation);
  return isConversation(record);
}

function message(state: GeminiState, m: Record<string, unknown>, fallbackTs: number): TranscriptItem[] {
  const id = str(m.id);
  const type = str(m.type) ?? '';
  const ts = timeOf(m.timestamp, fallbackTs);
  if (!id) return [unknownItem(`${type || 'untyped'} message without id`, m, ts)];
  const first = !(id in state.seen);
  const seen = (state.seen[id] ??= { calls: [], results: [] });
  const items: TranscriptItem[] = [];
  if (type === 'user') {
    if (!first) return [];
    const text = textOf(m.content);
    // Tool results come back as user messages of functionResponse parts; their gemini message holds them too.
    if (!text || PREAMBLE.test(text)) return [];
    return partsToItems(Array.isArray(m.content) ? m.content : [{ text }], 'user', ts);
  }
  if (type === 'gemini') {
    if (first) {
      if (Array.isArray(m.thoughts)) {
        for (const t of m.thoughts) if (isObject(t)) items.push({ type: 'thought', ts, text: [str(t.subject), str(t.description)].filter(Boolean).join(': ') });
      }
      const text = textOf(m.content);
      if (text) items.push({ type: 'agent', ts, text });
    }
    if (Array.isArray(m.toolCalls)) {
      for (const call of m.toolCalls) {
        if (!isObject(call)) continue;
        const callId = str(call.id) ?? `${str(call.name) ?? 'tool'}-${ts}`;
        if (!seen.calls.includes(callId)) {
          seen.calls.push(callId);
          items.push({ type: 'tool_call', ts: timeOf(call.timestamp, ts), id: callId, name: str(call.name) ?? 'tool', input: call.args ?? {} });
        }
        const status = str(call.status);
        if (!seen.results.includes(callId) && (status === 'success' || status === 'error' || status === 'cancelled')) {
          seen.results.push(callId);
          const response = Array.isArray(call.result) ? call.result.map((r) => (isObject(r) && isObject(r.functionResponse) ? r.functionResponse.response : undefined)).find(Boolean) : undefined;
          const output = isObject(response) ? (str(response.output) ?? str(response.error) ?? JSON.stringify(response)) : typeof call.resultDisplay === 'string' ? call.resultDisplay : '';
          items.push({ type: 'tool_result', ts: timeOf(call.timestamp, ts), id: callId, output, failed: status !== 'success' });
        }
      }
    }
    return items;
  }
  if (type === 'info' || type === 'error' || type === 'warning') return first && textOf(m.content) ? [{ type: 'agent', ts, text: `(${type}) ${textOf(m.content)}` }] : [];
  return first ? [unknownItem(`message ${type || 'untyped'}`, m, ts)] : [];
}

export const geminiCliParser: LineParser<GeminiState> = {
  source: 'gemini-cli',
  initialState: () => ({ seen: {} }),
  record(state, value, fallbackTs): ParsedRecord {
    if (!isObject(value)) return { items: [unknownItem('not an object', value, fallbackTs)] };
    if (isObject(value.$set)) {
      const set = value.$set;
      if (!Array.isArray(set.messages)) return { items: [] };
      const cwd = preambleCwd(set.messages);
      return { items: set.messages.flatMap((m) => (isObject(m) ? message(state, m, fallbackTs) : [])), ...(cwd ? { meta: { cwd } } : {}) };
    }
    if (typeof value.sessionId === 'string' && typeof value.startTime === 'string' && !('type' in value)) {
      return { items: [], meta: { agentSessionId: value.sessionId } };
    }
    if (typeof value.type === 'string') {
      const cwd = preambleCwd([value]);
      return { items: message(state, value, fallbackTs), ...(cwd ? { meta: { cwd } } : {}) };
    }
    return { items: [unknownItem('untyped', value, fallbackTs)] };
  },
};
