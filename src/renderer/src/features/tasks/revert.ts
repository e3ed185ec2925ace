import type { Api } from '../../ipc/client';

/** Reverts everything a run's session changed in its folders (each folder from before its first turn to now). */
export async function revertRun(api: Api, sessionId: string): Promise<{ ok: boolean; text: string }> {
  const changes = await api.call('checkpoints.sessionChanges', { sessionId });
  if (!changes.ok) return { ok: false, text: `Could not read the run's changes: ${changes.error.message}` };
  let written = 0;
  const refused: string[] = [];
  for (const f of changes.value.folders) {
    if (f.changes.files.length === 0) continue;
    if (f.folderMissing) {
      refused.push(`${f.folder} (the folder is gone)`);
      continue;
    }
    const r = await api.call('checkpoints.revert', { from: f.changes.from, to: f.changes.to, scope: { kind: 'all' } });
    if (!r.ok) return { ok: false, text: `Could not revert the run's changes: ${r.error.message}` };
    written += r.value.applied.length;
    refused.push(...r.value.refused.map((x) => `${x.path}: ${x.reason}`));
  }
  if (refused.length > 0) return { ok: false, text: `Reverted ${written} file${written === 1 ? '' : 's'}; left as they are: ${refused.slice(0, 5).join('; ')}${refused.length > 5 ? '…' : ''}` };
  return { ok: true, text: written === 0 ? 'The run changed no file: nothing to revert.' : `Reverted ${written} file${written === 1 ? '' : 's'} the run changed.` };
}
