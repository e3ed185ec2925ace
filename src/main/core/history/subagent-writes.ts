import type { ChildWrites } from '../../../shared/child-changes';
import type { Db } from '../store/database';
import { draftFromRow } from './history-index';
import { subagentTrees } from './subagent-tree';
import { toHistoryEntry } from './transcript';

/** Tool kinds that change files (an `other` tool call counts when it carries a diff). */
const WRITING: ReadonlySet<string> = new Set(['edit', 'delete', 'move']);
/** Tool calls read per child in one turn's window. */
const MAX_CALLS = 2000;

/**
 * What each subagent session under `parentId` (children and theirs) wrote between `from` and `to`, by its stored
 * tool calls that started in that window: the paths they named (locations, diffs) and their diffs' texts.
 */
export function subagentWrites(db: Db, parentId: string, from: number, to: number): ChildWrites[] {
  const children = subagentTrees(db, [parentId]).get(parentId) ?? [];
  return children.map((c) => {
    const rows = db
      .prepare(`SELECT * FROM history_entries WHERE session_id = ? AND kind = 'tool' AND ts >= ? AND ts <= ? ORDER BY seq LIMIT ?`)
      .all(c.id, from, to, MAX_CALLS) as Parameters<typeof draftFromRow>[0][];
    const writes: ChildWrites['writes'] = [];
    for (const r of rows) {
      const entry = toHistoryEntry(draftFromRow(r)).entry;
      if (entry?.kind !== 'tool_call') continue;
      const diffs = [...(entry.replacedDiffs ?? []), ...entry.content.flatMap((x) => (x.type === 'diff' ? [x] : []))];
      if (!WRITING.has(entry.toolKind) && diffs.length === 0) continue;
      for (const d of diffs) if (typeof d.path === 'string') writes.push({ path: d.path, oldText: d.oldText ?? null, newText: typeof d.newText === 'string' ? d.newText : null });
      const named = new Set(diffs.map((d) => d.path));
      for (const l of entry.locations) if (typeof l.path === 'string' && !named.has(l.path)) writes.push({ path: l.path, oldText: null, newText: null });
    }
    return { childId: c.id, title: c.title || 'Subagent', writes };
  });
}
