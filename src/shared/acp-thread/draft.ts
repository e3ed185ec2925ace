import type { ThreadEntry, ThreadState } from './types';

/**
 * Copy-on-write working copy of a ThreadState for one batch of events. The entries array and each touched
 * entry are copied at most once per batch, so folding 20,000 chunks costs one array copy, not 20,000.
 * States handed out before stay untouched (views may keep them).
 */
export class Draft {
  readonly state: ThreadState;
  private entries: ThreadEntry[] | null = null;
  private readonly cloned = new Set<number>();
  private toolIndex: Record<string, number> | null = null;

  constructor(base: ThreadState) {
    // Field by field rather than a spread: one literal shape, several times faster per batch (history folds
    // one batch per logged message).
    const t = base.turn;
    this.state = {
      entries: base.entries,
      toolIndex: base.toolIndex,
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

  get length(): number {
    return this.state.entries.length;
  }

  at(index: number): ThreadEntry | undefined {
    return (this.entries ?? this.state.entries)[index];
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
    const index = list.length - 1;
    // A new entry belongs to this batch: no need to copy it again.
    this.cloned.add(index);
    return index;
  }

  /** The entry at `index`, copied once per batch so it can be changed in place. */
  mutable<T extends ThreadEntry>(index: number): T {
    const list = this.ownEntries();
    if (!this.cloned.has(index)) {
      list[index] = cloneEntry(list[index]!);
      this.cloned.add(index);
    }
    return list[index] as T;
  }

  toolIndexOf(toolCallId: string): number | undefined {
    const map = this.toolIndex ?? this.state.toolIndex;
    return Object.prototype.hasOwnProperty.call(map, toolCallId) ? map[toolCallId] : undefined;
  }

  setToolIndex(toolCallId: string, index: number): void {
    if (!this.toolIndex) {
      this.toolIndex = { ...this.state.toolIndex };
      this.state.toolIndex = this.toolIndex;
    }
    this.toolIndex[toolCallId] = index;
  }

  finish(): ThreadState {
    this.state.version += 1;
    return this.state;
  }
}

function cloneEntry(entry: ThreadEntry): ThreadEntry {
  switch (entry.kind) {
    case 'user_message':
    case 'agent_message':
    case 'thought':
      return { ...entry, parts: entry.parts.slice() };
    case 'compaction':
      return { ...entry, summary: entry.summary.slice() };
    case 'tool_call':
      return { ...entry, metaTerminals: entry.metaTerminals ? { ...entry.metaTerminals } : null };
    default:
      return { ...entry };
  }
}
