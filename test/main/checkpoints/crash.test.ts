import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { TEMP_PREFIX } from '../../../src/main/core/host/files';
import { makeRig, type Rig } from './helpers';

const require = createRequire(import.meta.url);
const child = fileURLToPath(new URL('./rewind-child.ts', import.meta.url));
const FILES = 120;
const oldContent = (i: number) => `old ${i}\n`.repeat(8000);
const newContent = (i: number) => `new ${i}\n`.repeat(9000);

let rig: Rig;
afterEach(async () => rig?.dispose());

describe('a rewind killed mid-way', () => {
  it('leaves every file either old or new, never half-written; the next rewind finishes the job', async () => {
    rig = makeRig();
    const w = rig.work;
    for (let i = 0; i < FILES; i++) writeFileSync(join(w, `f${i}.txt`), oldContent(i));
    await rig.turn(() => {
      for (let i = 0; i < FILES; i++) writeFileSync(join(w, `f${i}.txt`), newContent(i));
    });
    const [turn] = await rig.svc.listTurns('s1');

    // The child stops itself once it has put back its first file (f0.txt: paths go in git's order), and is
    // killed there: mid-rewind, on an idle machine or a loaded one.
    const proc = spawn(process.execPath, ['--import', pathToFileURL(require.resolve('tsx/esm')).href, child, rig.dataDir, turn!.id, join(w, 'f0.txt'), oldContent(0)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      proc.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        if (out.includes('stopped')) resolve();
      });
      proc.on('exit', () => reject(new Error(`the rewind ended before it was stopped: ${out}`)));
    });
    proc.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(out).not.toContain('done');

    let oldCount = 0;
    for (let i = 0; i < FILES; i++) {
      const text = readFileSync(join(w, `f${i}.txt`), 'utf8');
      expect([oldContent(i), newContent(i)]).toContain(text);
      if (text === oldContent(i)) oldCount++;
    }
    // Killed mid-way: some files are back, not all.
    expect(oldCount).toBeGreaterThan(0);
    expect(oldCount).toBeLessThan(FILES);

    // Rewinding again completes it and sweeps away the killed one's temporary files.
    const again = await rig.svc.rewind(turn!.id);
    expect(again.refused).toEqual([]);
    for (let i = 0; i < FILES; i++) expect(readFileSync(join(w, `f${i}.txt`), 'utf8')).toBe(oldContent(i));
    expect(readdirSync(w).filter((n) => n.startsWith(TEMP_PREFIX))).toEqual([]);
    expect(existsSync(join(rig.dataDir, 'checkpoints'))).toBe(true);
  });
});
