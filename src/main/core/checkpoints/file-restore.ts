import type { RestoreReport } from '../../../shared/contract/checkpoints';
import { isBinary } from './changes';
import { FsRefusal, type ConfinedFiles } from '../host/files';
import type { LargeFile, TreeEntry } from './shadow-store';
import type { ShadowStore } from './shadow-store';
import { lostLines } from './lost-lines';

/** One path a restore may change: from `base` (the state it undoes) back to `target`. */
export interface RestoreItem {
  path: string;
  base: TreeEntry | null;
  target: TreeEntry | null;
  /** The target is a merge of the user's later edits (said as 'merged'). */
  merged?: true;
}

/** Whether two tree entries are the same content and mode (both absent counts). */
export const sameEntry = (a: TreeEntry | null, b: TreeEntry | null): boolean => (a === null ? b === null : b !== null && a.sha === b.sha && a.mode === b.mode);
const same = sameEntry;

/** Its content was not kept (too large, ignored, inside .git): it can be listed, not diffed or put back. */
export const notKept = (f: { tooLarge: boolean; ignored: boolean }): boolean => f.tooLarge || f.ignored;

export const byPath = (files: readonly LargeFile[]): Map<string, LargeFile> => new Map(files.map((f) => [f.path, f]));
const isRegular = (e: TreeEntry | null): e is TreeEntry => e !== null && (e.mode === '100644' || e.mode === '100755');

export type PlanStep =
  | { path: string; action: 'written' | 'removed' | 'merged'; entry: TreeEntry | null; merged?: Buffer }
  | { path: string; refused: string; choice?: RestoreReport['refused'][number]['choice'] };
type Plan = PlanStep;

/** Why a file recorded by size only is left as it is. */
export const notKeptReason = (f: Pick<LargeFile, 'ignored'>): string =>
  f.ignored ? 'ignored (or inside .git): its content was not kept; left as it is' : 'too large to keep: its content was not recorded; left as it is';

const CHANGED_SINCE = 'changed again since (by you or a later turn), and the changes overlap; left as it is so nothing is lost';

/**
 * Decides, file by file, what a restore does. A file still as `base` left it gets `target`; a file changed
 * since gets a three-way merge where that is clean (git merge-file), and is refused otherwise.
 */
export async function planRestore(
  repo: ShadowStore,
  fs: ConfinedFiles,
  items: readonly RestoreItem[],
  current: Map<string, TreeEntry>,
  currentLarge: ReadonlyMap<string, LargeFile>,
  overwrite: ReadonlySet<string> = new Set(),
): Promise<Plan[]> {
  const plans: Plan[] = [];
  // Changed again since: refused with the lines putting `target` back would lose, unless the user chose to.
  const changedSince = async (path: string, cur: TreeEntry | null, base: TreeEntry | null, target: TreeEntry | null, reason: string): Promise<Plan> =>
    overwrite.has(path) ? { path, action: target ? 'written' : 'removed', entry: target } : { path, refused: reason, choice: await lostLines(repo, cur, [base, target]) };
  for (const { path, base, target, merged } of items) {
    const cur = current.get(path) ?? null;
    const large = currentLarge.get(path);
    if (large) {
      plans.push({ path, refused: notKeptReason(large) });
      continue;
    }
    if (same(cur, target)) continue;
    if (same(target, base)) continue;
    if (target?.mode === '160000' || cur?.mode === '160000') {
      plans.push({ path, refused: 'a nested git repository; left as it is' });
      continue;
    }
    if (same(cur, base)) {
      // Not in the snapshot yet on disk: ignored or excluded now (or appeared since); never overwritten.
      if (cur === null && target !== null) {
        let present: boolean;
        try {
          present = await fs.hasEntry(path);
        } catch (e) {
          plans.push({ path, refused: reasonOf(e) });
          continue;
        }
        if (present) {
          plans.push({ path, refused: 'exists but is not captured (ignored or excluded); left as it is' });
          continue;
        }
      }
      plans.push({ path, action: merged ? 'merged' : target ? 'written' : 'removed', entry: target });
      continue;
    }
    if (isRegular(cur) && isRegular(base) && isRegular(target)) {
      const [b, o, t] = await Promise.all([repo.blob(base.sha), repo.blob(cur.sha), repo.blob(target.sha)]);
      if (isBinary(b) || isBinary(o) || isBinary(t)) {
        plans.push(await changedSince(path, cur, base, target, 'a binary file changed again since; left as it is so nothing is lost'));
        continue;
      }
      const text = await repo.mergeText(b, o, t);
      if (text) plans.push({ path, action: 'merged', entry: { mode: cur.mode, sha: '' }, merged: text });
      else plans.push(await changedSince(path, cur, base, target, CHANGED_SINCE));
      continue;
    }
    if (cur === null) plans.push(await changedSince(path, cur, base, target, 'deleted again since (by you or a later turn); left deleted'));
    else if (target === null) plans.push(await changedSince(path, cur, base, target, 'changed again since (by you or a later turn); not deleted so nothing is lost'));
    else plans.push(await changedSince(path, cur, base, target, CHANGED_SINCE));
  }
  return plans;
}

const sameStat = (a: LargeFile | undefined, b: LargeFile | undefined): boolean => (a === undefined ? b === undefined : b !== undefined && a.size === b.size && a.mtimeMs === b.mtimeMs);

/**
 * Files recorded by size only (ignored, inside .git, too large), from `base` (the state the restore undoes)
 * back to `target`: one that did not exist in the target is removed when it is still as `base` recorded it;
 * any other change is refused, since its content was not kept. `only`: limit to these paths.
 */
export function planStatOnly(
  base: readonly LargeFile[],
  target: { large: readonly LargeFile[]; tree: ReadonlyMap<string, TreeEntry> },
  current: ReadonlyMap<string, LargeFile>,
  only: ReadonlySet<string> | null,
): Plan[] {
  const b = new Map(base.map((f) => [f.path, f]));
  const t = new Map(target.large.map((f) => [f.path, f]));
  const plans: Plan[] = [];
  for (const path of new Set([...b.keys(), ...t.keys()])) {
    if (only && !only.has(path)) continue;
    const was = b.get(path);
    const goal = t.get(path);
    if (sameStat(was, goal)) continue;
    const cur = current.get(path);
    if (!goal && !target.tree.has(path) && was) {
      if (!cur) continue;
      if (sameStat(cur, was)) plans.push({ path, action: 'removed', entry: null });
      else plans.push({ path, refused: 'changed again since (by you or a later turn); not deleted so nothing is lost' });
      continue;
    }
    const about = goal ?? was ?? cur;
    if (about && !target.tree.has(path)) plans.push({ path, refused: notKeptReason(about) });
  }
  return plans;
}

/** Why a path could not be read or written, in words. */
export const reasonOf = (e: unknown): string =>
  e instanceof FsRefusal ? e.message.replace(/^refused: /, '') : `could not be written: ${e instanceof Error ? e.message : String(e)}`;

/** Files of a plan written at a time (each write is atomic and fsynced on its own). */
const PARALLEL_WRITES = 8;

/** Carries out a plan through confined file access (no link followed); a path that turns out unsafe is refused. */
export async function applyPlan(repo: ShadowStore, fs: ConfinedFiles, plans: readonly Plan[]): Promise<Pick<RestoreReport, 'applied' | 'refused'>> {
  const outcomes: Array<{ applied: RestoreReport['applied'][number] } | { refused: RestoreReport['refused'][number] }> = new Array(plans.length);
  let next = 0;
  const worker = async () => {
    while (next < plans.length) {
      const i = next++;
      const p = plans[i]!;
      if ('refused' in p) {
        outcomes[i] = { refused: { path: p.path, reason: p.refused, ...(p.choice ? { choice: p.choice } : {}) } };
        continue;
      }
      try {
        if (p.entry === null) await fs.removeEntry(p.path);
        else if (p.entry.mode === '120000') await fs.placeSymlink(p.path, (await repo.blob(p.entry.sha)).toString('utf8'));
        else await fs.placeFile(p.path, p.merged ?? (await repo.blob(p.entry.sha)), p.entry.mode === '100755' ? 0o755 : 0o644);
        outcomes[i] = { applied: { path: p.path, action: p.action } };
      } catch (e) {
        outcomes[i] = { refused: { path: p.path, reason: reasonOf(e) } };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, plans.length) }, worker));
  const report: Pick<RestoreReport, 'applied' | 'refused'> = { applied: [], refused: [] };
  for (const o of outcomes) {
    if ('applied' in o) report.applied.push(o.applied);
    else report.refused.push(o.refused);
  }
  return report;
}
