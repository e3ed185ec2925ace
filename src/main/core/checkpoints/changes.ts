import type { ChangedFile, ChangeSet, ChangeSummary, Hunk } from '../../../shared/contract/checkpoints';
import { codeRunningReason, isPackageJson, scriptsChanged } from './code-running';
import type { LargeFile } from './shadow-store';
import type { ShadowStore } from './shadow-store';

/** Most files one change set lists (an `npm install` into a non-ignored folder would otherwise flood the view). */
export const MAX_LISTED_FILES = 2000;

interface RawChange {
  status: string;
  path: string;
  oldPath: string | null;
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
  additions: number;
  deletions: number;
  binary: boolean;
}

const ZERO = /^0+$/;

/** Parses `git diff-tree -r -z -M --raw --numstat` (raw records first, then numstat records). */
export function parseDiffTree(out: string): RawChange[] {
  const tokens = out.split('\0');
  const changes: RawChange[] = [];
  const byPath = new Map<string, RawChange>();
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i++]!;
    if (t === '') continue;
    if (t.startsWith(':')) {
      const [oldMode, newMode, oldSha, newSha, status] = t.slice(1).split(' ') as [string, string, string, string, string];
      let oldPath: string | null = null;
      let path = tokens[i++]!;
      if (status.startsWith('R') || status.startsWith('C')) {
        oldPath = path;
        path = tokens[i++]!;
      }
      const c: RawChange = { status: status[0]!, path, oldPath, oldMode, newMode, oldSha, newSha, additions: 0, deletions: 0, binary: false };
      changes.push(c);
      byPath.set(path, c);
    } else {
      // "added\tdeleted\tpath": the path may itself hold tabs.
      const tab1 = t.indexOf('\t');
      const tab2 = t.indexOf('\t', tab1 + 1);
      if (tab1 < 0 || tab2 < 0) continue;
      const a = t.slice(0, tab1);
      const d = t.slice(tab1 + 1, tab2);
      const p = t.slice(tab2 + 1);
      let path = p;
      if (p === '') {
        i++; // old path
        path = tokens[i++]!;
      }
      const c = byPath.get(path);
      if (!c) continue;
      if (a === '-') c.binary = true;
      else {
        c.additions = Number(a);
        c.deletions = Number(d);
      }
    }
  }
  return changes;
}

const kindOf = (mode: string): ChangedFile['kind'] => (mode === '120000' ? 'symlink' : 'file');

/** What changed between two snapshots of a folder, files over the size cap included (as tooLarge). */
export async function diffSnapshots(
  repo: ShadowStore,
  from: { id: string; tree: string; large: LargeFile[] },
  to: { id: string; tree: string; large: LargeFile[] },
): Promise<ChangeSet> {
  const out = from.tree === to.tree ? '' : (await repo.git.run(['diff-tree', '-r', '-z', '-M', '--raw', '--numstat', from.tree, to.tree])).stdout.toString('utf8');
  const raw = parseDiffTree(out).filter((c) => c.oldMode !== '160000' && c.newMode !== '160000');
  const listed = raw.slice(0, MAX_LISTED_FILES);
  const shas = [...new Set(listed.flatMap((c) => [c.oldSha, c.newSha]).filter((s) => !ZERO.test(s)))];
  const sizes = await repo.sizes(shas);
  const files = new Map<string, ChangedFile>();
  for (const c of listed) {
    const status: ChangedFile['status'] = c.status === 'A' ? 'added' : c.status === 'D' ? 'deleted' : c.status === 'R' ? 'renamed' : 'modified';
    files.set(c.path, {
      path: c.path,
      oldPath: c.oldPath,
      status,
      kind: kindOf(status === 'deleted' ? c.oldMode : c.newMode),
      additions: c.additions,
      deletions: c.deletions,
      binary: c.binary,
      tooLarge: false,
      ignored: false,
      flag: null,
      oldSize: ZERO.test(c.oldSha) ? null : (sizes.get(c.oldSha) ?? null),
      newSize: ZERO.test(c.newSha) ? null : (sizes.get(c.newSha) ?? null),
    });
  }
  // Files recorded by size only (over the size cap, ignored, inside .git) are not in the trees: compare the two lists of them.
  const before = new Map(from.large.map((f) => [f.path, f]));
  const after = new Map(to.large.map((f) => [f.path, f]));
  const statOnly = (path: string, status: ChangedFile['status'], oldSize: number | null, newSize: number | null, ignored: boolean): ChangedFile => ({
    path,
    oldPath: null,
    status,
    kind: 'file',
    additions: 0,
    deletions: 0,
    binary: false,
    tooLarge: !ignored,
    ignored,
    flag: null,
    oldSize,
    newSize,
  });
  for (const [path, f] of after) {
    const b = before.get(path);
    if (b && b.size === f.size && b.mtimeMs === f.mtimeMs) continue;
    const inTree = files.get(path);
    const ignored = f.ignored === true;
    if (b) files.set(path, statOnly(path, 'modified', b.size, f.size, ignored));
    // Was kept before, recorded by size only now: the tree diff says "deleted".
    else if (inTree?.status === 'deleted') files.set(path, statOnly(path, 'modified', inTree.oldSize, f.size, ignored));
    else files.set(path, statOnly(path, 'added', null, f.size, ignored));
  }
  for (const [path, b] of before) {
    if (after.has(path)) continue;
    const inTree = files.get(path);
    if (inTree?.status === 'added') files.set(path, statOnly(path, 'modified', b.size, inTree.newSize, b.ignored === true));
    else files.set(path, statOnly(path, 'deleted', b.size, null, b.ignored === true));
  }
  for (const f of files.values()) {
    if (f.status === 'deleted') continue;
    f.flag = codeRunningReason(f.path);
    if (!f.flag && isPackageJson(f.path) && !f.ignored && !f.tooLarge) {
      const c = listed.find((r) => r.path === f.path);
      if (c && !ZERO.test(c.newSha)) {
        const [oldText, newText] = await Promise.all([ZERO.test(c.oldSha) ? null : repo.blob(c.oldSha), repo.blob(c.newSha)]);
        if (scriptsChanged(oldText?.toString('utf8') ?? null, newText.toString('utf8'))) f.flag = 'package scripts: npm, yarn and pnpm run them on install and more';
      }
    }
  }
  const list = [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { from: from.id, to: to.id, summary: summarize(list), files: list, truncated: raw.length > MAX_LISTED_FILES };
}

export function summarize(files: readonly ChangedFile[]): ChangeSummary {
  const s: ChangeSummary = { added: 0, modified: 0, deleted: 0, renamed: 0, additions: 0, deletions: 0, ignored: 0, flagged: 0 };
  for (const f of files) {
    s[f.status]++;
    if (f.ignored) s.ignored++;
    if (f.flag) s.flagged++;
    s.additions += f.additions;
    s.deletions += f.deletions;
  }
  return s;
}

/** Git's own test for binary content: a NUL byte in the first 8000 bytes. */
export const isBinary = (b: Buffer): boolean => b.subarray(0, 8000).includes(0);

/** Lines with their line endings (the last line may have none). */
export const splitLines = (text: string): string[] => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];

/** Zero-context line hunks between two texts (git diff -U0 of the two blobs). */
export async function hunksOf(repo: ShadowStore, oldSha: string | null, newSha: string | null, oldText: string, newText: string): Promise<Hunk[]> {
  if (!oldSha || !newSha) {
    const lines = splitLines(oldSha ? oldText : newText).length;
    if (lines === 0) return [];
    return [oldSha ? { index: 0, oldStart: 1, oldLines: lines, newStart: 0, newLines: 0 } : { index: 0, oldStart: 0, oldLines: 0, newStart: 1, newLines: lines }];
  }
  const out = await repo.git.text(['diff', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', oldSha, newSha]);
  const hunks: Hunk[] = [];
  for (const m of out.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)) {
    hunks.push({
      index: hunks.length,
      oldStart: Number(m[1]),
      oldLines: m[2] === undefined ? 1 : Number(m[2]),
      newStart: Number(m[3]),
      newLines: m[4] === undefined ? 1 : Number(m[4]),
    });
  }
  return hunks;
}

/** The new text with one hunk put back as it was in the old text. */
export function revertHunk(oldText: string, newText: string, h: Hunk): string {
  const oldLines = splitLines(oldText);
  const newLines = splitLines(newText);
  const oldAt = h.oldLines === 0 ? h.oldStart : h.oldStart - 1;
  const newAt = h.newLines === 0 ? h.newStart : h.newStart - 1;
  const restored = oldLines.slice(oldAt, oldAt + h.oldLines);
  const result = [...newLines.slice(0, newAt), ...restored, ...newLines.slice(newAt + h.newLines)];
  return result.join('');
}
