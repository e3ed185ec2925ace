/**
 * Changes per subagent (issue 42): which of a turn's changed files each child session wrote, by its edit tool
 * calls' locations (and diffs) inside the turn's checkpoints; files two children wrote in the same turn are
 * named as shared; a child's hunks are told apart by the lines its own diffs added or removed.
 */

/** What a child did in a turn's window, as its stored tool calls say. */
export interface ChildWrites {
  childId: string;
  title: string;
  writes: Array<{ path: string; oldText: string | null; newText: string | null }>;
}

export interface ChildFiles {
  childId: string;
  title: string;
  files: Array<{ path: string; sharedWith: Array<{ childId: string; title: string }> }>;
}

const MAX_LINES = 20_000;
const lines = (text: string | null): string[] => (text === null ? [] : text.split('\n').slice(0, MAX_LINES));

/** `path` (absolute, as the agent named it) relative to `folder`, or null outside it. */
export function relativeTo(folder: string, path: string): string | null {
  const f = folder.replace(/[/\\]+$/, '');
  if (!path.startsWith(`${f}/`) && !path.startsWith(`${f}\\`)) return null;
  const rel = path.slice(f.length + 1).replace(/\\/g, '/');
  if (!rel || rel.split('/').some((p) => p === '..' || p === '.' || p === '')) return null;
  return rel;
}

/** For each child, the turn's changed files (`changed`, relative paths) its tool calls wrote; shared ones say with whom. */
export function attributeChildChanges(folder: string, changed: readonly string[], children: readonly ChildWrites[]): ChildFiles[] {
  const inTurn = new Set(changed);
  const writers = new Map<string, ChildWrites[]>();
  for (const c of children) {
    for (const w of c.writes) {
      const rel = relativeTo(folder, w.path);
      if (rel === null || !inTurn.has(rel)) continue;
      const list = writers.get(rel) ?? [];
      if (!list.includes(c)) list.push(c);
      writers.set(rel, list);
    }
  }
  return children.map((c) => ({
    childId: c.childId,
    title: c.title,
    files: [...writers.entries()]
      .filter(([, list]) => list.includes(c))
      .map(([path, list]) => ({ path, sharedWith: list.filter((o) => o !== c).map((o) => ({ childId: o.childId, title: o.title })) }))
      .sort((a, b) => a.path.localeCompare(b.path)),
  }));
}

/** The lines a child's own writes of `path` added and removed (each write's diff against what it replaced). */
export function ownLines(folder: string, child: ChildWrites, path: string): { added: Set<string>; removed: Set<string> } {
  const added = new Set<string>();
  const removed = new Set<string>();
  for (const w of child.writes) {
    if (relativeTo(folder, w.path) !== path) continue;
    const before = new Set(lines(w.oldText));
    const after = new Set(lines(w.newText));
    for (const l of after) if (!before.has(l)) added.add(l);
    for (const l of before) if (!after.has(l)) removed.add(l);
  }
  return { added, removed };
}

export interface HunkLines {
  index: number;
  oldLines: string[];
  newLines: string[];
}

/** Whether a hunk of the turn's diff is the child's: it adds a line the child added, or (removing only) removes one it removed. */
export function hunkIsChilds(hunk: HunkLines, own: { added: Set<string>; removed: Set<string> }): boolean {
  if (hunk.newLines.some((l) => l.trim() !== '' && own.added.has(l))) return true;
  return hunk.newLines.length === 0 && hunk.oldLines.some((l) => l.trim() !== '' && own.removed.has(l));
}

/** A diff's hunk lines from its texts (hunks are 1-based, zero context). */
export function hunkLines(oldText: string | null, newText: string | null, h: { index: number; oldStart: number; oldLines: number; newStart: number; newLines: number }): HunkLines {
  const o = lines(oldText);
  const n = lines(newText);
  return { index: h.index, oldLines: o.slice(Math.max(0, h.oldStart - 1), Math.max(0, h.oldStart - 1) + h.oldLines), newLines: n.slice(Math.max(0, h.newStart - 1), Math.max(0, h.newStart - 1) + h.newLines) };
}
