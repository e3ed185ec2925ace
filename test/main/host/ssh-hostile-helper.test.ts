/**
 * A broken or hostile helper on the host (test/fixtures/hostile-helper, run by the host's "node" in place of
 * Switchboard's helper) over a real sshd: Connect ends, in words, within its time limit; it never hangs.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SshHost } from '../../../src/main/core/host/ssh/ssh-host';
import { sshdSkipReason, startSshd, type Sshd } from '../../support/sshd';

const skip = sshdSkipReason();

describe.skipIf(skip !== null)('connecting to a host whose helper misbehaves', () => {
  let sshd: Sshd;
  let dir: string;
  const hosts: SshHost[] = [];

  beforeAll(async () => {
    sshd = await startSshd();
    // Readable by the host's test user: a "node" that runs the hostile helper in place of the real one.
    dir = mkdtempSync(join(tmpdir(), 'sb-hostile-'));
    chmodSync(dir, 0o755);
    copyFileSync(resolve(__dirname, '../../fixtures/hostile-helper/helper.cjs'), join(dir, 'helper.cjs'));
    chmodSync(join(dir, 'helper.cjs'), 0o644);
    for (const mode of ['silent', 'deep']) {
      writeFileSync(join(dir, `node-${mode}`), `#!/bin/sh\nif [ "$2" = proxy ]; then exec node ${join(dir, 'helper.cjs')} ${mode}; fi\nexec node "$@"\n`, { mode: 0o755 });
    }
  });
  afterAll(async () => {
    for (const h of hosts) await h.dispose();
    await sshd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const make = (mode: string): SshHost => {
    const h = new SshHost({
      id: `hostile-${mode}`,
      destination: sshd.alias,
      configFile: sshd.configFile,
      runtimeDir: join(dir, `rt-${mode}`),
      instance: randomBytes(6).toString('hex'),
      nodeCommand: join(dir, `node-${mode}`),
      helperTimeoutMs: 3000,
    });
    hosts.push(h);
    return h;
  };

  it('a helper that greets and never answers: Connect fails within its time limit, saying so', async () => {
    const host = make('silent');
    const started = Date.now();
    const r = await host.connect();
    expect(r.ok).toBe(false);
    expect(!r.ok && r.failure).toMatchObject({ reason: 'helper', message: expect.stringMatching(/did not answer within 3 s/) });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(host.state.kind).toBe('failed');
  }, 30_000);

  it('a helper whose answer is nested two million levels deep: a clear error, no overflow, no hang', async () => {
    const host = make('deep');
    const r = await host.connect();
    expect(r.ok).toBe(false);
    expect(!r.ok && r.failure).toMatchObject({ reason: 'helper', message: expect.stringMatching(/nested deeper than \d+ levels/) });
  }, 30_000);
});
