import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsRefusal } from '../../../src/main/core/host/files';
import { ConfinedFs } from '../../../src/main/core/host/local/confined-fs';
import { refusal } from '../../support/fs-refusal';

let root: string;
let work: string;
let outside: string;
let fs: ConfinedFs;
beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-confined-')));
  work = join(root, 'work');
  outside = join(root, 'outside');
  mkdirSync(work);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET');
  fs = await ConfinedFs.open([work]);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Every file under `dir` with its content (to prove nothing outside changed). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const p = join(dir, name);
    out[name] = statSync(p).isFile() ? readFileSync(p, 'utf8') : '<folder>';
  }
  return out;
}

/**
 * A separate process that swaps `work/d` between a real folder and a symlink to `outside`, as fast as it
 * can, until killed.
 */
function startSwapper(): ChildProcess {
  const script = `
    const fs = require('node:fs');
    const [d, parked, target] = process.argv.slice(1);
    for (;;) {
      try { fs.renameSync(d, parked); } catch {}
      try { fs.symlinkSync(target, d); } catch {}
      try { fs.unlinkSync(d); } catch {}
      try { fs.renameSync(parked, d); } catch { try { fs.rmSync(d, { recursive: true, force: true }); fs.renameSync(parked, d); } catch {} }
    }`;
  return spawn(process.execPath, ['-e', script, join(work, 'd'), join(work, 'd-parked'), outside], { stdio: 'ignore' });
}

describe('confined file access', () => {
  it('writes atomically and keeps the permission bits', async () => {
    writeFileSync(join(work, 'a.txt'), 'before', { mode: 0o640 });
    const r = await fs.writeFile(join(work, 'a.txt'), 'after');
    expect(r.real).toBe(join(work, 'a.txt'));
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('after');
    expect(statSync(join(work, 'a.txt')).mode & 0o777).toBe(0o640);
    await fs.writeFile(join(work, 'deep/er/b.txt'), 'new', { createParents: true });
    expect(readFileSync(join(work, 'deep/er/b.txt'), 'utf8')).toBe('new');
    // No temp file is left behind.
    expect(readdirSync(work).sort()).toEqual(['a.txt', 'deep']);
  });

  it('refuses every malformed or escaping path with a sentence', async () => {
    symlinkSync(join(work, 'loop2'), join(work, 'loop1'));
    symlinkSync(join(work, 'loop1'), join(work, 'loop2'));
    symlinkSync(outside, join(work, 'out'));
    writeFileSync(join(work, 'notes.txt'), 'x');
    mkdirSync(join(work, 'sub'));
    const cases: Array<[unknown, RegExp]> = [
      [`${work}/a\0b.txt`, /NUL byte/],
      [`${work}/${'n'.repeat(300)}`, /name in the path is too long/],
      [`${work}/${'abcdefgh/'.repeat(500)}x`, /path is too long/],
      [`${work}/loop1/x.txt`, /symbolic link loop/],
      [`${work}/notes.txt/x.txt`, /not a folder/],
      [`${work}/sub`, /not a regular file \(folder\)/],
      ['relative/x.txt', /must be absolute/],
      ['C:\\Users\\x.txt', /Windows-style/],
      [`file://${work}/notes.txt`, /not a URL/],
      [`${work}/../outside/secret.txt`, /outside the session's folders/],
      [`${work}/out/secret.txt`, /outside the session's folders/],
      [`${work}/%2e%2e/outside/secret.txt`, /does not exist/],
      [42, /non-empty string/],
    ];
    for (const [path, message] of cases) {
      const r = await refusal(fs.readFile(path, { maxBytes: 1024 }));
      expect(r.message, String(path)).toMatch(message);
      expect(r.message).not.toContain('\0');
      expect(r.message.length).toBeLessThan(400);
      if (path !== `${work}/sub` && path !== `${work}/%2e%2e/outside/secret.txt`) {
        expect((await refusal(fs.writeFile(path, 'pwned', { createParents: true }))).message, String(path)).toMatch(message);
      }
    }
    expect(snapshot(outside)).toEqual({ 'secret.txt': 'TOP SECRET' });
  });

  it('refuses a named pipe without blocking, and a file over the size bound', async () => {
    execFileSync('mkfifo', [join(work, 'pipe')]);
    expect((await refusal(fs.readFile(join(work, 'pipe'), { maxBytes: 1024 }))).message).toMatch(/not a regular file \(named pipe\)/);
    expect((await refusal(fs.writeFile(join(work, 'pipe'), 'x'))).message).toMatch(/named pipe/);
    expect(await fs.removeFile(join(work, 'pipe')).catch((e: Error) => e.message)).toMatch(/named pipe/);
    expect(await fs.stat(join(work, 'pipe'))).toMatchObject({ kind: 'other' });
    writeFileSync(join(work, 'big.txt'), 'x'.repeat(2048));
    expect((await refusal(fs.readFile(join(work, 'big.txt'), { maxBytes: 1024 }))).reason).toBe('too_large');
    // The file threads are free: a normal read still completes.
    writeFileSync(join(work, 'ok.txt'), 'fine');
    expect((await fs.readFile(join(work, 'ok.txt'), { maxBytes: 1024 })).data.toString()).toBe('fine');
  });

  it('removes only regular files, never through a link', async () => {
    writeFileSync(join(work, 'gone.txt'), 'x');
    expect(await fs.removeFile(join(work, 'gone.txt'))).toBe(true);
    expect(await fs.removeFile(join(work, 'gone.txt'))).toBe(false);
    symlinkSync(outside, join(work, 'd'));
    expect((await refusal(fs.removeFile(join(work, 'd/secret.txt')))).reason).toBe('outside');
    expect(snapshot(outside)).toEqual({ 'secret.txt': 'TOP SECRET' });
  });

  it('lands no write, read, removal, stat or listing outside while a folder is swapped for a symlink (race)', async () => {
    mkdirSync(join(work, 'd'));
    writeFileSync(join(work, 'd', 'secret.txt'), 'inside');
    writeFileSync(join(outside, 'keep.txt'), 'keep me');
    writeFileSync(join(outside, 'outside-only.txt'), 'out');
    const before = snapshot(outside);
    const swapper = startSwapper();
    let done = 0;
    const reasons: Record<string, number> = {};
    const leaked: string[] = [];
    try {
      for (let i = 0; i < 1000; i++) {
        const ops: Array<Promise<unknown>> = [
          fs.writeFile(join(work, 'd', `w${i % 20}.txt`), `write ${i}`, { createParents: true }),
          fs.writeFile(join(work, 'd', 'keep.txt'), 'mine'),
          fs.writeFile(join(work, 'd', `new${i % 5}`, `f${i % 3}`, 'x.txt'), 'x', { createParents: true }),
          fs.removeFile(join(work, 'd', 'keep.txt')),
          fs.readFile(join(work, 'd', 'secret.txt'), { maxBytes: 1024 }).then((r) => {
            if (r.data.toString() !== 'inside') leaked.push(r.data.toString());
          }),
          // What checkpoint restores use: no link followed anywhere on the path.
          fs.placeFile(`d/r${i % 7}/keep.txt`, Buffer.from('restored'), 0o644),
          fs.placeSymlink(`d/link${i % 3}`, '/etc/hostname'),
          fs.removeEntry('d/keep.txt'),
          fs.hasEntry('d/keep.txt'),
          // Looking is confined too: never the outside folder's names or its file's size.
          fs.listDir(join(work, 'd')).then((entries) => {
            if (entries.some((e) => e.name === 'outside-only.txt')) leaked.push('listDir saw the outside folder');
          }),
          fs.stat(join(work, 'd', 'secret.txt')).then((info) => {
            if (info.size !== 'inside'.length) leaked.push(`stat saw a file of ${info.size} bytes`);
          }),
        ];
        for (const r of await Promise.allSettled(ops)) {
          if (r.status === 'fulfilled') done++;
          else if (!(r.reason instanceof FsRefusal)) throw r.reason;
          else reasons[r.reason.reason] = (reasons[r.reason.reason] ?? 0) + 1;
        }
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    // Both sides happened: operations went through, and the swaps made others refuse.
    expect(done).toBeGreaterThan(0);
    expect(Object.values(reasons).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(leaked).toEqual([]);
    expect(snapshot(outside)).toEqual(before);
    expect(readdirSync(outside).sort()).toEqual(['keep.txt', 'outside-only.txt', 'secret.txt']);
  });
});
