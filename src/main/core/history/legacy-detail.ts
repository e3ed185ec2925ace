import type { ContentBlock, PlanEntry, ToolCallContent, ToolKind } from '@agentclientprotocol/sdk';
import type { MessagePart, ThreadEntry, ToolEntryStatus } from '../../../shared/acp-thread';
import type { Detail } from './entry-drafts';

/**
 * The compatibility reader of rows written before history stored thread entries (they are not rewritten):
 * their prompt, tool, plan and failed-turn details, read as the thread entries they were made from. A row
 * written again (a tool call updated later) is stored in the current shape.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const numOrNull = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

const TOOL_KINDS: ReadonlySet<string> = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);
const PLAN_STATUS: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed']);
const PLAN_PRIORITY: ReadonlySet<string> = new Set(['high', 'medium', 'low']);

function promptPart(b: Obj): MessagePart {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: str(b.text) };
    case 'resource_link':
      return { type: 'block', block: { type: 'resource_link', uri: str(b.uri), name: str(b.name) } };
    case 'resource':
      return { type: 'block', block: { type: 'resource', resource: { uri: str(b.uri), text: str(b.text) } } };
    case 'image':
      // The image data was never kept: shown as a chip.
      return { type: 'block', block: { type: 'image', mimeType: str(b.mimeType), ...(typeof b.uri === 'string' ? { uri: b.uri } : {}) } as unknown as ContentBlock };
    default:
      return { type: 'text', text: `[${str(b.blockType)}]` };
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

function parseRaw(raw: unknown): unknown {
  if (typeof raw !== 'string') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function toolEntry(ref: string, t: Obj): ThreadEntry {
  const content: ToolCallContent[] = [];
  if (str(t.text)) content.push({ type: 'content', content: { type: 'text', text: str(t.text) } });
  const replacedDiffs: Array<Extract<ToolCallContent, { type: 'diff' }>> = [];
  for (const d of list(t.diffs)) (d.replaced ? replacedDiffs : content).push({ type: 'diff', path: str(d.path), oldText: strOrNull(d.oldText), newText: str(d.newText) });
  const terminals = list(t.terminals);
  const status = str(t.status);
  const rawInput = parseRaw(t.rawInput);
  const rawOutput = parseRaw(t.rawOutput);
  return {
    kind: 'tool_call',
    id: ref,
    toolCallId: str(t.toolCallId),
    title: str(t.title),
    name: null,
    toolKind: TOOL_KINDS.has(str(t.kind)) ? (str(t.kind) as ToolKind) : 'other',
    status: (['pending', 'in_progress', 'completed', 'failed', 'cancelled'].includes(status) ? status : 'cancelled') as ToolEntryStatus,
    content,
    ...(replacedDiffs.length > 0 ? { replacedDiffs } : {}),
    locations: (Array.isArray(t.paths) ? t.paths : []).filter((p): p is string => typeof p === 'string').map((path) => ({ path })),
    ...(rawInput !== undefined ? { rawInput } : {}),
    ...(rawOutput !== undefined ? { rawOutput } : {}),
    permission: null,
    metaTerminals:
      terminals.length > 0
        ? Object.fromEntries(
            terminals.map((x) => {
              const exitCode = numOrNull(x.exitCode);
              const signal = strOrNull(x.signal);
              return [str(x.terminalId), { output: str(x.output), exit: exitCode === null && signal === null ? null : { exitCode, signal } }];
            }),
          )
        : null,
  };
}

/** A stored detail in the current shape (older rows' details converted as they are read). */
export function currentDetail(raw: unknown, ref: string | null): Detail | null {
  if (!isObj(raw)) return null;
  const id = ref ?? '';
  switch (raw.kind) {
    case 'prompt':
      return { kind: 'entry', entry: { kind: 'user_message', id, promptId: id, messageId: null, parts: mergeText(list(raw.blocks).map(promptPart)) } };
    case 'tool':
      return isObj(raw.tool) ? { kind: 'entry', entry: toolEntry(id, raw.tool) } : null;
    case 'plan':
      return {
        kind: 'entry',
        entry: {
          kind: 'plan',
          id,
          entries: list(raw.entries).map((p) => ({
            content: str(p.content),
            status: (PLAN_STATUS.has(str(p.status)) ? p.status : 'pending') as PlanEntry['status'],
            priority: (PLAN_PRIORITY.has(str(p.priority)) ? p.priority : 'medium') as PlanEntry['priority'],
          })),
        },
      };
    case 'stop': {
      const error = isObj(raw.error) ? raw.error : null;
      if (!error) return { kind: 'stop', stopReason: strOrNull(raw.stopReason), error: null };
      return { kind: 'entry', entry: { kind: 'turn_error', id, code: numOrNull(error.code) ?? 'error', message: str(error.message) } };
    }
    default:
      return raw as Detail;
  }
}
