import { randomUUID } from 'node:crypto';
import { IpcFailure } from '../../../shared/contract';
import type { Restore, RestoreReport } from '../../../shared/contract/checkpoints';
import type { EventBus } from '../base/event-bus';
import type { ConfinedFiles } from '../host/files';
import type { StoreService } from '../store/store-service';
import { revertHunk } from './changes';
import { changedEntries, entryAt, type ChangeReader } from './change-reading';
import type { CheckpointFolders, Folder } from './checkpoint-folders';
import type { CheckpointRow } from './checkpoint-rows';
import { applyPlan, byPath, notKept, planRestore, planStatOnly, type PlanStep, type RestoreItem } from './file-restore';
import { undoTurns, type AgentTurn } from './later-edits';
import type { TreeEntry } from './shadow-store';

/** What a restore's items do, as stored while it runs (merged texts are stored as objects first). */
export type StoredStep = { path: string; action: 'written' | 'removed' | 'merged'; entry: TreeEntry | null } | { path: string; refused: string };

export type RevertScope = { kind: 'all' } | { kind: 'file'; path: string } | { kind: 'hunk'; path: string; hunk: number };

/** Restores of a folder's files: revert (all, a file, a hunk), rewind to before a turn, and undo of a restore. */
export class Restores {
  constructor(
    private readonly store: StoreService,
    private readonly bus: EventBus,
    private readonly folders: CheckpointFolders,
    private readonly reader: ChangeReader,
  ) {}

  refuseWhileRunning(folder: Folder): void {
    const [sessionId] = folder.running.values();
    if (sessionId === undefined) return;
    const other = this.folders.rows().overlapping(folder.id, '', Date.now(), Date.now())[0];
    throw new IpcFailure('conflict', `A turn is running in ${folder.path}${other ? ` ('${other.label}')` : ''}: stop the turn first.`);
  }

  /**
   * Snapshot, plan, apply, snapshot: the restore is a pair of checkpoints, so it can be undone. The plan is
   * recorded before the folder is touched (a pending restore), so one cut short is finished at the next
   * start (recoverInterrupted); paths also go into a journal, so temporary files of a restore cut short are
   * cleaned up by the next one.
   */
  private async restore(
    folder: Folder,
    kind: Restore['kind'],
    label: string,
    turnId: string | null,
    items: (pre: CheckpointRow, fs: ConfinedFiles) => Promise<{ items: RestoreItem[]; refused?: RestoreReport['refused']; statOnly?: PlanStep[] }>,
    overwrite: ReadonlySet<string> = new Set(),
  ): Promise<RestoreReport & { preId: string }> {
    this.refuseWhileRunning(folder);
    // A past session's folder that is gone is not brought back by writing its files again.
    if (!(await folder.site.isDirectory(folder.path))) throw new IpcFailure('not_found', `${folder.path} no longer exists: its changes can be reviewed, not restored.`);
    const report = await this.folders.exclusive(folder, async () => {
      this.refuseWhileRunning(folder);
      const rows = this.folders.rows();
      const left = await folder.repo.readJournal().catch(() => null);
      const fs = await folder.site.host.files([folder.path]);
      if (left) await fs.removeTempFiles(left).catch(() => {});
      const pre = await this.folders.takeCheckpoint(folder, 'restore_pre');
      const { items: list, refused = [], statOnly = [] } = await items(pre, fs);
      const planned = await planRestore(folder.repo, fs, list, await folder.repo.lsTree(pre.tree), byPath(pre.large), overwrite);
      const seen = new Set(planned.map((p) => p.path));
      const plan = [...planned, ...statOnly.filter((p) => !seen.has(p.path))];
      // Merged texts become objects, so the stored plan says exactly what each path gets.
      for (const p of plan) if ('merged' in p && p.merged && p.entry) p.entry = { mode: p.entry.mode, sha: await folder.repo.hashObject(p.merged) };
      const pendingId = randomUUID();
      const stored: StoredStep[] = plan.map((p) => ('refused' in p ? p : { path: p.path, action: p.action, entry: p.entry }));
      rows.insertPending({ id: pendingId, folderId: folder.id, kind, label, turnId, preId: pre.id, plan: stored });
      await folder.repo.writeJournal(plan.map((p) => p.path));
      const done = await applyPlan(folder.repo, fs, plan);
      await folder.repo.clearJournal();
      const result: RestoreReport & { preId: string } = { restoreId: null, applied: done.applied, refused: [...refused, ...done.refused], preId: pre.id };
      if (done.applied.length > 0) {
        const post = await this.folders.takeCheckpoint(folder, 'restore_post');
        result.restoreId = randomUUID();
        const { preId: _pre, ...report } = result;
        this.store.db.transaction(() => {
          rows.insertRestore({ id: result.restoreId!, folderId: folder.id, kind, label, preId: pre.id, postId: post.id, report, turnId });
          rows.deletePending(pendingId);
        })();
      } else rows.deletePending(pendingId);
      return result;
    });
    this.bus.emit('checkpoints.changed', { folderId: folder.id, sessionId: null, turnId: null });
    return report;
  }

  /**
   * The agent's turns in a folder between two of its checkpoints (the pair itself when no recorded turn lies
   * between them, e.g. a restore's), oldest first, as trees.
   */
  private async agentTurns(folder: Folder, fromId: string, toId: string): Promise<AgentTurn[]> {
    const rows = this.folders.rows();
    const at = new Map(rows.checkpointIds(folder.id).map((c, i) => [c.id, i]));
    const lo = at.get(fromId) ?? -1;
    const hi = at.get(toId) ?? -1;
    let pairs = rows.recordedTurns(folder.id).filter((t) => (at.get(t.before_id) ?? -1) >= lo && (at.get(t.after_id) ?? Infinity) <= hi);
    if (pairs.length === 0) pairs = [{ before_id: fromId, after_id: toId }];
    const trees = new Map<string, Promise<Map<string, TreeEntry>>>();
    const tree = (id: string) => {
      if (!trees.has(id)) trees.set(id, folder.repo.lsTree(this.reader.checkpointRow(id).tree));
      return trees.get(id)!;
    };
    return Promise.all(pairs.map(async (p) => ({ before: await tree(p.before_id), after: await tree(p.after_id) })));
  }

  async revert(fromId: string, toId: string, scope: RevertScope, overwrite: ReadonlySet<string> = new Set()): Promise<RestoreReport> {
    const { folder, from, to } = await this.reader.pair(fromId, toId);
    const set = await this.reader.changesBetween(folder, from, to);
    let label = 'Revert the changes';
    let hunkTarget: { path: string; entry: TreeEntry | null; base: TreeEntry | null } | null = null;
    let paths: Set<string> | null = null;
    if (scope.kind !== 'all') {
      const file = set.files.find((f) => f.path === scope.path);
      if (!file) throw new IpcFailure('not_found', `${scope.path} did not change between these checkpoints`);
      paths = new Set([file.path, ...(file.oldPath ? [file.oldPath] : [])]);
      label = `Revert ${file.path}`;
      if (scope.kind === 'hunk') {
        if (notKept(file)) throw new IpcFailure('invalid_params', `${scope.path} has no line hunks to revert: its content was not kept`);
        const diff = await this.reader.fileDiff(fromId, toId, scope.path);
        const hunk = diff.hunks[scope.hunk];
        if (!hunk) throw new IpcFailure('not_found', `${scope.path} has no hunk ${scope.hunk}`);
        label = `Revert a change in ${file.path}`;
        const base = await entryAt(folder.repo, to.tree, file.path);
        if (diff.hunks.length === 1 && (file.status === 'added' || file.status === 'deleted' || file.status === 'renamed')) {
          // The only hunk of an added or deleted file is the whole file.
        } else {
          if (diff.oldText === null || diff.newText === null || !base) throw new IpcFailure('invalid_params', `${scope.path} has no line hunks to revert`);
          const sha = await folder.repo.hashObject(Buffer.from(revertHunk(diff.oldText, diff.newText, hunk), 'utf8'));
          hunkTarget = { path: file.path, entry: { mode: base.mode, sha }, base };
        }
      }
    }
    const turn = this.folders.rows().turnOfPair(from.id, to.id);
    return this.restore(
      folder,
      'revert',
      label,
      turn?.id ?? null,
      async (pre, fs) => {
        if (hunkTarget) return { items: [{ path: hunkTarget.path, base: hunkTarget.base, target: hunkTarget.entry }] };
        const [entries, fromTree, current, turns] = await Promise.all([
          changedEntries(folder.repo, from.tree, to.tree),
          folder.repo.lsTree(from.tree),
          folder.repo.lsTree(pre.tree),
          this.agentTurns(folder, from.id, to.id),
        ]);
        // `to` may be the folder as it was last viewed (the session's review): what the agent's turns did is undone, the rest kept.
        const undone = await undoTurns(folder.repo, entries.filter((e) => !paths || paths.has(e.path)).map((e) => e.path), turns, current, fromTree, overwrite, (p) => fs.hasEntry(p));
        return { ...undone, statOnly: planStatOnly(to.large, { large: from.large, tree: fromTree }, byPath(pre.large), paths) };
      },
      overwrite,
    );
  }

  async rewind(turnId: string, overwrite: ReadonlySet<string> = new Set()): Promise<RestoreReport> {
    const turn = this.folders.rows().turn(turnId);
    if (!turn) throw new IpcFailure('not_found', `no turn ${turnId}`);
    if (!turn.before_id) throw new IpcFailure('not_found', 'the checkpoint before this turn is missing (pruned, or it failed)');
    const target = this.reader.checkpointRow(turn.before_id);
    const folder = await this.folders.get(turn.path, turn.host_id);
    return this.restore(
      folder,
      'rewind',
      `Rewind to before the turn of ${new Date(turn.started_at).toISOString()}`,
      turnId,
      async (pre, fs) => {
        // The agent's turns since are undone; every other change since (the user's own edits) is kept or merged.
        const latest = this.folders.rows().checkpointIds(folder.id).filter((c) => c.id !== pre.id);
        const base = latest.length > 0 ? this.reader.checkpointRow(latest.at(-1)!.id) : pre;
        const [entries, current, targetTree, turns] = await Promise.all([
          changedEntries(folder.repo, pre.tree, target.tree),
          folder.repo.lsTree(pre.tree),
          folder.repo.lsTree(target.tree),
          this.agentTurns(folder, target.id, pre.id),
        ]);
        const undone = await undoTurns(folder.repo, entries.map((e) => e.path), turns, current, targetTree, overwrite, (p) => fs.hasEntry(p));
        // Files recorded by size only that the turns added (ignored ones, a planted hook…) go too.
        return { ...undone, statOnly: planStatOnly(base.large, { large: target.large, tree: targetTree }, byPath(pre.large), null) };
      },
      overwrite,
    );
  }

  listRestores(folderId: string): { restores: Restore[] } {
    return { restores: this.folders.rows().restores(folderId) };
  }

  async undoRestore(restoreId: string): Promise<RestoreReport> {
    const r = this.folders.rows().restore(restoreId);
    if (!r) throw new IpcFailure('not_found', `no restore ${restoreId}`);
    if (r.undone_by) throw new IpcFailure('conflict', 'this restore was already undone');
    const folder = await this.folders.byId(r.folder_id);
    const pre = this.reader.checkpointRow(r.pre_id);
    const post = this.reader.checkpointRow(r.post_id);
    const report = await this.restore(folder, 'undo', 'Undo a restore', null, async () => {
      const entries = await changedEntries(folder.repo, post.tree, pre.tree);
      return { items: entries.map((e) => ({ path: e.path, base: e.a, target: e.b })) };
    });
    if (report.restoreId) this.folders.rows().markUndone(restoreId, report.restoreId);
    return { restoreId: report.restoreId, applied: report.applied, refused: report.refused };
  }
}
