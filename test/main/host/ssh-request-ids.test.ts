/**
 * Requests to an SSH host across a dropped connection (a real sshd, test/support/sshd.ts): the helper's
 * daemon on the host goes on with what the old connection asked; its late answers must never answer a
 * request of the new connection (request ids of each connection start again).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../../src/main/core/host/host';
import { SshHost, type SshHostState } from '../../../src/main/core/host/ssh/ssh-host';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';

const skip = sshdSkipReason();
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

  const make = (instance = randomBytes(6).toString('hex')): SshHost => {
    const h = new SshHost({ id: `ids-${randomBytes(3).toString('hex')}`, destination: sshd.alias, configFile: sshd.configFile, runtimeDir: join(dir, `rt-${randomBytes(3).toString('hex')}`), instance });
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
  /** A git call on the host that says it started (a marker) and prints `word` once `gate` exists. */
  const gated = (h: SshHost, word: string, gate: string) =>
    h.git(['-c', `alias.gated=!touch ${dir}/${word}; while [ ! -e ${dir}/${gate} ]; do sleep 0.05; done; echo ${word}`, 'gated']).then(
      (r) => r.stdout.toString('utf8').trim(),
      (e: unknown) => `error: ${e instanceof Error ? e.message : String(e)}`,
    );
  const started = (words: string[]) => expect.poll(() => words.every((w) => existsSync(join(dir, w))), { timeout: 20_000 }).toBe(true);

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
    const barrier = await h.git(['-c', `alias.barrier=!while pgrep -f '[o]ld${tag}-' >/dev/null; do sleep 0.05; done; echo barrier`, 'barrier']);
    expect(barrier.stdout.toString().trim()).toBe('barrier');
    expect(settled).toEqual([]);

    writeFileSync(join(dir, `go-new${tag}`), '');
    expect(await Promise.all(fresh)).toEqual(newWords);
  }, 90_000);
});
