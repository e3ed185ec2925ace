import { mkdtempSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderWatches } from '../../../src/main/core/checkpoints/folder-watches';
import { TEMP_PREFIX } from '../../../src/main/core/host/files';
import type { WatchEvent } from '../../../src/main/core/host/host';
import { LocalHost } from '../../../src/main/core/host/local/local-host';

const temps: string[] = [];
const disposables: Array<{ dispose(): void }> = [];
afterEach(() => {
  for (const d of disposables.splice(0)) d.dispose();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A review's watch of a real folder (the real watcher), with what the watcher reported and when the review was told. */
async function watchedFolder() {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'sb-watches-')));
  temps.push(folder);
  const local = new LocalHost();
  const reported: string[] = [];
  let ready = false;
  const told: string[] = [];
  let phase = 'before any change';
  const watches = new FolderWatches(
    async (root, onEvent, options) => {
      const d = await local.watch(root, (e: WatchEvent) => {
        if (e.kind === 'changes') reported.push(...e.changes.map((c) => `${c.kind} ${c.path.slice(root.length + 1)}`));
        onEvent(e);
      }, options);
      ready = true;
      return d;
    },
    () => told.push(phase),
    { quietMs: 0 },
  );
  disposables.push(watches);
  watches.add(folder);
  await until('the watch to start', () => ready);
  return { folder, reported, told, setPhase: (p: string) => (phase = p) };
}

describe('FolderWatches (a review re-reads its folder when it changes)', () => {
  it("Switchboard's own temporary files (a snapshot's sync file) do not make the review read again; a real file does", async () => {
    const w = await watchedFolder();
    // What a snapshot does each time the review reads the folder: a sync file written, seen by the watch, removed.
    const sync = join(w.folder, `${TEMP_PREFIX}sync-0123456789ab`);
    w.setPhase('after the sync file');
    writeFileSync(sync, '');
    await until('the watcher to report the sync file', () => w.reported.some((r) => r.startsWith('create') && r.includes('sync-0123456789ab')));
    unlinkSync(sync);
    await until('the watcher to report its removal', () => w.reported.some((r) => r.startsWith('delete') && r.includes('sync-0123456789ab')));
    // Any timer the sync file started has had its turn (quietMs 0) before the real change below.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    w.setPhase('after the hand edit');
    writeFileSync(join(w.folder, 'notes.md'), 'edited by hand\n');
    await until('the review to be told', () => w.told.length > 0);
    expect(w.told).toEqual(['after the hand edit']);
  });

  it('a batch with a real file among temporary ones (an atomic write), or a lost track, is still a change', async () => {
    // The watcher's batches as it would hand them over (what it coalesces, and when, is its own business).
    const told: string[] = [];
    let deliver: (e: WatchEvent) => void = () => {};
    const watches = new FolderWatches(
      (_root, onEvent) => {
        deliver = onEvent;
        return Promise.resolve({ dispose() {} });
      },
      (path) => told.push(path),
      { quietMs: 0 },
    );
    disposables.push(watches);
    watches.add('/project');
    const temp = { path: `/project/src/${TEMP_PREFIX}0123456789abcdef`, kind: 'create' as const };
    deliver({ kind: 'changes', changes: [temp, { ...temp, kind: 'delete' }] });
    deliver({ kind: 'changes', changes: [temp, { path: '/project/src/main.ts', kind: 'update' }, { ...temp, kind: 'delete' }] });
    await until('the review to be told of main.ts', () => told.length > 0);
    deliver({ kind: 'rescan', reason: 'the watched folder was removed' });
    await until('the review to be told of the rescan', () => told.length > 1);
    expect(told).toEqual(['/project', '/project']);
  });
});
