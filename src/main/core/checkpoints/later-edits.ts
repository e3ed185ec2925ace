import type { RestoreReport } from '../../../shared/contract/checkpoints';
import { isBinary } from './changes';
import { lostLines } from './lost-lines';
import { reasonOf, sameEntry as same, type RestoreItem } from './file-restore';
import type { ShadowStore, TreeEntry } from './shadow-store';

/** One agent turn in a folder: its trees before and after, as path → entry. */
export interface AgentTurn {
  before: ReadonlyMap<string, TreeEntry>;
  after: ReadonlyMap<string, TreeEntry>;
}

type Refusal = RestoreReport['refused'][number];

const isRegular = (e: TreeEntry | null): e is TreeEntry => e !== null && (e.mode === '100644' || e.mode === '100755');
const ONLY_YOURS = 'changed since, but by no agent turn (by you, or outside Switchboard): kept as it is';
const CONFLICT = 'changed again since (by you or a later turn) on the same lines: left as it is so nothing is lost';
const BINARY = 'a binary file changed again since: left as it is so nothing is lost';
const GONE = 'deleted (or renamed) since: left as it is';
const NOT_TEXT = 'changed again since and cannot be merged (a link, or its kind changed): left as it is';

/**
 * Undoes the agent's turns (newest first) on each path as it is now, keeping every change made outside them
 * (the user's own edits, before or after a later turn): a file untouched since gets its `goal` back, one edited
 * since gets a three-way merge per turn. Where that cannot be done cleanly, or only someone other than the agent
 * changed the file, nothing is written: the path is refused with the lines that would be lost, so the user can
 * choose to put it back anyway (`overwrite`).
 */
export async function undoTurns(
  repo: ShadowStore,
  paths: Iterable<string>,
  turns: readonly AgentTurn[],
  current: ReadonlyMap<string, TreeEntry>,
  goals: ReadonlyMap<string, TreeEntry>,
  overwrite: ReadonlySet<string>,
  /** Whether a path not in the snapshot is on disk all the same (ignored or excluded now): never overwritten. */
  onDisk: (path: string) => Promise<boolean>,
): Promise<{ items: RestoreItem[]; refused: Refusal[] }> {
  const items: RestoreItem[] = [];
  const refused: Refusal[] = [];
  for (const path of paths) {
    const cur = current.get(path) ?? null;
    const goal = goals.get(path) ?? null;
    if (same(cur, goal)) continue;
    if (cur === null) {
      const there = await onDisk(path).then(
        (yes) => (yes ? 'exists but is not captured (ignored or excluded); left as it is' : null),
        (e: unknown) => reasonOf(e),
      );
      if (there) {
        refused.push({ path, reason: there });
        continue;
      }
    }
    let res: TreeEntry | null = cur;
    let problem: string | null = null;
    const agent: Array<TreeEntry | null> = [];
    for (const turn of [...turns].reverse()) {
      const a = turn.after.get(path) ?? null;
      const b = turn.before.get(path) ?? null;
      if (same(a, b)) continue;
      agent.push(a);
      if (same(res, a)) res = b;
      else if (same(res, b)) continue;
      else if (res === null) problem = GONE;
      else if (isRegular(res) && isRegular(a) && isRegular(b)) {
        const [base, ours, theirs] = await Promise.all([repo.blob(a.sha), repo.blob(res.sha), repo.blob(b.sha)]);
        if (isBinary(base) || isBinary(ours) || isBinary(theirs)) problem = BINARY;
        else {
          const merged = await repo.mergeText(base, ours, theirs);
          if (merged) res = { mode: res.mode, sha: await repo.hashObject(merged) };
          else problem = CONFLICT;
        }
      } else problem = NOT_TEXT;
      if (problem) break;
    }
    if (agent.length === 0) problem = ONLY_YOURS;
    if (problem) {
      if (overwrite.has(path)) items.push({ path, base: cur, target: goal });
      else refused.push({ path, reason: problem, choice: await lostLines(repo, cur, [goal, ...agent]) });
    } else if (!same(res, cur)) items.push({ path, base: cur, target: res, ...(same(res, goal) ? {} : { merged: true }) });
  }
  return { items, refused };
}
