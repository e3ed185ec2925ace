import { randomUUID } from 'node:crypto';
import type { RestoreReport } from '../../../shared/contract/checkpoints';
import type { EventBus } from '../base/event-bus';
import type { StoreService } from '../store/store-service';
import type { ChangeReader } from './change-reading';
import { errorText, type CheckpointFolders } from './checkpoint-folders';
import type { PendingRestoreRow } from './checkpoint-rows';
import { applyPlan, byPath, sameEntry, type PlanStep } from './file-restore';
import type { StoredStep } from './restores';

/**
 * Restores cut short (Switchboard was killed or crashed mid-way) are finished at the next start: each path the
 * plan had not reached yet, and still as it was before the restore, gets what the plan said; a path changed
 * since is left as it is. The user is told (app.notice now, and a notice on the turn and the restore).
 */
export class PendingRestores {
  constructor(
    private readonly store: StoreService,
    private readonly bus: EventBus,
    private readonly folders: CheckpointFolders,
    private readonly reader: ChangeReader,
    private readonly connected: (hostId: string) => boolean,
  ) {}

  async recover(): Promise<string[]> {
    const notices: string[] = [];
    for (const p of this.folders.rows().pending()) {
      // A restore on a host not connected now is finished at a start that finds it connected.
      const host = this.folders.rows().folder(p.folder_id)?.host_id;
      if (host && !this.connected(host)) continue;
      try {
        const notice = await this.finish(p);
        if (notice) notices.push(notice);
      } catch (e) {
        console.error('an interrupted restore could not be finished:', e);
        const message = `A ${p.kind} ("${p.label}") was cut short when Switchboard stopped, and could not be finished: ${errorText(e)}. Check the folder's files.`;
        this.folders.rows().deletePending(p.id);
        this.bus.emit('app.notice', { level: 'error', message });
        notices.push(message);
      }
    }
    return notices;
  }

  private async finish(p: PendingRestoreRow): Promise<string | null> {
    const rows = this.folders.rows();
    const pre = rows.checkpoint(p.pre_id);
    const folderRow = rows.folder(p.folder_id);
    if (!pre || !folderRow || !(await this.folders.isDirectory(folderRow.host_id, folderRow.path))) {
      rows.deletePending(p.id);
      return null;
    }
    const folder = await this.folders.get(folderRow.path, folderRow.host_id);
    const steps = JSON.parse(p.plan_json) as StoredStep[];
    const result = await this.folders.exclusive(folder, async () => {
      const fs = await folder.site.host.files([folder.path]);
      await fs.removeTempFiles(steps.map((s) => s.path)).catch(() => {});
      const now = await this.folders.takeCheckpoint(folder, 'restore_recover');
      const [nowTree, preTree] = await Promise.all([folder.repo.lsTree(now.tree), folder.repo.lsTree(pre.tree)]);
      const nowLarge = byPath(now.large);
      const preLarge = byPath(pre.large);
      const reached: RestoreReport['applied'] = [];
      const todo: PlanStep[] = [];
      const refused: RestoreReport['refused'] = [];
      for (const step of steps) {
        if ('refused' in step) {
          refused.push({ path: step.path, reason: step.refused });
          continue;
        }
        const cur = nowTree.get(step.path) ?? null;
        const curLarge = nowLarge.get(step.path);
        if (step.entry === null ? cur === null && !curLarge : sameEntry(cur, step.entry)) {
          reached.push({ path: step.path, action: step.action });
          continue;
        }
        const was = preTree.get(step.path) ?? null;
        const wasLarge = preLarge.get(step.path);
        const untouched = sameEntry(cur, was) && (wasLarge === undefined ? curLarge === undefined : curLarge !== undefined && curLarge.size === wasLarge.size && curLarge.mtimeMs === wasLarge.mtimeMs);
        if (untouched) todo.push(step);
        else refused.push({ path: step.path, reason: 'changed after the restore was cut short; left as it is' });
      }
      const done = await applyPlan(folder.repo, fs, todo);
      const applied = [...reached, ...done.applied];
      const allRefused = [...refused, ...done.refused];
      const notice =
        `The ${p.kind} "${p.label}" in ${folder.path} was cut short when Switchboard stopped (${reached.length} of ${steps.length - refused.length} files done). ` +
        `It was finished at this start: ${done.applied.length} more put back${allRefused.length > 0 ? `, ${allRefused.length} left as they were` : ''}. It can be undone like any restore.`;
      const post = await this.folders.takeCheckpoint(folder, 'restore_post');
      const restoreId = randomUUID();
      this.store.db.transaction(() => {
        rows.insertRestore({ id: restoreId, folderId: folder.id, kind: p.kind, label: `${p.label} (finished after an interruption)`, preId: pre.id, postId: post.id, report: { restoreId, applied, refused: allRefused }, turnId: p.turn_id, notice });
        rows.deletePending(p.id);
      })();
      return notice;
    });
    this.reader.clearCache();
    this.bus.emit('app.notice', { level: 'warning', message: result });
    this.bus.emit('checkpoints.changed', { folderId: folder.id, sessionId: null, turnId: p.turn_id });
    return result;
  }
}
