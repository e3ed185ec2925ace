import type { RestoreReport } from '../../../shared/contract/checkpoints';
import { isBinary } from './changes';
import type { ShadowStore, TreeEntry } from './shadow-store';

type Choice = NonNullable<RestoreReport['refused'][number]['choice']>;

const MAX_LINES = 20;
const MAX_LINE_CHARS = 300;

const isRegular = (e: TreeEntry | null): e is TreeEntry => e !== null && (e.mode === '100644' || e.mode === '100755');

const linesOf = (b: Buffer): string[] => {
  const text = b.toString('utf8');
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
};

/**
 * What putting a file back would lose of `mine` (the file as it is now): its lines found in none of `kept` (what
 * the file is put back to, and what the agent's turns being undone wrote), bounded. No lines for a binary file, a
 * link or a file not there.
 */
export async function lostLines(repo: ShadowStore, mine: TreeEntry | null, kept: ReadonlyArray<TreeEntry | null>): Promise<Choice> {
  if (!isRegular(mine)) return { lines: [], more: 0 };
  const own = await repo.blob(mine.sha);
  if (isBinary(own)) return { lines: [], more: 0 };
  const known = new Set<string>();
  for (const e of kept) if (isRegular(e)) for (const l of linesOf(await repo.blob(e.sha))) known.add(l);
  const lost = linesOf(own).filter((l) => !known.has(l) && l.trim() !== '');
  return { lines: lost.slice(0, MAX_LINES).map((l) => (l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}…` : l)), more: Math.max(0, lost.length - MAX_LINES) };
}
