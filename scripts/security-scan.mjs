// The Electron security scan (Doyensec's electronegativity) over src/. Fails on a HIGH or CRITICAL
// finding that is not explained in resources/security/electronegativity-review.json.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const electronVersion = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')).version;
const out = join(mkdtempSync(join(tmpdir(), 'sb-eneg-')), 'findings.csv');
const cli = join(root, 'node_modules/@doyensec/electronegativity/dist/index.js');
const r = spawnSync(process.execPath, [cli, '-i', join(root, 'src'), '-e', electronVersion, '-r', '-v', 'false', '-o', out], {
  cwd: root,
  encoding: 'utf8',
});
let csv;
try {
  csv = readFileSync(out, 'utf8');
} catch {
  console.error(`security scan: electronegativity produced no report (exit ${r.status}):\n${r.stderr}`);
  process.exit(1);
}
const review = JSON.parse(readFileSync(join(root, 'resources/security/electronegativity-review.json'), 'utf8')).reviewed;
const rows = csv
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const m = /^([A-Z_]+),"(\w+)","(\w+)","([^"]*)","([^"]*)"/.exec(line);
    return m ? { check: m[1], severity: m[2], confidence: m[3], file: m[4], at: m[5] } : null;
  })
  .filter(Boolean);
let failures = 0;
for (const f of rows) {
  const high = f.severity === 'HIGH' || f.severity === 'CRITICAL';
  const why = review[f.check];
  const mark = high && !why ? 'FAIL' : 'ok  ';
  if (high && !why) failures++;
  console.log(`${mark} ${f.severity.padEnd(8)} ${f.check} ${f.file}:${f.at}${why ? `\n       reviewed: ${why}` : ''}`);
}
console.log(`security scan: ${rows.length} findings, ${rows.filter((f) => f.severity === 'HIGH' || f.severity === 'CRITICAL').length} high, ${failures} unexplained high`);
process.exit(failures ? 1 : 0);
