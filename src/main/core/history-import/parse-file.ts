import { basename } from 'node:path';
import type { ImportSourceId } from '../../../shared/import-sources';
import { BLOCK_CHARS, encodeBlock, MAX_PACKED, type BlockMessage, type Direction, type EncodedBlock, type LogEntry, type MessageLog } from '../store/message-log';
import { SkipFile } from './line-reader';
import { LINE_PARSERS } from './parsers/line-parsers';
import type { SessionMeta, TranscriptItem } from './parsers/types';
import type { NewLinesReader } from './remote-stores';
import { finish, initialWireState, toWire, type WireState } from './transcript';

/**
 * What one session file gained since its last import, read, parsed and written as the log's messages, with no
 * store at hand: the part of an import that runs in the parsing threads (parse-pool.ts) for a large import, or
 * in the main thread for a small one. The main thread decides, from the store, what becomes of it.
 */

/** A file's state between imports (stored with it as JSON). */
export interface FileState {
  parser: unknown;
  wire: WireState;
  meta: SessionMeta;
  /** The time of the last record read (what a record without a time of its own takes). */
  lastTs?: number;
}

export interface ParseJob {
  source: ImportSourceId;
  /** The path to read (on its host). */
  path: string;
  offset: number;
  /** The state where the last import stopped (JSON); null: from the start. */
  state: string | null;
  /** The file's time (for a file none of whose records has a time). */
  mtimeMs: number;
  /** Give the messages as compressed blocks (a large import: see BlockBatch). */
  blocks?: boolean;
}

/** The kinds of message an import writes, by index (a batch crosses threads as arrays, not objects). */
export const WIRE_KINDS: ReadonlyArray<readonly [Direction, string | null]> = [
  ['a2c', 'session/update'],
  ['c2a', 'session/prompt'],
  ['a2c', null],
];

/** A session's new messages, as parallel arrays. */
export interface WireBatch {
  bodies: string[];
  ts: Float64Array;
  kinds: Uint8Array;
}

/**
 * A session's new messages as compressed blocks, as the store packer makes of a quiet session's log (a large
 * import writes them so: its parsing threads compress, and the main thread writes a sixth of the bytes), as
 * flat arrays (transferred between threads, not copied).
 */
export interface BlockBatch {
  /** The blocks one after another: block i ends at ends[i]. */
  data: Uint8Array;
  ends: Uint32Array;
  /** Each block's messages, its first message's time and kind (WIRE_KINDS). */
  n: Uint16Array;
  ts: Float64Array;
  kinds: Uint8Array;
}

/** `wire` as blocks of consecutive messages (up to MAX_PACKED, or BLOCK_CHARS characters, each). */
export function encodeBlocks(wire: WireBatch): BlockBatch {
  const count = wire.bodies.length;
  const parts: Uint8Array[] = [];
  const n: number[] = [];
  const ts: number[] = [];
  const kinds: number[] = [];
  for (let i = 0; i < count; ) {
    const run: BlockMessage[] = [];
    let chars = 0;
    const first = i;
    while (i < count && run.length < MAX_PACKED && (run.length === 0 || chars + wire.bodies[i]!.length <= BLOCK_CHARS)) {
      const [direction, method] = WIRE_KINDS[wire.kinds[i]!]!;
      run.push({ ts: wire.ts[i]!, direction, method, body: wire.bodies[i]! });
      chars += wire.bodies[i]!.length;
      i++;
    }
    // (The fast format: the parsing, this compression included, is what a large import waits for.)
    parts.push(encodeBlock(run, wire.ts[first]!, 'fast'));
    n.push(run.length);
    ts.push(wire.ts[first]!);
    kinds.push(wire.kinds[first]!);
  }
  const ends = new Uint32Array(parts.length);
  let size = 0;
  parts.forEach((p, k) => (ends[k] = size += p.length));
  const data = new Uint8Array(size);
  parts.forEach((p, k) => data.set(p, k === 0 ? 0 : ends[k - 1]!));
  return { data, ends, n: Uint16Array.from(n), ts: Float64Array.from(ts), kinds: Uint8Array.from(kinds) };
}

/** The blocks of a batch, as the log writes them (their bytes are views of the batch's). */
export function blocksOf(b: BlockBatch): EncodedBlock[] {
  return Array.from(b.ends, (end, k) => {
    const [direction, method] = WIRE_KINDS[b.kinds[k]!]!;
    const start = k === 0 ? 0 : b.ends[k - 1]!;
    return { n: b.n[k]!, ts: b.ts[k]!, direction, method, body: b.data.subarray(start, end) };
  });
}

/** Log entries appended per transaction of a plain batch (each commits with the history index's rows for them). */
const APPEND_BATCH = 4096;

/** Appends a session's messages to the log: a plain batch as entries, blocks as they are. */
export function writeMessages(log: MessageLog, sessionId: string, messages: WireBatch | BlockBatch): void {
  if (!('bodies' in messages)) return log.appendBlocks(sessionId, blocksOf(messages));
  const n = messages.bodies.length;
  for (let i = 0; i < n; i += APPEND_BATCH) {
    const entries: LogEntry[] = [];
    for (let k = i; k < n && k < i + APPEND_BATCH; k++) {
      const [direction, method] = WIRE_KINDS[messages.kinds[k]!]!;
      entries.push({ sessionId, direction, method, body: messages.bodies[k]!, ts: messages.ts[k]! });
    }
    log.appendMany(entries);
  }
}

export interface ParsedFile {
  /** Why the file is not read (SkipFile's reason), or what failed while it was. */
  refused?: string;
  failed?: string;
  ino: number;
  size: number;
  /** Where the next import goes on from (after the last complete line read). */
  offset: number;
  /** Lines left out, with their reasons. */
  skips: string[];
  keptAsText: number;
  /** Whether a prompt, a reply or a tool call was read (a session with none is not imported yet). */
  conversation: boolean;
  firstTs: number | null;
  lastTs: number | null;
  meta: SessionMeta;
  agentSessionId: string;
  /** The file's state after what was read (JSON). */
  state: string;
  /** The messages (none if `blocks` holds them). */
  wire: WireBatch;
  blocks?: BlockBatch;
}


const CONVERSATION = new Set<TranscriptItem['type']>(['prompt', 'agent', 'tool_call']);

/** What a record says of its session, over what earlier ones said (every record repeats it: no copy per line). */
function mergeMeta(meta: SessionMeta, add: SessionMeta): void {
  if (add.agentSessionId !== undefined) meta.agentSessionId = add.agentSessionId;
  if (add.cwd !== undefined) meta.cwd = add.cwd;
  if (add.title !== undefined) meta.title = add.title;
  if (add.version !== undefined) meta.version = add.version;
}

/** `items` as the log's messages of the agent's session `agentSessionId`, the turn left open closed at the end. */
export function wireOf(agentSessionId: string, items: readonly TranscriptItem[], wire: WireState, endTs: number): WireBatch {
  const entries = toWire('', agentSessionId, items, wire);
  entries.push(...finish('', wire, items.at(-1)?.ts ?? endTs));
  const out: WireBatch = { bodies: new Array<string>(entries.length), ts: new Float64Array(entries.length), kinds: new Uint8Array(entries.length) };
  entries.forEach((e, i) => {
    out.bodies[i] = e.body;
    out.ts[i] = Math.round(e.ts ?? endTs);
    out.kinds[i] = e.method === 'session/update' ? 0 : e.method === 'session/prompt' ? 1 : 2;
  });
  return out;
}

/**
 * Gives the items read before any record with a time the first time after them (the file's time, rounded, if
 * none has one): every stored time is a whole number of ms, and an entry with a time of its own keeps it.
 */
function itemTimes(items: TranscriptItem[], mtimeMs: number): void {
  let next = Number.isFinite(mtimeMs) ? Math.round(mtimeMs) : Date.now();
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (Number.isFinite(item.ts)) next = item.ts;
    else item.ts = next;
  }
}

const empty = (): WireBatch => ({ bodies: [], ts: new Float64Array(0), kinds: new Uint8Array(0) });

/** Reads and parses what `job`'s file gained; never throws (a file that cannot be read says why). */
export function parseFile(job: ParseJob, read: NewLinesReader, shouldStop: () => boolean): ParsedFile {
  try {
    return parse(job, read, shouldStop);
  } catch (e) {
    // (A stored state that is not JSON, a parser's bug.)
    return { ino: 0, size: 0, offset: job.offset, skips: [], keptAsText: 0, conversation: false, firstTs: null, lastTs: null, meta: {}, agentSessionId: '', state: '{}', wire: empty(), failed: e instanceof Error ? e.message : String(e) };
  }
}

function parse(job: ParseJob, read: NewLinesReader, shouldStop: () => boolean): ParsedFile {
  const parser = job.source === 'opencode' ? undefined : LINE_PARSERS[job.source];
  // (A file remembered before it had a conversation has the state '{}'.)
  const saved = (job.state ? JSON.parse(job.state) : {}) as Partial<FileState>;
  const state: FileState = { parser: saved.parser ?? parser?.initialState(), wire: saved.wire ?? initialWireState(), meta: saved.meta ?? {}, ...(saved.lastTs !== undefined ? { lastTs: saved.lastTs } : {}) };
  const result: ParsedFile = { ino: 0, size: 0, offset: job.offset, skips: [], keptAsText: 0, conversation: false, firstTs: null, lastTs: null, meta: state.meta, agentSessionId: '', state: '{}', wire: empty() };
  if (!parser) return { ...result, failed: `no parser for ${job.source}` };
  const items: TranscriptItem[] = [];
  try {
    const done = read(
      job.path,
      job.offset,
      {
        line: (text, lineNo, invalidUtf8) => {
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            result.skips.push(`line ${lineNo} of the new part is not JSON (${text.length} characters): skipped`);
            return;
          }
          if (invalidUtf8) result.skips.push(`line ${lineNo} of the new part is not valid UTF-8: read with replacement characters`);
          // A record without a time takes the last one read (none yet: NaN, filled in by itemTimes).
          const parsed = parser.record(state.parser, value, state.lastTs ?? Number.NaN);
          if (parsed.meta) mergeMeta(state.meta, parsed.meta);
          for (const item of parsed.items) {
            if (Number.isFinite(item.ts)) state.lastTs = item.ts = Math.round(item.ts);
            if (item.type === 'unknown') result.keptAsText++;
            else if (CONVERSATION.has(item.type)) result.conversation = true;
            items.push(item);
          }
        },
        skip: (reason) => result.skips.push(reason),
      },
      shouldStop,
    );
    result.ino = done.ino;
    result.size = done.size;
    result.offset = done.offset;
  } catch (e) {
    if (e instanceof SkipFile) return { ...result, refused: e.reason };
    return { ...result, failed: e instanceof Error ? e.message : String(e) };
  }
  itemTimes(items, job.mtimeMs);
  result.agentSessionId = state.meta.agentSessionId ?? basename(job.path).replace(/\.jsonl$/, '');
  result.firstTs = items[0]?.ts ?? null;
  result.lastTs = items.at(-1)?.ts ?? null;
  result.wire = wireOf(result.agentSessionId, items, state.wire, Math.round(job.mtimeMs));
  if (job.blocks) {
    result.blocks = encodeBlocks(result.wire);
    result.wire = empty();
  }
  result.state = JSON.stringify(state);
  return result;
}
