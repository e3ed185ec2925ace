import type { ContentBlock, PlanEntry, StopReason, ToolCallContent, ToolKind } from '@agentclientprotocol/sdk';
import type { MessagePart, ThreadEntry, ToolEntryStatus } from '@shared/acp-thread';
import type { HistoryEntry, PromptBlock, ToolCallInfo } from '@shared/contract/history';

/**
 * Stored transcript entries (history.entries) as the live thread's entries, so a past session is drawn by
 * the same components as a live one. Entries with no live counterpart (file writes, bare terminal output,
 * turn ends) return null and are drawn by the transcript view itself.
 */

const TOOL_KINDS = new Set<ToolKind>(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);
const PLAN_STATUS = new Set<PlanEntry['status']>(['pending', 'in_progress', 'completed']);
const PLAN_PRIORITY = new Set<PlanEntry['priority']>(['high', 'medium', 'low']);
export const STOP_REASONS = new Set<StopReason>(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']);

function promptPart(b: PromptBlock): MessagePart {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'resource_link':
      return { type: 'block', block: { type: 'resource_link', uri: b.uri, name: b.name } };
    case 'resource':
      return { type: 'block', block: { type: 'resource', resource: { uri: b.uri, text: b.text ?? '' } } };
    case 'image':
      // The image data is not kept in the index: shown as a chip.
      return { type: 'block', block: { type: 'image', mimeType: b.mimeType, ...(b.uri ? { uri: b.uri } : {}) } as unknown as ContentBlock };
    case 'other':
      return { type: 'text', text: `[${b.blockType}]` };
  }
}

/** Adjacent text parts merged (a prompt's text blocks read as one message). */
function mergeText(parts: MessagePart[]): MessagePart[] {
  const out: MessagePart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (p.type === 'text' && last?.type === 'text') out[out.length - 1] = { type: 'text', text: `${last.text}\n\n${p.text}` };
    else out.push(p);
  }
  return out;
}

function parseRaw(raw: string | null): unknown {
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function toolStatus(status: string): ToolEntryStatus {
  if (status === 'completed' || status === 'failed' || status === 'cancelled') return status;
  // A stored tool call that never finished: the turn ended (or the app stopped) while it ran.
  return 'cancelled';
}

function toolEntry(id: string, t: ToolCallInfo): ThreadEntry {
  const content: ToolCallContent[] = [];
  if (t.text) content.push({ type: 'content', content: { type: 'text', text: t.text } });
  const replacedDiffs: Array<Extract<ToolCallContent, { type: 'diff' }>> = [];
  for (const d of t.diffs) (d.replaced ? replacedDiffs : content).push({ type: 'diff', path: d.path, oldText: d.oldText, newText: d.newText });
  const metaTerminals =
    t.terminals.length > 0
      ? Object.fromEntries(t.terminals.map((x) => [x.terminalId, { output: x.output, exit: x.exitCode === null && x.signal === null ? null : { exitCode: x.exitCode, signal: x.signal } }]))
      : null;
  const rawInput = parseRaw(t.rawInput);
  const rawOutput = parseRaw(t.rawOutput);
  return {
    kind: 'tool_call',
    id,
    toolCallId: t.toolCallId,
    title: t.title,
    name: null,
    toolKind: TOOL_KINDS.has(t.kind as ToolKind) ? (t.kind as ToolKind) : 'other',
    status: toolStatus(t.status),
    content,
    ...(replacedDiffs.length > 0 ? { replacedDiffs } : {}),
    locations: t.paths.map((path) => ({ path })),
    ...(rawInput !== undefined ? { rawInput } : {}),
    ...(rawOutput !== undefined ? { rawOutput } : {}),
    permission: null,
    metaTerminals,
  };
}

export function toThreadEntry(e: HistoryEntry): ThreadEntry | null {
  const id = `h${e.id}`;
  switch (e.kind) {
    case 'prompt':
      return { kind: 'user_message', id, promptId: null, messageId: null, parts: mergeText((e.prompt ?? [{ type: 'text', text: e.text }]).map(promptPart)) };
    case 'user':
      return { kind: 'user_message', id, promptId: null, messageId: null, parts: [{ type: 'text', text: e.text }] };
    case 'agent':
      return { kind: 'agent_message', id, messageId: null, parts: [{ type: 'text', text: e.text }] };
    case 'thought':
      return { kind: 'thought', id, messageId: null, parts: [{ type: 'text', text: e.text }] };
    case 'tool':
      return e.tool ? toolEntry(id, e.tool) : { kind: 'notice', id, severity: 'info', title: e.text || 'Tool call', description: null };
    case 'plan':
      return {
        kind: 'plan',
        id,
        entries: (e.plan ?? []).map((p) => ({
          content: p.content,
          status: PLAN_STATUS.has(p.status as PlanEntry['status']) ? (p.status as PlanEntry['status']) : 'pending',
          priority: PLAN_PRIORITY.has(p.priority as PlanEntry['priority']) ? (p.priority as PlanEntry['priority']) : 'medium',
        })),
      };
    case 'entry':
      return e.entry ? { ...e.entry, id } : null;
    case 'stop':
      if (e.stop?.error) return { kind: 'turn_error', id, code: e.stop.error.code ?? 'error', message: e.stop.error.message };
      return null;
    default:
      return null;
  }
}

const cache = new WeakMap<HistoryEntry, ThreadEntry | null>();

/** toThreadEntry, once per entry object (the views are memoized on identity). */
export function adapted(e: HistoryEntry): ThreadEntry | null {
  let t = cache.get(e);
  if (t === undefined) cache.set(e, (t = toThreadEntry(e)));
  return t;
}
