import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostAgentsHelper, hostAgentsRoot, type HostProbe } from '../../../src/main/core/registry/host-unpack';
import { makeTarGz } from './helpers/archives';

/** The helper's side of a binary agent's install on an SSH host, run here on a temporary home (as the helper runs it there). */
describe("a binary agent unpacked by the host's helper", () => {
  let home: string;
  let call: (c: unknown) => Promise<unknown>;
  const archive = makeTarGz([{ name: 'bin/agent', content: '#!/bin/sh\necho hi\n', mode: 0o644 }]);
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const upload = async (token: string, bytes: Buffer): Promise<void> => {
    const { staging } = (await call({ op: 'probe', registryId: 'toy', version: '1.0.0' })) as HostProbe;
    mkdirSync(join(staging, token), { recursive: true });
    writeFileSync(join(staging, token, 'download'), bytes);
  };

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'sb-host-home-'));
    call = hostAgentsHelper(home);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('unpacks the upload whose SHA-256 is the download\'s into its version folder, its program executable, and finds it there next time', async () => {
    expect(await call({ op: 'probe', registryId: 'toy', version: '1.0.0' })).toMatchObject({ platform: process.platform, arch: process.arch, program: null });
    await upload('0123456789abcdef', archive);
    const { program } = (await call({ op: 'unpack', registryId: 'toy', version: '1.0.0', token: '0123456789abcdef', sha256: sha(archive), cmd: './bin/agent' })) as { program: string };
    expect(program).toBe(join(hostAgentsRoot(home), 'toy', '1.0.0', 'bin', 'agent'));
    expect(statSync(program).mode & 0o111).toBe(0o111);
    expect(await call({ op: 'probe', registryId: 'toy', version: '1.0.0' })).toMatchObject({ program });
    expect(readdirSync(join(hostAgentsRoot(home), '.staging'))).toEqual([]);
  });

  it('refuses an upload whose bytes are not the download\'s, keeping nothing', async () => {
    const damaged = Buffer.from(archive);
    damaged[damaged.length - 20]! ^= 0xff;
    await upload('fedcba9876543210', damaged);
    await expect(call({ op: 'unpack', registryId: 'toy', version: '1.0.0', token: 'fedcba9876543210', sha256: sha(archive), cmd: './bin/agent' })).rejects.toThrow(/arrived on the host damaged/);
    expect(existsSync(join(hostAgentsRoot(home), 'toy'))).toBe(false);
    expect(readdirSync(join(hostAgentsRoot(home), '.staging'))).toEqual([]);
  });

  it('refuses names that would lead outside its folder', async () => {
    for (const bad of [{ registryId: '../x', version: '1' }, { registryId: 'toy', version: '..' }, { registryId: 'a/b', version: '1' }, { registryId: 'toy', version: '1', token: '../../etc', op: 'unpack', sha256: 'x', cmd: 'a' }]) {
      await expect(call({ op: 'probe', ...bad })).rejects.toThrow(/unusable|without its upload/);
    }
  });
});
