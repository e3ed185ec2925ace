import { randomUUID } from 'node:crypto';
import { IpcFailure } from '../../../shared/contract';
import type { ChangeSet, FileDiff, TurnCheckpoint } from '../../../shared/contract/checkpoints';
import { diffSnapshots, hunksOf, isBinary } from './changes';
import { errorText, folderKey, type CheckpointFolders, type Folder } from './checkpoint-folders';
import type { CheckpointRow, TurnRow } from './checkpoint-rows';
import { notKept } from './file-restore';
import type { FolderWatches } from './folder-watches';
import type { TreeEntry } from './shadow-store';
import type { ShadowStore } from './shadow-store';

/** The entry of `path` in a stored tree (null: not there, or not a file). */
export async function entryAt(repo: ShadowStore, tree: string, path: string): Promise<TreeEntry | null> {
  const out = (await repo.git.run(['ls-tree', '-z', '--full-tree', tree, '--', path])).stdout.toString('utf8');
  for (const rec of out.split('\0')) {
    const tab = rec.indexOf('\t');
    if (tab < 0 || rec.slice(tab + 1) !== path) continue;
    const [mode, type, sha] = rec.slice(0, tab).split(' ');
    if (type === 'blob') return { mode: mode!, sha: sha! };
  }
  return null;
}

/** Paths that differ between two trees, each with its entry on both sides. */
export async function changedEntries(repo: ShadowStore, a: string, b: string): Promise<Array<{ path: string; a: TreeEntry | null; b: TreeEntry | null }>> {
  if (a === b) return [];
  const out = (await repo.git.run(['diff-tree', '-r', '-z', '--no-renames', '--raw', a, b])).stdout.toString('utf8');
  const tokens = out.split('\0');
  const list: Array<{ path: string; a: TreeEntry | null; b: TreeEntry | null }> = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!t.startsWith(':')) continue;
    const [am, bm, as, bs] = t.slice(1).split(' ') as [string, string, string, string];
    const path = tokens[++i]!;
    list.push({ path, a: /^0+$/.test(am) ? null : { mode: am, sha: as }, b: /^0+$/.test(bm) ? null : { mode: bm, sha: bs } });
  }
  return list;
}

/** Reading what changed: between two checkpoints, in a turn, in a whole session, in one file. */
export class ChangeReader {
  private readonly changeCache = new Map<string, ChangeSet>();
  /** What a turn's checkpoints should say that no restore says (this process only). */
  readonly turnNotices = new Map<string, string>();

  constructor(
    private readonly folders: CheckpointFolders,
    private readonly watches: FolderWatches,
  ) {}

  clearCache(): void {
    this.changeCache.clear();
  }

  checkpointRow(id: string): CheckpointRow {
    const cp = this.folders.rows().checkpoint(id);
    if (!cp) throw new IpcFailure('not_found', `no checkpoint ${id} (it may have been pruned)`);
    return cp;
  }

  async changesBetween(folder: Folder, from: CheckpointRow, to: CheckpointRow): Promise<ChangeSet> {
    const key = `${from.id}:${to.id}`;
    const cached = this.changeCache.get(key);
    if (cached) return cached;
    const set = await diffSnapshots(folder.repo, from, to);
    if (this.changeCache.size > 100) this.changeCache.delete(this.changeCache.keys().next().value!);
    this.changeCache.set(key, set);
    return set;
  }

  async turnView(t: TurnRow): Promise<TurnCheckpoint> {
    const rows = this.folders.rows();
    let changes = rows.cachedChanges(t);
    let error = t.error;
    if (!changes && t.before_id && t.after_id) {
      try {
        const folder = await this.folders.get(t.path, t.host_id);
        changes = await this.changesBetween(folder, this.checkpointRow(t.before_id), this.checkpointRow(t.after_id));
        rows.setTurn(t.id, { changes_json: JSON.stringify(changes) });
      } catch (e) {
        error = `the turn's changes could not be read: ${errorText(e)}`;
      }
    }
    const state: TurnCheckpoint['state'] = t.ended_at === null ? 'running' : changes ? 'recorded' : error || !t.before_id ? 'failed' : 'recording';
    return {
      id: t.id,
      sessionId: t.session_id,
      promptId: t.prompt_id,
      folderId: t.folder_id,
      folder: t.path,
      folderMissing: !(await this.folders.isDirectory(t.host_id, t.path)),
      startedAt: t.started_at,
      endedAt: t.ended_at,
      beforeLate: t.before_late === 1,
      state,
      error: state === 'failed' ? (error ?? 'the checkpoint before the turn is missing (pruned?)') : null,
      changes,
      // Only a turn that changed something can have another session's changes mixed in.
      overlaps: changes && changes.files.length === 0 ? [] : rows.overlapping(t.folder_id, t.session_id, t.started_at, t.ended_at ?? Date.now()),
      notice: rows.turnNotice(t.id) ?? this.turnNotices.get(t.id) ?? null,
    };
  }

  async listTurns(sessionId: string): Promise<TurnCheckpoint[]> {
    const turns: TurnCheckpoint[] = [];
    for (const t of this.folders.rows().turnsOfSession(sessionId)) turns.push(await this.turnView(t));
    return turns;
  }

  /**
   * Everything a session changed, per folder, from before its first turn to the folder as it is now (a
   * snapshot taken here, unless a turn runs in it: then up to the last recorded turn), so that a revert or a
   * hand edit since shows; `editedSince`: the files that changed after the agent's last turn.
   */
  async sessionChanges(
    sessionId: string,
  ): Promise<{ folders: Array<{ folderId: string; folder: string; folderMissing: boolean; changes: ChangeSet; editedSince: string[] }> }> {
    const byFolder = new Map<string, TurnRow[]>();
    for (const t of this.folders.rows().turnsOfSession(sessionId)) {
      if (!byFolder.has(t.folder_id)) byFolder.set(t.folder_id, []);
      byFolder.get(t.folder_id)!.push(t);
    }
    const folders: Array<{ folderId: string; folder: string; folderMissing: boolean; changes: ChangeSet; editedSince: string[] }> = [];
    for (const [folderId, turns] of byFolder) {
      const first = turns.find((t) => t.before_id);
      const last = [...turns].reverse().find((t) => t.after_id);
      if (!first?.before_id || !last?.after_id) continue;
      const folder = await this.folders.get(turns[0]!.path, turns[0]!.host_id);
      const missing = !(await folder.site.isDirectory(folder.path));
      if (!missing) this.watches.add(folderKey(folder.hostId, folder.path));
      const lastAfter = this.checkpointRow(last.after_id);
      const now = missing || folder.running.size > 0 ? lastAfter : await this.folders.exclusive(folder, () => this.currentCheckpoint(folder));
      const editedSince = now.tree === lastAfter.tree ? [] : (await changedEntries(folder.repo, lastAfter.tree, now.tree)).map((e) => e.path);
      folders.push({ folderId, folder: folder.path, folderMissing: missing, changes: await this.changesBetween(folder, this.checkpointRow(first.before_id), now), editedSince });
    }
    return { folders };
  }

  /** A checkpoint of the folder as it is now: the latest one when nothing changed since (no new row), else a new one. Inside `exclusive`. */
  private async currentCheckpoint(folder: Folder): Promise<CheckpointRow> {
    const rows = this.folders.rows();
    const snap = await folder.repo.snapshot();
    const latest = rows.checkpointIds(folder.id).at(-1);
    const row = latest ? rows.checkpoint(latest.id) : undefined;
    if (row && row.tree === snap.tree) return row;
    const fresh: CheckpointRow = { id: randomUUID(), folderId: folder.id, tree: snap.tree, large: snap.large, kind: 'view', createdAt: Date.now() };
    await folder.repo.keep(fresh.id, fresh.tree);
    rows.insertCheckpoint(fresh);
    return fresh;
  }

  async pair(fromId: string, toId: string): Promise<{ folder: Folder; from: CheckpointRow; to: CheckpointRow }> {
    const from = this.checkpointRow(fromId);
    const to = this.checkpointRow(toId);
    if (from.folderId !== to.folderId) throw new IpcFailure('invalid_params', 'the two checkpoints are of different folders');
    return { folder: await this.folders.byId(from.folderId), from, to };
  }

  async fileDiff(fromId: string, toId: string, path: string): Promise<FileDiff> {
    const { folder, from, to } = await this.pair(fromId, toId);
    const set = await this.changesBetween(folder, from, to);
    const file = set.files.find((f) => f.path === path);
    if (!file) throw new IpcFailure('not_found', `${path} did not change between these checkpoints`);
    if (notKept(file)) return { file, oldText: null, newText: null, hunks: [] };
    const [a, b] = await Promise.all([entryAt(folder.repo, from.tree, file.oldPath ?? path), entryAt(folder.repo, to.tree, path)]);
    const [ab, bb] = await Promise.all([a ? folder.repo.blob(a.sha) : Buffer.alloc(0), b ? folder.repo.blob(b.sha) : Buffer.alloc(0)]);
    if (file.binary || isBinary(ab) || isBinary(bb)) return { file: { ...file, binary: true }, oldText: null, newText: null, hunks: [] };
    const oldText = ab.toString('utf8');
    const newText = bb.toString('utf8');
    return { file, oldText: a ? oldText : null, newText: b ? newText : null, hunks: await hunksOf(folder.repo, a?.sha ?? null, b?.sha ?? null, oldText, newText) };
  }
}
