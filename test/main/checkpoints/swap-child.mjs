// Swaps <work>/d (a folder) for a symlink to <outside>, and <work>/f.txt for a symlink to <outside>/secret.txt,
// and back, in a loop with random pauses of 0-3 ms, until killed (test/main/checkpoints/confinement.test.ts).
import { renameSync } from 'node:fs';
import { join } from 'node:path';

const [work] = process.argv.slice(2);
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const swap = (name) => {
  const at = join(work, name);
  try {
    renameSync(at, join(work, `${name}.real`));
    renameSync(join(work, `${name}.link`), at);
    pause(Math.random() * 3);
    renameSync(at, join(work, `${name}.link`));
    renameSync(join(work, `${name}.real`), at);
  } catch {
    // A step failed (the test is reading the folder): the next round tries again.
  }
};
process.stdout.write('swapping\n');
for (;;) {
  swap(Math.random() < 0.7 ? 'd' : 'f.txt');
  pause(Math.random() * 2);
}
