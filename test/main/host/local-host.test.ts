import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../../src/main/core/host/host';
import { Hosts } from '../../../src/main/core/host/hosts';
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { sessionMembers } from '../../../src/main/core/platform/proc-stat';
import { refusal } from '../../support/fs-refusal';
import { groupRunning, processes } from '../../support/processes';

const host = new LocalHost();
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-local-host-')));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const textOf = (stream: NodeJS.ReadableStream): Promise<string> =>
  new Promise((resolve) => {
    let out = '';
    stream.setEncoding('utf8');
    stream.on('data', (s: string) => (out += s));
    stream.on('end', () => resolve(out));
    stream.on('close', () => resolve(out));
  });

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('Hosts', () => {
  it("knows the local host by its id and refuses an unknown one", () => {
    const hosts = new Hosts(host);
    expect(hosts.get('local')).toBe(host);
    expect(() => hosts.get('elsewhere')).toThrow(/no host "elsewhere"/);
  });
});

describe('LocalHost.spawn', () => {
  it('pipes stdin to stdout and reports the exit code once every byte is out', async () => {
    const proc = host.spawn(['/bin/sh', '-c', 'cat; echo "err" >&2; exit 3'], { cwd: dir, env });
    await proc.started;
    expect(proc.pid).toBeGreaterThan(0);
    const [out, err] = [textOf(proc.stdout), textOf(proc.stderr)];
    proc.stdin.end('hello through the pipe\n');
    expect(await proc.closed).toEqual({ code: 3, signal: null, error: null });
    expect(await out).toBe('hello through the pipe\n');
    expect(await err).toBe('err\n');
  });

  it('reports a command that cannot start as a value, with the reason, and rejects `started`', async () => {
    const proc = host.spawn(['/nonexistent/agent-binary'], { cwd: dir, env });
    await expect(proc.started).rejects.toThrow(/ENOENT/);
    const exit = await proc.exited;
    expect(exit).toMatchObject({ code: null, signal: null, errorCode: 'ENOENT' });
    expect(await proc.closed).toEqual(exit);
    expect(proc.pid).toBeNull();
  });

  it.runIf(process.platform === 'linux')('leads its own process group: kill ends what it started too', async () => {
    // The child leaves a grandchild running in the background, then waits.
    const proc = host.spawn(['/bin/sh', '-c', 'sleep 300 & echo started; wait'], { cwd: dir, env, stdin: 'ignore' });
    await proc.started;
    const pgid = proc.pid!;
    const out = textOf(proc.stdout);
    await until(() => groupRunning(pgid), 10_000, 'the group to run');
    await until(() => processes().filter((p) => p.pgrp === pgid).length >= 2, 10_000, 'the grandchild to start');
    proc.kill('SIGTERM');
    const exit = await proc.closed;
    expect(exit.signal).toBe('SIGTERM');
    expect(await out).toBe('started\n');
    await until(() => !groupRunning(pgid), 10_000, 'the whole group to end');
  });

  it.runIf(process.platform === 'linux')('signals the group even after its leader exited (a grandchild kept alive)', async () => {
    const proc = host.spawn(['/bin/sh', '-c', 'sleep 300 >/dev/null 2>&1 & exit 0'], { cwd: dir, env, stdin: 'ignore' });
    await proc.started;
    const pgid = proc.pid!;
    expect((await proc.exited).code).toBe(0);
    expect(groupRunning(pgid)).toBe(true);
    proc.dispose();
    await until(() => !groupRunning(pgid), 10_000, 'the leftover grandchild to end');
  });
});

describe('LocalHost.openPty', () => {
  it('runs a command in a real pseudo-terminal, takes input, resizes and reports the exit', async () => {
    const pty = host.openPty(['/bin/sh', '-c', 'test -t 0 && echo "tty:yes"; read line; echo "got:$line"; stty size; exit 4'], { cwd: dir, env, cols: 80, rows: 24 });
    let out = '';
    const sub = pty.onData((d) => (out += d));
    await until(() => out.includes('tty:yes'), 10_000, 'the tty check');
    pty.resize(100, 30);
    pty.write('typed\r');
    expect(await pty.exited).toEqual({ exitCode: 4, signal: null });
    expect(out).toContain('got:typed');
    expect(out).toContain('30 100');
    void sub.dispose();
    await pty.dispose();
  });

  it('hangs up an interactive shell and ends its session on dispose', async () => {
    const pty = host.openPty(['/bin/sh', '-i'], { cwd: dir, env: { ...env, PS1: '$ ' }, cols: 80, rows: 24 });
    let out = '';
    pty.onData((d) => (out += d));
    await until(() => out.includes('$ '), 10_000, 'the prompt');
    pty.write('sleep 300\r');
    await until(() => sessionMembers(pty.pid) >= 2, 10_000, 'the job to start');
    await pty.dispose();
    expect(await pty.exited).toEqual({ exitCode: null, signal: 1 });
    expect(sessionMembers(pty.pid)).toBe(0);
  });
});

describe('LocalHost.git', () => {
  it('runs the real git with input, and gives a failure as its exit code and message', async () => {
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    expect((await host.git(['init', '-q'], { cwd: repo })).code).toBe(0);
    const blob = await host.git(['hash-object', '--stdin'], { cwd: repo, input: 'hello\n' });
    expect(blob.stdout.toString().trim()).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
    const bad = await host.git(['rev-parse', 'no-such-ref'], { cwd: repo });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/no-such-ref/);
  });

  it('refuses more output than maxBuffer', async () => {
    const repo = join(dir, 'repo-big');
    mkdirSync(repo);
    await host.git(['init', '-q'], { cwd: repo });
    await expect(host.git(['hash-object', '--stdin', '--no-filters'], { cwd: repo, input: 'x', maxBuffer: 8 })).rejects.toThrow(/more than 8 bytes/);
  });
});

describe('LocalHost.files', () => {
  it('refuses a symlink out of the roots, for reading and writing, and leaves the outside alone', async () => {
    const work = join(dir, 'files-work');
    const outside = join(dir, 'files-outside');
    mkdirSync(work);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET');
    symlinkSync(join(outside, 'secret.txt'), join(work, 'link.txt'));
    symlinkSync(outside, join(work, 'out'));
    const files = await host.files([work]);
    expect((await refusal(files.readFile(join(work, 'link.txt'), { maxBytes: 1024 }))).reason).toBe('outside');
    expect((await refusal(files.writeFile(join(work, 'out', 'new.txt'), 'x'))).reason).toBe('outside');
    expect((await refusal(files.listDir(join(work, 'out')))).reason).toBe('outside');
    expect((await refusal(files.stat(join(work, 'out', 'secret.txt')))).reason).toBe('outside');
    expect(execFileSync('ls', [outside], { encoding: 'utf8' }).trim()).toBe('secret.txt');
    // Inside the roots all works.
    await files.writeFile(join(work, 'sub', 'a.txt'), 'inside', { createParents: true });
    expect((await files.readFile(join(work, 'sub', 'a.txt'), { maxBytes: 1024 })).data.toString()).toBe('inside');
    expect(await files.stat(join(work, 'sub', 'a.txt'))).toMatchObject({ kind: 'file', size: 6 });
    expect((await files.listDir(join(work, 'sub'))).map((e) => [e.name, e.kind])).toEqual([['a.txt', 'file']]);
    expect((await files.listDir(work)).find((e) => e.name === 'out')?.kind).toBe('symlink');
  });
});

describe('LocalHost.listFiles', () => {
  it('lists files and links within the limits, skipping the named folders and never entering a linked folder', async () => {
    const root = join(dir, 'list');
    mkdirSync(join(root, 'src', 'deep'), { recursive: true });
    mkdirSync(join(root, 'node_modules', 'pkg'), { recursive: true });
    writeFileSync(join(root, 'README.md'), '');
    writeFileSync(join(root, 'src', 'a.ts'), '');
    writeFileSync(join(root, 'src', 'deep', 'b.ts'), '');
    writeFileSync(join(root, 'node_modules', 'pkg', 'index.js'), '');
    symlinkSync(join(root, 'src'), join(root, 'src-link'));
    const all = await host.listFiles(root, { skipDirs: new Set(['node_modules']), maxFiles: 100, maxDepth: 10 });
    expect(all.files.sort()).toEqual(['README.md', 'src-link', 'src/a.ts', 'src/deep/b.ts']);
    expect(all.truncated).toBe(false);
    const shallow = await host.listFiles(root, { skipDirs: new Set(['node_modules']), maxFiles: 100, maxDepth: 1 });
    expect(shallow.files.sort()).toEqual(['README.md', 'src-link', 'src/a.ts']);
    expect(shallow.truncated).toBe(true);
    const few = await host.listFiles(root, { maxFiles: 2, maxDepth: 10 });
    expect(few.files).toHaveLength(2);
    expect(few.truncated).toBe(true);
  });
});

describe('LocalHost.watch', () => {
  it('sees a file created and changed under the folder, and nothing once disposed', async () => {
    const root = join(dir, 'watched');
    mkdirSync(join(root, 'sub'), { recursive: true });
    const events: WatchEvent[] = [];
    const watch = await host.watch(root, (e) => events.push(e), { ignore: ['ignored'] });
    const changed = () => events.flatMap((e) => (e.kind === 'changes' ? e.changes.map((c) => c.path) : []));
    mkdirSync(join(root, 'ignored'));
    writeFileSync(join(root, 'ignored', 'x.txt'), 'x');
    writeFileSync(join(root, 'sub', 'new.txt'), 'one');
    await until(() => changed().includes(join(root, 'sub', 'new.txt')), 10_000, 'the watcher to see the new file');
    expect(changed().some((p) => p.startsWith(join(root, 'ignored')))).toBe(false);
    await watch.dispose();
    const seen = events.length;
    writeFileSync(join(root, 'sub', 'after.txt'), 'two');
    await new Promise((r) => setTimeout(r, 300));
    expect(events.length).toBe(seen);
  });

  it('reports every change to a watch started as another of the same folder stops (a session closed, then a turn there)', async () => {
    const root = join(dir, 'rewatched');
    mkdirSync(root);
    const options = { ignore: ['.git'] };
    let current = await host.watch(root, () => undefined, options);
    for (let round = 0; round < 20; round++) {
      // Not awaited, as the app stops a watch; the new one starts at once.
      void current.dispose();
      const seen: string[] = [];
      current = await host.watch(root, (e) => seen.push(...(e.kind === 'changes' ? e.changes.map((c) => c.path) : [])), options);
      const file = join(root, `round-${round}.txt`);
      writeFileSync(file, 'x');
      await until(() => seen.includes(file), 10_000, `round ${round}: the new watch to report ${file}`);
    }
    // Another watch of the folder with the same options (shared inside @parcel/watcher), stopped: the one left
    // keeps reporting.
    const other = await host.watch(root, () => undefined, options);
    await other.dispose();
    const seen: string[] = [];
    const last = await host.watch(root, (e) => seen.push(...(e.kind === 'changes' ? e.changes.map((c) => c.path) : [])), options);
    const again = await host.watch(root, () => undefined, options);
    await again.dispose();
    await current.dispose();
    writeFileSync(join(root, 'last.txt'), 'x');
    await until(() => seen.includes(join(root, 'last.txt')), 10_000, 'the watch left to report last.txt');
    await last.dispose();
  });

  it('asks for a rescan when the watched folder itself goes away', async () => {
    const root = join(dir, 'vanishing');
    mkdirSync(root);
    const events: WatchEvent[] = [];
    const watch = await host.watch(root, (e) => events.push(e));
    rmSync(root, { recursive: true });
    await until(() => events.some((e) => e.kind === 'rescan'), 10_000, 'a rescan');
    await watch.dispose();
  });

  it('ends a watch cleanly while its folder is being removed (a dispose never rejects)', async () => {
    // The race is narrow: each round removes a tree of folders while the watch is disposed.
    for (let i = 0; i < 40; i++) {
      const root = join(dir, `going-${i}`);
      for (let d = 0; d < 20; d++) {
        mkdirSync(join(root, `p${d}`, 'q'), { recursive: true });
        writeFileSync(join(root, `p${d}`, 'q', 'f.jsonl'), 'x\n');
      }
      const watch = await host.watch(root, () => undefined);
      const removed = rm(root, { recursive: true });
      if (i % 2) await new Promise((r) => setTimeout(r, i % 7));
      await expect(Promise.resolve(watch.dispose())).resolves.toBeUndefined();
      await removed;
    }
  });

  it('rejects a folder that does not exist', async () => {
    await expect(host.watch(join(dir, 'missing'), () => undefined)).rejects.toThrow();
  });
});
