import type { PermissionOption, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { Draft } from './draft';
import { isRecord } from './messages';
import type { MetaTerminal, PendingPermission, RuleAnswer, StoredTerminal, ThreadEvent, ToolCallEntry, ToolEntryStatus } from './types';

const TOOL_KINDS: ReadonlySet<string> = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);
const STATUSES: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed', 'failed']);
/** Keep at most this many characters of a `_meta` terminal's output (its tail). */
const META_TERMINAL_MAX_CHARS = 1_000_000;

export const isFinished = (status: ToolEntryStatus): boolean => status === 'completed' || status === 'failed' || status === 'cancelled';

/** Index of the entry for `toolCallId`, creating a placeholder entry for an id never announced (trap 1). */
function upsertIndex(d: Draft, toolCallId: string): number {
  let index = d.toolIndexOf(toolCallId);
  if (index === undefined) {
    const entry: ToolCallEntry = {
      kind: 'tool_call',
      id: d.nextEntryId(),
      toolCallId,
      title: 'Tool call',
      name: null,
      toolKind: 'other',
      status: 'pending',
      content: [],
      locations: [],
      permission: null,
      metaTerminals: null,
    };
    index = d.push(entry);
    d.setToolIndex(toolCallId, index);
  }
  return index;
}

/**
 * `tool_call` and `tool_call_update` are both upserts: an update for an unknown id creates the entry, a
 * repeated `tool_call` merges into the existing one. Only fields present (and well-formed) change.
 */
export function applyToolCall(d: Draft, u: Record<string, unknown>): void {
  if (typeof u.toolCallId !== 'string') return;
  const index = upsertIndex(d, u.toolCallId);
  if (!d.holds(index)) return d.missed(index);
  mergeToolFields(d.mutable<ToolCallEntry>(index), u);
}

function mergeToolFields(e: ToolCallEntry, u: Record<string, unknown>): void {
  if (typeof u.title === 'string') e.title = u.title;
  if (typeof u.name === 'string') e.name = u.name;
  if (typeof u.kind === 'string' && TOOL_KINDS.has(u.kind)) e.toolKind = u.kind as ToolKind;
  if (typeof u.status === 'string' && STATUSES.has(u.status)) e.status = u.status as ToolEntryStatus;
  if (Array.isArray(u.content)) {
    const content = u.content.filter((c): c is ToolCallContent => isRecord(c) && typeof c.type === 'string');
    const diffs = (list: readonly ToolCallContent[]) => list.filter((c): c is Extract<ToolCallContent, { type: 'diff' }> => c.type === 'diff');
    // A later update that replaces the content without a diff keeps the last diff (shown as such).
    const before = diffs(e.content);
    if (diffs(content).length > 0) delete e.replacedDiffs;
    else if (before.length > 0) e.replacedDiffs = before;
    e.content = content;
  }
  if (Array.isArray(u.locations)) e.locations = u.locations.filter((l): l is ToolCallLocation => isRecord(l) && typeof l.path === 'string');
  if ('rawInput' in u) e.rawInput = u.rawInput;
  if ('rawOutput' in u) e.rawOutput = u.rawOutput;
  if (isRecord(u._meta)) applyTerminalMeta(e, u._meta);
}

/**
 * Trap 7: an agent that runs commands itself (Claude with `terminal_output`) puts a terminal into the tool
 * call that the client never created and streams its output in `_meta`.
 */
function applyTerminalMeta(e: ToolCallEntry, meta: Record<string, unknown>): void {
  const info = meta.terminal_info;
  const out = meta.terminal_output;
  const exit = meta.terminal_exit;
  if (!isRecord(info) && !isRecord(out) && !isRecord(exit)) return;
  const get = (id: string): MetaTerminal => {
    const terminals = (e.metaTerminals ??= {});
    const copy = { ...(terminals[id] ?? { output: '', exit: null }) };
    terminals[id] = copy;
    return copy;
  };
  if (isRecord(info) && typeof info.terminal_id === 'string') get(info.terminal_id);
  if (isRecord(out) && typeof out.terminal_id === 'string' && typeof out.data === 'string') {
    const t = get(out.terminal_id);
    t.output += out.data;
    if (t.output.length > META_TERMINAL_MAX_CHARS * 2) t.output = t.output.slice(-META_TERMINAL_MAX_CHARS);
  }
  if (isRecord(exit) && typeof exit.terminal_id === 'string') {
    get(exit.terminal_id).exit = {
      exitCode: typeof exit.exit_code === 'number' ? exit.exit_code : null,
      signal: typeof exit.signal === 'string' ? exit.signal : null,
    };
  }
}

export function applyPermission(d: Draft, requestId: string, toolCall: unknown, options: PermissionOption[], extra: Pick<PendingPermission, 'note' | 'rules'> = {}): void {
  if (!isRecord(toolCall) || typeof toolCall.toolCallId !== 'string') return;
  const index = upsertIndex(d, toolCall.toolCallId);
  if (!d.holds(index)) return d.missed(index);
  const e = d.mutable<ToolCallEntry>(index);
  mergeToolFields(e, toolCall);
  e.permission = { requestId, options: Array.isArray(options) ? options : [], ...(extra.note ? { note: extra.note } : {}), ...(extra.rules ? { rules: extra.rules } : {}) };
}

export function applyPermissionResolved(d: Draft, requestId: string, toolCallId: string, byRule?: RuleAnswer): void {
  const index = d.toolIndexOf(toolCallId);
  if (index === undefined) return;
  if (!d.holds(index)) return d.missed(index);
  const entry = d.at(index);
  if (entry?.kind !== 'tool_call' || entry.permission?.requestId !== requestId) return;
  const e = d.mutable<ToolCallEntry>(index);
  e.permission = null;
  if (byRule) e.ruled = byRule;
}

/** Marks the unfinished tool calls of the current turn (cancel → cancelled, failed turn → failed). */
export function markUnfinishedToolCalls(d: Draft, from: number, status: 'failed' | 'cancelled'): void {
  d.missed(Math.max(0, from), d.first);
  for (let i = Math.max(0, from, d.first); i < d.length; i++) {
    const entry = d.at(i);
    if (entry?.kind !== 'tool_call') continue;
    if (isFinished(entry.status) && !entry.permission) continue;
    const e = d.mutable<ToolCallEntry>(i);
    if (!isFinished(e.status)) e.status = status;
    e.permission = null;
  }
}

/** Most characters of a stored terminal's output kept in the thread (its tail). */
const STORED_TERMINAL_MAX_CHARS = 1_000_000;

/** A stored answer to terminal/output or terminal/wait_for_exit: kept on the tool calls that show that terminal. */
export function applyStoredTerminal(d: Draft, e: Extract<ThreadEvent, { type: 'terminal_output' }>): void {
  let found = false;
  for (let i = d.length - 1; i >= d.first; i--) {
    const entry = d.at(i);
    if (entry?.kind !== 'tool_call' || !entry.content.some((c) => c.type === 'terminal' && c.terminalId === e.terminalId)) continue;
    const t = d.mutable<ToolCallEntry>(i);
    const prev: StoredTerminal = t.storedTerminals?.[e.terminalId] ?? { output: '', truncated: false, exit: null };
    const output = e.output === null ? prev.output : e.output.length > STORED_TERMINAL_MAX_CHARS ? e.output.slice(-STORED_TERMINAL_MAX_CHARS) : e.output;
    const next: StoredTerminal = {
      output,
      truncated: e.output === null ? prev.truncated : e.truncated || e.output.length > STORED_TERMINAL_MAX_CHARS,
      exit: e.exit ?? prev.exit,
    };
    t.storedTerminals = { ...t.storedTerminals, [e.terminalId]: next };
    found = true;
  }
  // A terminal is shown by the tool call that ran it, nearly always among the latest entries: the earlier
  // ones (when not held) are only looked at when it is not there.
  if (!found) d.missed(0, d.first);
}

/**
 * A tool call in words (search and exports): its title, text content, the new side of its diffs, its
 * terminals' output, what it returned, and the command of one that runs something. Not the old side of
 * diffs nor other inputs: they would match what the call replaced or was merely given.
 */
export function toolCallText(e: ToolCallEntry): string[] {
  // The agent's content is kept as sent (only its `type` checked): every field is looked at as unknown.
  const out: unknown[] = [e.title];
  const diffs = e.content.some((c) => c.type === 'diff') ? e.content : [...e.content, ...(e.replacedDiffs ?? [])];
  for (const c of diffs) {
    if (c.type === 'content') out.push(...stringsIn(c.content, ['text', 'uri']));
    else if (c.type === 'diff') out.push(c.newText);
  }
  for (const t of Object.values(e.storedTerminals ?? {})) out.push(t?.output);
  for (const t of Object.values(e.metaTerminals ?? {})) out.push(t?.output);
  if (e.rawOutput !== undefined) out.push(...stringsIn(e.rawOutput));
  if (e.toolKind === 'execute' && e.rawInput !== undefined) out.push(...stringsIn(e.rawInput));
  return out.filter((s): s is string => typeof s === 'string' && s.length > 0);
}

/** String values in a JSON value, in order (only those under `keys`, when given). */
function stringsIn(v: unknown, keys?: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (x: unknown, key: string | null): void => {
    if (typeof x === 'string') {
      if (!keys || (key !== null && keys.includes(key))) out.push(x);
    } else if (Array.isArray(x)) for (const y of x) walk(y, key);
    else if (isRecord(x)) for (const [k, y] of Object.entries(x)) walk(y, k);
  };
  walk(v, null);
  return out;
}
