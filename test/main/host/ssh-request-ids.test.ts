/**
 * Requests to an SSH host across a dropped connection (a real sshd, test/support/sshd.ts): the helper's
 * daemon on the host goes on with what the old connection asked; its late answers must never answer a
 * request of the new connection (request ids of each connection start again).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../../src/main/core/host/host';
import { SshHost, type SshHostState } from '../../../src/main/core/host/ssh/ssh-host';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';

const skip = sshdSkipReason();
const repoRoot = resolve(__dirname, '../../..');
if (skip) console.warn(`skipping the SSH request id tests: ${skip}`);

describe.skipIf(skip !== null)('answers of the host after a dropped connection', () => {
  let sshd: Sshd;
  let dir: string;
  const hosts: SshHost[] = [];

  beforeAll(async () => {
    sshd = await startSshd();
    // Markers both sides see (the host is this machine, as another user).
    dir = mkdtempSync(join(tmpdir(), 'sb-ids-'));
    chmodSync(dir, 0o777);
  });
  afterAll(async () => {
    for (const h of hosts) await h.dispose();
    await sshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const make = (instance = randomBytes(6).toString('hex'), id = `ids-${randomBytes(3).toString('hex')}`, runtimeDir = join(dir, `rt-${randomBytes(3).toString('hex')}`)): SshHost => {
    const h = new SshHost({ id, destination: sshd.alias, configFile: sshd.configFile, runtimeDir, instance });
    hosts.push(h);
    return h;
  };
  const connected = (h: SshHost): Promise<void> =>
    new Promise((resolve) => {
      const sub = h.onState((s: SshHostState) => {
        if (s.kind !== 'connected') return;
        sub.dispose();
        resolve();
      });
    });
  /** A git alias that says it started (a marker) and prints `word` once `gate` exists. */
  const gatedAlias = (word: string, gate: string) => `alias.gated=!touch ${dir}/${word}; while [ ! -e ${dir}/${gate} ]; do sleep 0.05; done; echo ${word}`;
  const gated = (h: SshHost, word: string, gate: string) =>
    h.git(['-c', gatedAlias(word, gate), 'gated']).then(
      (r) => r.stdout.toString('utf8').trim(),
      (e: unknown) => `error: ${e instanceof Error ? e.message : String(e)}`,
    );
  const started = (words: string[]) => expect.poll(() => words.every((w) => existsSync(join(dir, w))), { timeout: 20_000 }).toBe(true);
  /** Resolves once every git call whose command line has `word` has ended on the host (a call that waits for them). */
  const noneRuns = async (h: SshHost, word: string) => {
    const r = await h.git(['-c', `alias.barrier=!while pgrep -f '[${word[0]}]${word.slice(1)}' >/dev/null; do sleep 0.05; done; echo barrier`, 'barrier']);
    expect(r.stdout.toString().trim()).toBe('barrier');
  };

  // First in the file: this process's first requests have the ids the killed Switchboard's had.
  it('after Switchboard was killed and started again, the old one\'s git call and watch do not answer the new one', async () => {
    const tag = randomBytes(3).toString('hex');
    const instance = randomBytes(6).toString('hex');
    const runtimeDir = join(dir, `rt-${tag}`);
    const watchedBefore = join(dir, `before-${tag}`);
    const watchedNow = join(dir, `now-${tag}`);
    for (const d of [watchedBefore, watchedNow]) {
      mkdirSync(d);
      chmodSync(d, 0o777);
    }
    const first = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/fixtures/ssh-connect/ask-and-wait.ts'), sshd.configFile, sshd.alias, runtimeDir, instance, gatedAlias(`old${tag}`, `go-old${tag}`), watchedBefore], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let said = '';
    first.stdout.on('data', (b: Buffer) => (said += b.toString('utf8')));
    await expect.poll(() => said, { timeout: 30_000 }).toMatch(/READY|FAILED/);
    expect(said).toMatch(/READY/);
    await started([`old${tag}`]);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    // Switchboard again, the same instance: the same requests, in the same order, have the same ids.
    const h = make(instance, `ssh:${sshd.alias}`, runtimeDir);
    expect((await h.connect()).ok).toBe(true);
    let settled = false;
    const fresh = gated(h, `new${tag}`, `go-new${tag}`).finally(() => (settled = true));
    const seen: string[] = [];
    const watch = await h.watch(watchedNow, (ev: WatchEvent) => {
      if (ev.kind === 'changes') for (const c of ev.changes) seen.push(c.path);
    });
    await started([`new${tag}`]);

    writeFileSync(join(dir, `go-old${tag}`), '');
    await noneRuns(h, `old${tag}`);
    expect(settled).toBe(false);
    // A change in the folder the killed Switchboard watched, then one in the folder watched now.
    writeFileSync(join(watchedBefore, 'old.txt'), 'x');
    writeFileSync(join(watchedNow, 'new.txt'), 'x');
    await expect.poll(() => seen.some((p) => p.endsWith('new.txt')), { timeout: 20_000 }).toBe(true);
    expect(seen.filter((p) => !p.startsWith(watchedNow))).toEqual([]);
    await watch.dispose();

    writeFileSync(join(dir, `go-new${tag}`), '');
    expect(await fresh).toBe(`new${tag}`);
  }, 90_000);

  it('a git call of the old connection that ends after the reconnect does not answer the new one', async () => {
    const tag = randomBytes(3).toString('hex');
    const h = make();
    expect((await h.connect()).ok).toBe(true);
    const oldWords = [1, 2, 3].map((i) => `old${tag}-${i}`);
    const old = oldWords.map((w) => gated(h, w, `go-old${tag}`));
    await started(oldWords);

    const back = connected(h);
    process.kill((await h.masterPid())!, 'SIGKILL');
    // What was asked on the lost connection fails, in words (the caller may ask again).
    for (const r of await Promise.all(old)) expect(r).toMatch(/^error: the connection to .* was lost/);
    await back;

    const newWords = [1, 2, 3].map((i) => `new${tag}-${i}`);
    const settled: string[] = [];
    const fresh = newWords.map((w) => gated(h, w, `go-new${tag}`).then((r) => (settled.push(r), r)));
    await started(newWords);
    // The old calls end on the host now; the new ones still wait. A call that waits until no old one runs
    // comes after their answers.
    writeFileSync(join(dir, `go-old${tag}`), '');
    await noneRuns(h, `old${tag}-`);
    expect(settled).toEqual([]);

    writeFileSync(join(dir, `go-new${tag}`), '');
    expect(await Promise.all(fresh)).toEqual(newWords);
  }, 90_000);
});
