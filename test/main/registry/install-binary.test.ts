import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registryAgentId } from '../../../src/shared/contract/registry';
import { platformKeys } from '../../../src/main/core/registry/validate';
import { makeTarGz, makeZip, type Member } from './helpers/archives';
import { TestServer } from './helpers/server';
import { createHarness, registryDoc, type Harness } from './helpers/setup';

const script = (version: string): Member[] => [
  { name: 'bin/', type: 'dir' },
  // Not executable in the archive: the installer must chmod +x the declared cmd.
  { name: 'bin/agent', content: `#!/bin/sh\necho "agent ${version} args=$* greeting=$GREETING"\n`, mode: 0o644 },
  { name: 'README', content: 'hello' },
];

/** A registry entry whose archive for every platform is `archivePath` on the test server. */
function binaryEntry(server: TestServer, version: string, archivePath: string, cmd = './bin/agent') {
  return {
    id: 'toy-agent',
    name: 'Toy Agent',
    version,
    description: 'A test agent',
    license: 'MIT',
    icon: 'toy-agent.svg',
    distribution: {
      binary: Object.fromEntries(
        platformKeys.map((k) => [k, { archive: server.url(archivePath), cmd, args: ['--acp', 'v'], env: { GREETING: 'hi' } }]),
      ),
    },
  };
}

let server: TestServer;
let h: Harness;

beforeEach(async () => {
  server = await new TestServer().start();
  h = await createHarness({ registryUrl: server.url('/registry.json') });
});

afterEach(async () => {
  await h.close();
  await server.close();
});

const publish = (...entries: unknown[]) => server.serve('/registry.json', registryDoc(entries), { type: 'application/json' });

/** Nothing of the agent on disk, no staging leftovers, no agents row. */
function expectNothingInstalled(): void {
  expect(h.agentFiles().filter((p) => !/^\.staging$/.test(p))).toEqual([]);
  expect(h.agents().get(registryAgentId('toy-agent'))).toBeUndefined();
}

const run = (command: string, args: string[], env: Record<string, string>) =>
  execFileSync(command, args, { env: { ...process.env, ...env }, encoding: 'utf8' }).trim();

describe('binary installs from the registry', () => {
  it('installs, runs, updates (keeping the previous), rolls back and uninstalls', async () => {
    server.serve('/toy-1.tar.gz', makeTarGz(script('1.0.0')));
    server.serve('/toy-2.zip', makeZip(script('2.0.0')));
    publish(binaryEntry(server, '1.0.0', '/toy-1.tar.gz'));

    const listed = await h.call('registry.list', {});
    const entry = listed.entries.find((e) => e.id === 'toy-agent')!;
    expect(entry).toMatchObject({ installKind: 'binary', installed: null, updateAvailable: false, distributions: ['binary'] });

    const res = await h.call('registry.install', { registryId: 'toy-agent' });
    expect(res.status).toBe('installed');
    if (res.status !== 'installed') return;
    expect(res.agent).toMatchObject({ version: '1.0.0', kind: 'binary', previousVersion: null, problem: null });

    // The agents row the session picker lists.
    const row = h.agents().get(registryAgentId('toy-agent'))!;
    expect(row).toMatchObject({ source: 'registry', registryId: 'toy-agent', version: '1.0.0', name: 'Toy Agent', args: ['--acp', 'v'], env: { GREETING: 'hi' } });
    expect(row.command).toBe(join(h.dataDir, 'agents', 'toy-agent', '1.0.0', 'bin', 'agent'));
    expect(statSync(row.command).mode & 0o100).not.toBe(0);
    expect(run(row.command, row.args, row.env)).toBe('agent 1.0.0 args=--acp v greeting=hi');

    // Progress: bytes of the download, then the later steps, ending with done.
    const steps = h.progress('toy-agent').map((p) => p.step);
    expect(steps[0]).toBe('preparing');
    expect(steps).toContain('downloading');
    expect(steps.indexOf('extracting')).toBeGreaterThan(steps.indexOf('downloading'));
    expect(steps.at(-1)).toBe('done');
    const lastBytes = h.progress('toy-agent').filter((p) => p.step === 'downloading').at(-1)!;
    expect(lastBytes.bytesDone).toBeGreaterThan(0);
    expect(lastBytes.bytesDone).toBe(lastBytes.bytesTotal);
    expect(h.events.some((e) => e.name === 'registry.changed' && (e.payload as { reason: string }).reason === 'installed')).toBe(true);

    // Overrides survive the update.
    await h.call('registry.setOverrides', { registryId: 'toy-agent', args: ['--custom'], env: { GREETING: 'hello', EXTRA: '1' } });
    expect(run(h.agents().get(registryAgentId('toy-agent'))!.command, h.agents().get(registryAgentId('toy-agent'))!.args, h.agents().get(registryAgentId('toy-agent'))!.env)).toBe(
      'agent 1.0.0 args=--custom greeting=hello',
    );

    // A newer version in the registry (as a zip this time).
    publish(binaryEntry(server, '2.0.0', '/toy-2.zip'));
    const refreshed = await h.call('registry.refresh', {});
    expect(refreshed.entries[0]).toMatchObject({ updateAvailable: true, installed: { version: '1.0.0', latestVersion: '2.0.0' } });
    const upd = await h.call('registry.update', { registryId: 'toy-agent' });
    expect(upd.status === 'installed' && upd.agent).toMatchObject({ version: '2.0.0', previousVersion: '1.0.0', overrides: { args: ['--custom'] } });
    const row2 = h.agents().get(registryAgentId('toy-agent'))!;
    expect(row2.version).toBe('2.0.0');
    expect(run(row2.command, row2.args, row2.env)).toBe('agent 2.0.0 args=--custom greeting=hello');
    expect(existsSync(join(h.dataDir, 'agents', 'toy-agent', '1.0.0', 'bin', 'agent'))).toBe(true);
    expect((await h.fail('registry.update', { registryId: 'toy-agent' })).message).toMatch(/already the registry's version/);

    // Rollback to 1.0.0: the row points there again; 2.0.0 stays for rolling forward.
    const rb = await h.call('registry.rollback', { registryId: 'toy-agent' });
    expect(rb.agent).toMatchObject({ version: '1.0.0', previousVersion: '2.0.0', updateAvailable: true });
    const row3 = h.agents().get(registryAgentId('toy-agent'))!;
    expect(run(row3.command, row3.args, row3.env)).toBe('agent 1.0.0 args=--custom greeting=hello');
    // Rolling forward reuses the kept install (no new download).
    const downloadsBefore = server.requestsFor('/toy-2.zip');
    const fwd = await h.call('registry.update', { registryId: 'toy-agent' });
    expect(fwd.status === 'installed' && fwd.agent.version).toBe('2.0.0');
    expect(server.requestsFor('/toy-2.zip')).toBe(downloadsBefore);

    // Clearing the overrides brings back the registry's args and env.
    await h.call('registry.setOverrides', { registryId: 'toy-agent', args: null, env: {} });
    const row4 = h.agents().get(registryAgentId('toy-agent'))!;
    expect(run(row4.command, row4.args, row4.env)).toBe('agent 2.0.0 args=--acp v greeting=hi');

    expect(await h.call('registry.uninstall', { registryId: 'toy-agent' })).toEqual({ removed: true });
    expectNothingInstalled();
    expect((await h.call('registry.list', {})).installed).toEqual([]);
    expect((await h.fail('registry.rollback', { registryId: 'toy-agent' })).code).toBe('not_found');
  });

  it('finds the command inside an archive wrapped in a single folder', async () => {
    server.serve('/wrapped.zip', makeZip(script('1.0.0').map((m) => ({ ...m, name: `toy-1.0.0/${m.name}` }))));
    publish(binaryEntry(server, '1.0.0', '/wrapped.zip'));
    await h.call('registry.install', { registryId: 'toy-agent' });
    const row = h.agents().get(registryAgentId('toy-agent'))!;
    expect(row.command).toBe(join(h.dataDir, 'agents', 'toy-agent', '1.0.0', 'toy-1.0.0', 'bin', 'agent'));
    expect(run(row.command, row.args, row.env)).toBe('agent 1.0.0 args=--acp v greeting=hi');
  });

  it('keeps only the current and the previous version', async () => {
    for (const v of ['1.0.0', '2.0.0', '3.0.0']) server.serve(`/toy-${v}.tgz`, makeTarGz(script(v)));
    publish(binaryEntry(server, '1.0.0', '/toy-1.0.0.tgz'));
    await h.call('registry.install', { registryId: 'toy-agent' });
    for (const v of ['2.0.0', '3.0.0']) {
      publish(binaryEntry(server, v, `/toy-${v}.tgz`));
      await h.call('registry.refresh', {});
      await h.call('registry.update', { registryId: 'toy-agent' });
    }
    const versions = h.agentFiles().filter((p) => /^toy-agent\/[^/]+$/.test(p));
    expect(versions.sort()).toEqual(['toy-agent/2.0.0', 'toy-agent/3.0.0']);
  });

  it.each([
    ['path escape', [{ name: '../escape.txt', content: 'x' }, ...script('1.0.0')], /escapes the target folder/],
    ['absolute path', [{ name: '/tmp/sb-absolute-evil', content: 'x' }, ...script('1.0.0')], /absolute path/],
    ['symlink escape', [...script('1.0.0'), { name: 'lib', type: 'symlink', target: '../../..' }], /points outside/],
    ['hardlink escape', [...script('1.0.0'), { name: 'hl', type: 'hardlink', target: '../../x' }], /points outside/],
    ['device file', [...script('1.0.0'), { name: 'dev', type: 'chardev' }], /device/],
    ['missing cmd', [{ name: 'other/agent', content: '#!/bin/sh\n' }], /command "\.\/bin\/agent" that the registry names is not in the archive/],
  ] as Array<[string, Member[], RegExp]>)('refuses a hostile archive (%s) and leaves nothing behind', async (_name, members, reason) => {
    server.serve('/bad.tgz', makeTarGz(members));
    publish(binaryEntry(server, '1.0.0', '/bad.tgz'));
    const err = await h.fail('registry.install', { registryId: 'toy-agent' });
    expect(err.code).toBe('agent_error');
    expect(err.message).toMatch(reason);
    expect(h.progress('toy-agent').at(-1)).toMatchObject({ step: 'failed', message: err.message });
    expectNothingInstalled();
    expect(existsSync('/tmp/sb-absolute-evil')).toBe(false);
  });

  it('refuses oversized archives and ones with too many files', async () => {
    await h.restart({ limits: { maxBytes: 100_000, maxEntries: 20 } });
    server.serve('/big.tgz', makeTarGz([...script('1.0.0'), { name: 'blob', content: Buffer.alloc(200_000) }]));
    publish(binaryEntry(server, '1.0.0', '/big.tgz'));
    expect((await h.fail('registry.install', { registryId: 'toy-agent' })).message).toMatch(/unpacks to more than 100000 bytes/);
    server.serve('/many.zip', makeZip([...script('1.0.0'), ...Array.from({ length: 30 }, (_, i) => ({ name: `f/${i}`, content: 'x' }))]));
    publish(binaryEntry(server, '1.0.0', '/many.zip'));
    await h.call('registry.refresh', {});
    expect((await h.fail('registry.install', { registryId: 'toy-agent' })).message).toMatch(/more than 20 entries/);
    expectNothingInstalled();
  });

  it('refuses a truncated archive', async () => {
    const full = makeTarGz([...script('1.0.0'), { name: 'blob', content: Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7) % 256)) }]);
    server.serve('/cut.tgz', full.subarray(0, Math.floor(full.length * 0.6)));
    publish(binaryEntry(server, '1.0.0', '/cut.tgz'));
    expect((await h.fail('registry.install', { registryId: 'toy-agent' })).message).toMatch(/damaged or incomplete/);
    expectNothingInstalled();
  });

  it('reports 404, timeout and connection reset clearly; a retry then works', async () => {
    await h.restart({ downloadIdleTimeoutMs: 1500 });
    const good = makeTarGz(script('1.0.0'));
    publish(binaryEntry(server, '1.0.0', '/toy.tgz'));

    const notFound = await h.fail('registry.install', { registryId: 'toy-agent' });
    expect(notFound).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/\/toy\.tgz answered 404/) });
    expectNothingInstalled();

    server.hang('/toy.tgz');
    const timeout = await h.fail('registry.install', { registryId: 'toy-agent' });
    expect(timeout).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/timed out/) });
    expectNothingInstalled();

    server.reset('/toy.tgz', good);
    const reset = await h.fail('registry.install', { registryId: 'toy-agent' });
    expect(reset).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/broke off.*(reset|closed)/) });
    expectNothingInstalled();

    server.serve('/toy.tgz', good);
    const ok = await h.call('registry.install', { registryId: 'toy-agent' });
    expect(ok.status).toBe('installed');
  });

  it('cancelling mid-download leaves nothing', async () => {
    server.stall('/slow.tgz', Buffer.alloc(1_000_000, 1));
    publish(binaryEntry(server, '1.0.0', '/slow.tgz'));
    await h.call('registry.list', {});
    const pending = h.call('registry.install', { registryId: 'toy-agent' });
    await expect.poll(() => h.progress('toy-agent').some((p) => p.step === 'downloading' && (p.bytesDone ?? 0) > 0), { timeout: 20_000 }).toBe(true);
    const listed = await h.call('registry.list', {});
    expect(listed.entries[0]!.progress).toMatchObject({ step: 'downloading', bytesTotal: 1_000_000 });
    // While it runs, a second install or an uninstall is refused.
    expect((await h.fail('registry.install', { registryId: 'toy-agent' })).code).toBe('conflict');
    expect(await h.call('registry.cancelInstall', { registryId: 'toy-agent' })).toEqual({ cancelled: true });
    expect(await pending).toEqual({ status: 'cancelled' });
    expect(h.progress('toy-agent').at(-1)!.step).toBe('cancelled');
    expectNothingInstalled();
    expect(await h.call('registry.cancelInstall', { registryId: 'toy-agent' })).toEqual({ cancelled: false });
  });

  it('removes stale staging folders of an interrupted install at start-up', async () => {
    const stale = join(h.dataDir, 'agents', '.staging', 'toy-agent-1.0.0-deadbeef', 'out');
    mkdirSync(stale, { recursive: true });
    writeFileSync(join(stale, 'half-written'), 'x');
    await h.restart();
    expect(h.agentFiles()).toEqual([]);
  });

  it('an entry without a build for this machine is listed as not installable', async () => {
    const entry = binaryEntry(server, '1.0.0', '/x.tgz');
    entry.distribution.binary = { 'windows-aarch64': entry.distribution.binary['windows-aarch64']! } as typeof entry.distribution.binary;
    publish(entry);
    const listed = await h.call('registry.list', {});
    expect(listed.entries[0]).toMatchObject({ installKind: null, unavailableReason: expect.stringMatching(/no build for this machine/) });
    expect((await h.fail('registry.install', { registryId: 'toy-agent' })).code).toBe('unavailable');
  });

  it('installed agents are listed even when the registry drops them, and can be removed', async () => {
    server.serve('/toy.tgz', makeTarGz(script('1.0.0')));
    publish(binaryEntry(server, '1.0.0', '/toy.tgz'));
    await h.call('registry.install', { registryId: 'toy-agent' });
    publish();
    const listed = await h.call('registry.refresh', {});
    expect(listed.entries).toEqual([]);
    expect(listed.installed).toMatchObject([{ registryId: 'toy-agent', inRegistry: false, updateAvailable: false }]);
    expect(await h.call('registry.uninstall', { registryId: 'toy-agent' })).toEqual({ removed: true });
    expectNothingInstalled();
  });
});
