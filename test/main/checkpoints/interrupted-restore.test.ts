import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/main/core/base/event-bus';
import { CheckpointService } from '../../../src/main/core/checkpoints/checkpoint-service';
import { makeRig, type Rig } from './helpers';

const require = createRequire(import.meta.url);
const child = fileURLToPath(new URL('./rewind-child.ts', import.meta.url));
const FILES = 3000;
const oldContent = (i: number) => `old ${i}\n`;
const newContent = (i: number) => `new ${i}\n`;

let rig: Rig;
afterEach(async () => rig?.dispose());

describe('a rewind killed mid-way (SIGKILL)', () => {
  it('is finished at the next start, and the user is told, on the turn and in the app', async () => {
    // The "before" snapshot of 3,000 files is waited for, however loaded the machine.
    rig = makeRig({ beforeWaitMs: 280_000 });
    const w = rig.work;
    for (let i = 0; i < FILES; i++) writeFileSync(join(w, `f${i}.txt`), oldContent(i));
    await rig.turn(() => {
      for (let i = 0; i < FILES; i++) writeFileSync(join(w, `f${i}.txt`), newContent(i));
    });
    const [turn] = await rig.svc.listTurns('s1');

    const proc = spawn(process.execPath, ['--import', pathToFileURL(require.resolve('tsx/esm')).href, child, rig.dataDir, turn!.id], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('exit', (_code, signal) => resolve(signal)));
    // Killed as soon as the rewind has put back its first file (paths go in git's order: f0.txt first).
    while (readFileSync(join(w, 'f0.txt'), 'utf8') !== oldContent(0) && !out.includes('done')) await new Promise((r) => setTimeout(r, 2));
    proc.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const isOld = (i: number) => readFileSync(join(w, `f${i}.txt`), 'utf8') === oldContent(i);
    const before = Array.from({ length: FILES }, (_, i) => isOld(i)).filter(Boolean).length;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(FILES);
    // The user edits a file the rewind had not reached yet, before Switchboard starts again.
    writeFileSync(join(w, 'f999.txt'), 'edited by the user\n');

    // The next start.
    await rig.svc.dispose();
    const bus = new EventBus();
    const told: string[] = [];
    bus.connect((name, payload) => {
      if (name === 'app.notice') told.push((payload as { message: string }).message);
    });
    rig.svc = new CheckpointService(rig.store, bus, rig.dataDir, { autoPrune: false, host: new LocalHost() });
    const notices = await rig.svc.recoverInterrupted();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/rewind .* was cut short when Switchboard stopped .* finished at this start/);
    expect(told).toEqual(notices);

    for (let i = 0; i < FILES; i++) if (i !== 999) expect(isOld(i), `f${i}.txt`).toBe(true);
    expect(readFileSync(join(w, 'f999.txt'), 'utf8')).toBe('edited by the user\n');

    // The turn says so, and the restore is listed with its notice and can be undone.
    const [view] = await rig.svc.listTurns('s1');
    expect(view!.notice).toBe(notices[0]);
    const { restores } = rig.svc.listRestores(view!.folderId);
    const finished = restores.at(-1)!;
    expect(finished.notice).toBe(notices[0]);
    expect(finished.report.refused).toEqual([{ path: 'f999.txt', reason: expect.stringMatching(/changed after the restore was cut short/) }]);
    // Undo is offered as for any restore (undoing 3,000 files is left to the restore tests).
    expect(finished.undoneBy).toBeNull();
    // Nothing left pending: a further start has nothing to say.
    expect(await rig.svc.recoverInterrupted()).toEqual([]);
  }, 300_000);
});
