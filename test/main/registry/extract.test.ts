import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractArchive } from '../../../src/main/core/registry/extract';
import { makeTar, makeTarGz, makeZip, type Member } from './helpers/archives';
import { listTree } from './helpers/setup';

let root: string;
let dest: string;
let outside: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sb-extract-'));
  // dest is two levels down so "../" and "../../" both land in folders we can watch.
  outside = join(root, 'outside');
  dest = join(outside, 'work', 'dest');
  mkdirSync(dest, { recursive: true });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (name: string, data: Buffer): string => {
  const file = join(root, name);
  writeFileSync(file, data);
  return file;
};

/** Extracts and expects a refusal, and that nothing appeared outside dest. */
async function expectRefused(file: string, reason: RegExp, limits?: { maxBytes: number; maxEntries: number }): Promise<void> {
  const before = listTree(outside).filter((p) => !p.startsWith('work/dest'));
  await expect(extractArchive(file, dest, { limits })).rejects.toThrow(reason);
  const after = listTree(outside).filter((p) => !p.startsWith('work/dest'));
  expect(after).toEqual(before);
}

const good: Member[] = [
  { name: 'bin/', type: 'dir' },
  { name: 'bin/agent', content: '#!/bin/sh\necho hi\n', mode: 0o755 },
  { name: 'lib/data.txt', content: 'data' },
  { name: 'agent-link', type: 'symlink', target: 'bin/agent' },
  { name: 'lib/up', type: 'symlink', target: '../bin/agent' },
];

describe('safe archive extraction', () => {
  it('extracts a tar.gz with modes and in-folder symlinks', async () => {
    const file = write('good.tar.gz', makeTarGz([...good, { name: 'lib/hard', type: 'hardlink', target: 'lib/data.txt' }]));
    const r = await extractArchive(file, dest);
    expect(r.format).toBe('tar.gz');
    expect(readFileSync(join(dest, 'bin/agent'), 'utf8')).toContain('echo hi');
    expect(statSync(join(dest, 'bin/agent')).mode & 0o111).not.toBe(0);
    expect(readlinkSync(join(dest, 'agent-link'))).toBe('bin/agent');
    expect(readFileSync(join(dest, 'lib/up'), 'utf8')).toContain('echo hi');
    expect(statSync(join(dest, 'lib/hard')).ino).toBe(statSync(join(dest, 'lib/data.txt')).ino);
  });

  it('extracts a zip with modes and in-folder symlinks', async () => {
    const file = write('good.zip', makeZip(good));
    const r = await extractArchive(file, dest);
    expect(r.format).toBe('zip');
    expect(readFileSync(join(dest, 'bin/agent'), 'utf8')).toContain('echo hi');
    expect(statSync(join(dest, 'bin/agent')).mode & 0o111).not.toBe(0);
    expect(lstatSync(join(dest, 'agent-link')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dest, 'agent-link'), 'utf8')).toContain('echo hi');
  });

  it('extracts tar.bz2 and plain tar', async () => {
    const tar = write('good.tar', makeTar(good));
    expect((await extractArchive(tar, dest)).format).toBe('tar');
    rmSync(dest, { recursive: true });
    mkdirSync(dest);
    const bz = spawnSync('bzip2', ['-k', '-c', tar]);
    expect(bz.status).toBe(0);
    const file = write('good.tar.bz2', bz.stdout);
    expect((await extractArchive(file, dest)).format).toBe('tar.bz2');
    expect(readFileSync(join(dest, 'bin/agent'), 'utf8')).toContain('echo hi');
  });

  it('drops set-uid bits', async () => {
    const file = write('suid.tar.gz', makeTarGz([{ name: 'agent', content: 'x', mode: 0o4755 }]));
    await extractArchive(file, dest);
    expect(statSync(join(dest, 'agent')).mode & 0o7000).toBe(0);
  });

  describe('refuses hostile tar archives, writing nothing outside', () => {
    it('path escape with ../', async () => {
      await expectRefused(write('a.tgz', makeTarGz([{ name: 'ok.txt', content: 'x' }, { name: '../../evil.txt', content: 'pwned' }])), /escapes the target folder/);
    });
    it('absolute path', async () => {
      await expectRefused(write('a.tgz', makeTarGz([{ name: join(outside, 'abs-evil.txt'), content: 'pwned' }])), /absolute path/);
    });
    it('symlink pointing outside', async () => {
      await expectRefused(write('a.tgz', makeTarGz([{ name: 'link', type: 'symlink', target: '../../' }])), /points outside/);
      await expectRefused(write('b.tgz', makeTarGz([{ name: 'link', type: 'symlink', target: '/etc/passwd' }])), /absolute path/);
    });
    it('writing through a symlink', async () => {
      await expectRefused(
        write('a.tgz', makeTarGz([{ name: 'sub/', type: 'dir' }, { name: 'link', type: 'symlink', target: 'sub' }, { name: 'link/file', content: 'x' }])),
        /through the symlink/,
      );
    });
    it('a chain of symlinks that escapes although each looks inside', async () => {
      await expectRefused(
        write('a.tgz', makeTarGz([{ name: 'a/', type: 'dir' }, { name: 'a/b', type: 'symlink', target: '..' }, { name: 'c', type: 'symlink', target: 'a/b/..' }])),
        /points outside/,
      );
    });
    it('hard link pointing outside', async () => {
      await expectRefused(write('a.tgz', makeTarGz([{ name: 'hl', type: 'hardlink', target: '../../outside-file' }])), /hard link "hl" points outside/);
      await expectRefused(write('b.tgz', makeTarGz([{ name: 'hl', type: 'hardlink', target: '/etc/passwd' }])), /hard link "hl" points outside/);
    });
    it('device files and FIFOs', async () => {
      await expectRefused(write('a.tgz', makeTarGz([{ name: 'dev', type: 'chardev' }])), /device or FIFO/);
      await expectRefused(write('b.tgz', makeTarGz([{ name: 'pipe', type: 'fifo' }])), /device or FIFO/);
    });
    it('oversized', async () => {
      const file = write('big.tgz', makeTarGz([{ name: 'a', content: Buffer.alloc(600_000) }, { name: 'b', content: Buffer.alloc(600_000) }]));
      await expectRefused(file, /unpacks to more than 1000000 bytes/, { maxBytes: 1_000_000, maxEntries: 100 });
    });
    it('too many files', async () => {
      const many = Array.from({ length: 60 }, (_, i) => ({ name: `f${i}`, content: 'x' }));
      await expectRefused(write('many.tgz', makeTarGz(many)), /more than 50 entries/, { maxBytes: 1e9, maxEntries: 50 });
    });
    it('truncated archive', async () => {
      const full = makeTarGz([{ name: 'a', content: Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251)) }]);
      await expectRefused(write('cut.tgz', full.subarray(0, Math.floor(full.length / 2))), /damaged or incomplete/);
    });
    it('not an archive at all', async () => {
      await expectRefused(write('page.html', Buffer.from('<html>404</html>')), /not a tar\.gz, tar\.bz2/);
    });
  });

  describe('refuses hostile zip archives, writing nothing outside', () => {
    it('path escape with ../', async () => {
      await expectRefused(write('a.zip', makeZip([{ name: 'ok.txt', content: 'x' }, { name: '../../evil.txt', content: 'pwned' }])), /relative path|escapes/);
    });
    it('absolute path', async () => {
      await expectRefused(write('a.zip', makeZip([{ name: '/tmp/abs-evil.txt', content: 'pwned' }])), /absolute path/);
    });
    it('symlink pointing outside', async () => {
      await expectRefused(write('a.zip', makeZip([{ name: 'link', type: 'symlink', target: '../../' }])), /points outside/);
      await expectRefused(write('b.zip', makeZip([{ name: 'link', type: 'symlink', target: '/etc' }, { name: 'link/passwd', content: 'x' }])), /absolute path/);
    });
    it('device entries', async () => {
      await expectRefused(write('a.zip', makeZip([{ name: 'dev', type: 'chardev' }])), /device, FIFO or socket/);
    });
    it('oversized (a zip bomb of zeros)', async () => {
      const file = write('bomb.zip', makeZip([{ name: 'zeros', content: Buffer.alloc(3_000_000) }]));
      await expectRefused(file, /unpacks to more than 1000000 bytes/, { maxBytes: 1_000_000, maxEntries: 100 });
    });
    it('too many files', async () => {
      const many = Array.from({ length: 60 }, (_, i) => ({ name: `f${i}`, content: 'x' }));
      await expectRefused(write('many.zip', makeZip(many)), /more than 50 entries/, { maxBytes: 1e9, maxEntries: 50 });
    });
    it('truncated archive', async () => {
      const full = makeZip([{ name: 'a', content: Buffer.from(Array.from({ length: 50_000 }, (_, i) => i % 251)) }]);
      await expectRefused(write('cut.zip', full.subarray(0, full.length - 40)), /damaged or incomplete/);
    });
  });
});
