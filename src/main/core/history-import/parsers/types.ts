import type { ImportSourceId } from '../../../../shared/contract/history-import';

/**
 * What a parser makes of an agent's stored session: a conversation in a small vocabulary, which
 * transcript.ts writes as the ACP messages a live session would have logged.
 */
export type TranscriptItem =
  | { type: 'prompt'; ts: number; text: string }
  | { type: 'agent'; ts: number; text: string }
  | { type: 'thought'; ts: number; text: string }
  /** `name` as the agent called its tool (Bash, write_file, shell…); `input` its arguments. */
  | { type: 'tool_call'; ts: number; id: string; name: string; input: unknown }
  | { type: 'tool_result'; ts: number; id: string; output: string; failed: boolean }
  /** A record of a kind the parser does not know (a newer format): kept as text, never dropped. */
  | { type: 'unknown'; ts: number; kind: string; text: string };

/** What a session's records say about it (each parser fills what its format has). */
export interface SessionMeta {
  /** The agent's own session id (what session/load and session/resume take). */
  agentSessionId?: string;
  cwd?: string;
  title?: string;
  /** The agent's version that wrote it. */
  version?: string;
}

/** One parsed record: the items it adds and what it says of the session. */
export interface ParsedRecord {
  items: TranscriptItem[];
  meta?: SessionMeta;
}

/**
 * A parser of one agent's JSONL session files. Stateless between records except for `state`, which is
 * stored with the file so that an import picks up where the last one stopped (a grown file is read from
 * its last complete line on).
 */
export interface LineParser<S> {
  readonly source: ImportSourceId;
  initialState(): S;
  /** One record (a parsed JSON line). `fallbackTs`: the file's time, for records without one. */
  record(state: S, value: unknown, fallbackTs: number): ParsedRecord;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** An ISO time (or ms number) as ms since the epoch; `fallback` when absent or unreadable. */
export function timeOf(v: unknown, fallback: number): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string') {
    const t = Date.parse(v);
    if (Number.isFinite(t)) return t;
  }
  return fallback;
}

/**
 * What a record of Claude Code's or Qwen Code's (one shape) says of its session: its id, folder and the tool's version.
 * Every record repeats them: a record that says what the one before it said gets the same object (read-only).
 */
function recordMetaOf(): (value: Record<string, unknown>) => SessionMeta {
  let last: { sessionId?: string; cwd?: string; version?: string; meta: SessionMeta } | null = null;
  return (value) => {
    const sessionId = str(value.sessionId);
    const cwd = str(value.cwd);
    const version = str(value.version);
    if (last && last.sessionId === sessionId && last.cwd === cwd && last.version === version) return last.meta;
    const meta: SessionMeta = { ...(sessionId ? { agentSessionId: sessionId } : {}), ...(cwd ? { cwd } : {}), ...(version ? { version } : {}) };
    last = { sessionId, cwd, version, meta };
    return meta;
  };
}

/** A record of Claude Code's or Qwen Code's shape, read as far as the two agree: its `type`, time and session fields. */
export interface SessionRecord {
  value: Record<string, unknown>;
  type: string;
  ts: number;
}

/**
 * A parser of Claude Code's or Qwen Code's records (one shape, stateless): a line that is not an object is kept
 * as unknown, and every record's session id, folder and version go with what `parse` makes of it (`parse`'s
 * own `meta`, a title, added).
 */
export function sessionRecordParser(source: ImportSourceId, parse: (record: SessionRecord) => ParsedRecord): LineParser<Record<string, never>> {
  const recordMeta = recordMetaOf();
  return {
    source,
    initialState: () => ({}),
    record(_state, value, fallbackTs) {
      if (!isObject(value)) return { items: [unknownItem('not an object', value, fallbackTs)] };
      const parsed = parse({ value, type: str(value.type) ?? '', ts: timeOf(value.timestamp, fallbackTs) });
      const meta = recordMeta(value);
      return { items: parsed.items, meta: parsed.meta ? { ...meta, ...parsed.meta } : meta };
    },
  };
}

/** The text of an unknown record, bounded (the record is kept, not its megabytes). */
export function unknownItem(kind: string, value: unknown, ts: number): TranscriptItem {
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return { type: 'unknown', ts, kind, text: text.length > 4000 ? `${text.slice(0, 4000)}… (${text.length} characters)` : text };
}
