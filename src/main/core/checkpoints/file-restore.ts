import type { RestoreReport } from '../../../shared/contract/checkpoints';
import { isBinary } from './changes';
import { FsRefusal, type ConfinedFiles } from '../host/files';
import type { ShadowRepo, TreeEntry } from './shadow-repo';

/** One path a restore may change: from `base` (the state it undoes) back to `target`. */
export interface RestoreItem {
  path: string;
  base: TreeEntry | null;
  target: TreeEntry | null;
}

const same = (a: TreeEntry | null, b: TreeEntry | null): boolean => (a === null ? b === null : b !== null && a.sha === b.sha && a.mode === b.mode);
const isRegular = (e: TreeEntry | null): e is TreeEntry => e !== null && (e.mode === '100644' || e.mode === '100755');

type Plan = { path: string; action: 'written' | 'removed' | 'merged'; entry: TreeEntry | null; merged?: Buffer } | { path: string; refused: string };

const CHANGED_SINCE = 'changed again since (by you or a later turn), and the changes overlap; left as it is so nothing is lost';

/**
 * Decides, file by file, what a restore does. A file still as `base` left it gets `target`; a file changed
 * since gets a three-way merge where that is clean (git merge-file), and is refused otherwise.
 */
export async function planRestore(repo: ShadowRepo, fs: ConfinedFiles, items: readonly RestoreItem[], current: Map<string, TreeEntry>, currentLarge: ReadonlySet<string>): Promise<Plan[]> {
  const plans: Plan[] = [];
  for (const { path, base, target } of items) {
    const cur = current.get(path) ?? null;
    if (currentLarge.has(path)) {
      plans.push({ path, refused: 'too large to keep: its content was not recorded; left as it is' });
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
      plans.push({ path, action: target ? 'written' : 'removed', entry: target });
      continue;
    }
    if (isRegular(cur) && isRegular(base) && isRegular(target)) {
      const [b, o, t] = await Promise.all([repo.blob(base.sha), repo.blob(cur.sha), repo.blob(target.sha)]);
      if (isBinary(b) || isBinary(o) || isBinary(t)) {
        plans.push({ path, refused: 'a binary file changed again since; left as it is so nothing is lost' });
        continue;
      }
      const merged = await repo.mergeText(b, o, t);
      if (merged) plans.push({ path, action: 'merged', entry: { mode: cur.mode, sha: '' }, merged });
      else plans.push({ path, refused: CHANGED_SINCE });
      continue;
    }
    if (cur === null) plans.push({ path, refused: 'deleted again since (by you or a later turn); left deleted' });
    else if (target === null) plans.push({ path, refused: 'changed again since (by you or a later turn); not deleted so nothing is lost' });
    else plans.push({ path, refused: CHANGED_SINCE });
  }
  return plans;
}

const reasonOf = (e: unknown): string =>
  e instanceof FsRefusal ? e.message.replace(/^refused: /, '') : `could not be written: ${e instanceof Error ? e.message : String(e)}`;

/** Carries out a plan through confined file access (no link followed); a path that turns out unsafe is refused. */
export async function applyPlan(repo: ShadowRepo, fs: ConfinedFiles, plans: readonly Plan[]): Promise<Pick<RestoreReport, 'applied' | 'refused'>> {
  const report: Pick<RestoreReport, 'applied' | 'refused'> = { applied: [], refused: [] };
  for (const p of plans) {
    if ('refused' in p) {
      report.refused.push({ path: p.path, reason: p.refused });
      continue;
    }
    try {
      if (p.entry === null) await fs.removeEntry(p.path);
      else if (p.entry.mode === '120000') await fs.placeSymlink(p.path, (await repo.blob(p.entry.sha)).toString('utf8'));
      else await fs.placeFile(p.path, p.merged ?? (await repo.blob(p.entry.sha)), p.entry.mode === '100755' ? 0o755 : 0o644);
      report.applied.push({ path: p.path, action: p.action });
    } catch (e) {
      report.refused.push({ path: p.path, reason: reasonOf(e) });
    }
  }
  return report;
}
