import { IpcFailure } from '../shared/contract';
import type { ChildChanges, RestoreReport } from '../shared/contract/checkpoints';
import { attributeChildChanges, hunkIsChilds, hunkLines, ownLines } from '../shared/child-changes';
import type { Router } from './core/base/router';
import type { CheckpointService } from './core/checkpoints/checkpoint-service';
import type { HistoryService } from './core/history/history-service';

/**
 * Changes per subagent: a turn's checkpoints (what changed between its snapshots) read with its children's
 * stored tool calls (what each wrote in that window), and a child's hunks reverted through the hunk revert.
 */
export function registerChildChanges(router: Router, checkpoints: CheckpointService, history: HistoryService): void {
  const turnOf = async (sessionId: string, turnId: string) => {
    const turn = (await checkpoints.listTurns(sessionId)).find((t) => t.id === turnId);
    if (!turn) throw new IpcFailure('not_found', `no turn ${turnId} in session ${sessionId}`);
    return turn;
  };
  const read = async (sessionId: string, turnId: string) => {
    const turn = await turnOf(sessionId, turnId);
    const writes = history.subagentWrites(sessionId, turn.startedAt, turn.endedAt ?? Number.MAX_SAFE_INTEGER);
    const files = turn.changes?.files.map((f) => f.path) ?? [];
    return { turn, writes, children: attributeChildChanges(turn.folder, files, writes) };
  };
  router.handle('checkpoints.childChanges', async (p): Promise<ChildChanges> => {
    const { children } = await read(p.sessionId, p.turnId);
    return { children: children.filter((c) => c.files.length > 0) };
  });
  router.handle('checkpoints.revertChild', async (p) => {
    const { turn, writes, children } = await read(p.sessionId, p.turnId);
    const child = children.find((c) => c.childId === p.childId);
    const own = writes.find((w) => w.childId === p.childId);
    if (!child || !own || !turn.changes) throw new IpcFailure('not_found', `the subagent ${p.childId} changed nothing in this turn`);
    const { from, to } = turn.changes;
    const reports: RestoreReport[] = [];
    const refused: Array<{ path: string; reason: string }> = [];
    for (const file of child.files) {
      // The child's alone: all of its hunks, as the file's revert does (an added file goes, a deleted one comes back).
      if (file.sharedWith.length === 0) {
        reports.push(await checkpoints.revert(from, to, { kind: 'file', path: file.path }));
        continue;
      }
      const diff = await checkpoints.fileDiff(from, to, file.path);
      const mine = ownLines(turn.folder, own, file.path);
      const theirs = file.sharedWith.map((o) => ({ title: o.title, lines: ownLines(turn.folder, writes.find((w) => w.childId === o.childId)!, file.path) }));
      const hunks = diff.hunks.map((h) => hunkLines(diff.oldText, diff.newText, h));
      let unknown = hunks.length === 0 ? 1 : 0;
      const both: string[] = [];
      for (const h of hunks) {
        const others = theirs.filter((o) => hunkIsChilds(h, o.lines)).map((o) => o.title);
        const isMine = hunkIsChilds(h, mine);
        // Another child's part is theirs to keep; a part both wrote, or nobody's by its lines, is left with the reason.
        if (isMine && others.length === 0) reports.push(await checkpoints.revert(from, to, { kind: 'hunk', path: file.path, hunk: h.index }));
        else if (isMine) both.push(...others);
        else if (others.length === 0) unknown++;
      }
      const names = file.sharedWith.map((o) => o.title).join(', ');
      if (both.length > 0) refused.push({ path: file.path, reason: `written by this subagent and ${[...new Set(both)].join(', ')} at once: left as is (revert it by hunk in the review)` });
      if (unknown > 0) refused.push({ path: file.path, reason: `also written by ${names} in this turn: ${hunks.length === 0 ? 'its change' : `${unknown} change${unknown === 1 ? '' : 's'}`} not told apart by lines, left as is` });
    }
    return { reports, refused };
  });
}
