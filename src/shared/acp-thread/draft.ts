import type { ThreadEntry, ThreadState } from './types';

/**
 * A tool call's index never changes along a thread, so a batch adds to its base's toolIndex in place, without a
 * copy, when nothing was written to that index object since the base was made (a thread of 25,000 tool calls
 * copied 25,000 keys for each new one: 9.7 ms a fold, `npm run bench -- thread`). Writes counts the writes to
 * each index object; `seen`, how many of them each state reflects. The states before a write then share an
 * index that also names later tool calls, past their own end (or, after a batch that was dropped, at an entry
 * that is another): Draft.toolIndexOf passes over those. A state continued after another branch wrote copies.
 */
const writes = new WeakMap<object, number>();
const seen = new WeakMap<ThreadState, number>();

/** Sets an index entry as an own property, whatever the id (an agent's `__proto__` included). */
export function putIndex(map: Record<string, number>, id: string, index: number): void {
  Object.defineProperty(map, id, { value: index, writable: true, enumerable: true, configurable: true });
}

/** Reports entries [from, to) a batch would have changed but the state does not hold (see ThreadState.firstIndex). */
export type OnMissed = (from: number, to: number) => void;

/**
 * Copy-on-write working copy of a ThreadState for one batch of events. The entries array and each touched
 * entry are copied at most once per batch, so folding 20,000 chunks costs one array copy, not 20,000.
 * States handed out before stay untouched (views may keep them).
 * Indices are the thread's (from its first entry), whether or not the state holds its earliest entries.
 */
export class Draft {
  readonly state: ThreadState;
  /** Index of the first entry held. */
  readonly first: number;
  private entries: ThreadEntry[] | null = null;
  private readonly cloned = new Set<number>();
  private toolIndex: Record<string, number> | null = null;

  constructor(
    private readonly base: ThreadState,
    private readonly onMissed: OnMissed | null = null,
  ) {
    this.first = base.firstIndex ?? 0;
    // Field by field rather than a spread: one literal shape, several times faster per batch (history folds
    // one batch per logged message).
    const t = base.turn;
    this.state = {
      entries: base.entries,
      firstIndex: this.first,
      toolIndex: base.toolIndex,
      planIndex: base.planIndex,
      planIds: base.planIds,
      modes: base.modes,
      configOptions: base.configOptions,
      commands: base.commands,
      usage: base.usage,
      title: base.title,
      updatedAt: base.updatedAt,
      plan: base.plan,
      stopMarks: base.stopMarks,
      turn: {
        running: t.running,
        promptId: t.promptId,
        startIndex: t.startIndex,
        cancelRequested: t.cancelRequested,
        lastStopReason: t.lastStopReason,
        lastError: t.lastError,
      },
      nextId: base.nextId,
      version: base.version,
    };
  }

  /** The thread's length (held or not). */
  get length(): number {
    return this.first + this.state.entries.length;
  }

  /** Whether this state holds the entry at `index`. */
  holds(index: number): boolean {
    return index >= this.first && index < this.length;
  }

  /** A change to entries [from, to) this state does not hold: the view that holds them elsewhere is told. */
  missed(from: number, to = from + 1): void {
    if (to > from) this.onMissed?.(from, to);
  }

  at(index: number): ThreadEntry | undefined {
    return index < this.first ? undefined : (this.entries ?? this.state.entries)[index - this.first];
  }

  last(): ThreadEntry | undefined {
    const list = this.entries ?? this.state.entries;
    return list[list.length - 1];
  }

  nextEntryId(): string {
    return `e${this.state.nextId++}`;
  }

  private ownEntries(): ThreadEntry[] {
    if (!this.entries) {
      this.entries = this.state.entries.slice();
      this.state.entries = this.entries;
    }
    return this.entries;
  }

  push(entry: ThreadEntry): number {
    const list = this.ownEntries();
    list.push(entry);
    const index = this.first + list.length - 1;
    if (entry.kind === 'user_message') this.state.planIndex = null;
    // A new entry belongs to this batch: no need to copy it again.
    this.cloned.add(index);
    return index;
  }

  /** Indices of the entries this batch added or replaced, ascending. */
  changedIndices(): number[] {
    return [...this.cloned].sort((a, b) => a - b);
  }

  /** The entry at `index` (held: see holds), copied once per batch so it can be changed in place. */
  mutable<T extends ThreadEntry>(index: number): T {
    if (!this.holds(index)) throw new RangeError(`entry ${index} is not held (${this.first}…${this.length})`);
    const list = this.ownEntries();
    const at = index - this.first;
    if (!this.cloned.has(index)) {
      list[at] = cloneEntry(list[at]!);
      this.cloned.add(index);
    }
    return list[at] as T;
  }

  toolIndexOf(toolCallId: string): number | undefined {
    const map = this.toolIndex ?? this.state.toolIndex;
    if (!Object.prototype.hasOwnProperty.call(map, toolCallId)) return undefined;
    const index = map[toolCallId]!;
    // A shared index may name tool calls of later states (see `writes`).
    if (index >= this.length) return undefined;
    if (!this.holds(index)) return index;
    const entry = this.at(index);
    return entry?.kind === 'tool_call' && entry.toolCallId === toolCallId ? index : undefined;
  }

  setToolIndex(toolCallId: string, index: number): void {
    if (!this.toolIndex) {
      const shared = this.state.toolIndex as Record<string, number>;
      const base = seen.get(this.base);
      this.toolIndex = base !== undefined && writes.get(shared) === base ? shared : { ...shared };
      this.state.toolIndex = this.toolIndex;
    }
    putIndex(this.toolIndex, toolCallId, index);
  }

  finish(): ThreadState {
    this.state.version += 1;
    if (this.toolIndex) {
      const count = (writes.get(this.toolIndex) ?? 0) + 1;
      writes.set(this.toolIndex, count);
      seen.set(this.state, count);
    } else {
      const base = seen.get(this.base);
      if (base !== undefined) seen.set(this.state, base);
    }
    return this.state;
  }
}

/**
 * A copy of an entry that a fold may change in place: the entry and each array or object directly in it
 * (message parts, a tool call's terminals, a compaction's summary…) are copied; what lies deeper is
 * replaced, never changed in place, by the folds. The same for every entry kind, new ones included.
 */
function cloneEntry(entry: ThreadEntry): ThreadEntry {
  const copy: Record<string, unknown> = { ...entry };
  for (const key in copy) {
    const v = copy[key];
    if (Array.isArray(v)) copy[key] = v.slice();
    else if (typeof v === 'object' && v !== null) copy[key] = { ...v };
  }
  return copy as unknown as ThreadEntry;
}
