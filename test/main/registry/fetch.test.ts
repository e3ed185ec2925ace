import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppCore } from '../../../src/main/app-core';
import { downloadTo } from '../../../src/main/core/registry/http';
import { TestServer } from './helpers/server';
import { createHarness, type Harness } from './helpers/setup';

const fixtures = join(__dirname, '../../fixtures/registry');
const offline = readFileSync(join(fixtures, 'registry.offline.json'), 'utf8');
const dist = readFileSync(join(fixtures, 'registry.dist.json'), 'utf8');

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

describe('fetching the registry', () => {
  it('fetches, then revalidates with the ETag (304 keeps the copy)', async () => {
    server.serve('/registry.json', offline, { etag: '"v1"', type: 'application/json' });
    const first = await h.call('registry.list', {});
    expect(first.source).toMatchObject({ origin: 'network', error: null, notModified: false, registryVersion: '1.0.0', dataUrl: server.url('/registry.json') });
    expect(first.entries.map((e) => e.id)).toEqual(['claude-acp', 'claude-code-acp', 'gemini', 'qwen-code', 'codex-acp', 'opencode']);
    expect(first.entries.find((e) => e.id === 'gemini')).toMatchObject({ installKind: 'npx', distributions: ['npx'], installed: null });
    expect(server.requests[0]!.headers['if-none-match']).toBeUndefined();

    const second = await h.call('registry.refresh', {});
    expect(server.requests[1]!.headers['if-none-match']).toBe('"v1"');
    expect(second.source).toMatchObject({ notModified: true, error: null, fetchedAt: first.source.fetchedAt });
    expect(second.entries).toHaveLength(6);
    expect(h.events.filter((e) => e.name === 'registry.changed')).toHaveLength(2);

    // A new ETag: a new body.
    server.serve('/registry.json', dist, { etag: '"v2"', type: 'application/json' });
    const third = await h.call('registry.refresh', {});
    expect(third.source.notModified).toBe(false);
    expect(third.entries).toHaveLength(11);
  });

  it('lists an invalid entry with its reason next to the valid ones', async () => {
    const doc = JSON.parse(offline) as { agents: Array<Record<string, unknown>> };
    doc.agents[2] = { ...doc.agents[2], distribution: { npx: { package: 'x', args: 'not-a-list' } } };
    server.serve('/registry.json', JSON.stringify(doc));
    const list = await h.call('registry.list', {});
    expect(list.entries).toHaveLength(5);
    expect(list.invalid).toEqual([{ index: 2, id: 'gemini', name: 'Gemini CLI', reasons: ['/distribution/npx/args must be array'] }]);
  });

  it('invalid JSON: keeps the previous good copy and reports the error', async () => {
    server.serve('/registry.json', offline);
    await h.call('registry.list', {});
    server.serve('/registry.json', '{"version": "1.0.0", "agents": [ {"id": ');
    const list = await h.call('registry.refresh', {});
    expect(list.source.error).toMatch(/is not valid JSON/);
    expect(list.source.origin).toBe('network');
    expect(list.entries).toHaveLength(6);
    // The copy on disk was not replaced: a restart without network still has it.
    await server.close();
    await h.restart();
    const later = await h.call('registry.list', {});
    expect(later.source).toMatchObject({ origin: 'cache', error: null, dataUrl: server.url('/registry.json') });
    expect(later.entries).toHaveLength(6);
  });

  it('404, timeout and connection reset: clear errors, previous copy kept, retry works', async () => {
    await h.restart({ fetchTimeoutMs: 1500 });
    server.serve('/registry.json', offline);
    await h.call('registry.list', {});

    server.routes.delete('/registry.json');
    const notFound = await h.call('registry.refresh', {});
    expect(notFound.source.error).toMatch(/registry\.json answered 404/);
    expect(notFound.entries).toHaveLength(6);

    server.hang('/registry.json');
    const timedOut = await h.call('registry.refresh', {});
    expect(timedOut.source.error).toMatch(/timed out/);
    expect(timedOut.entries).toHaveLength(6);

    server.reset('/registry.json', Buffer.from(dist));
    const reset = await h.call('registry.refresh', {});
    expect(reset.source.error).toMatch(/broke off.*(reset|closed)/);
    expect(reset.entries).toHaveLength(6);

    server.serve('/registry.json', dist);
    const ok = await h.call('registry.refresh', {});
    expect(ok.source.error).toBeNull();
    expect(ok.entries).toHaveLength(11);
  });

  it('with no copy at all and no network: an empty list with the reason', async () => {
    await server.close();
    const list = await h.call('registry.list', {});
    expect(list.source).toMatchObject({ origin: 'none', dataUrl: null, error: expect.stringMatching(/connection was refused/) });
    expect(list.entries).toEqual([]);
  });

  it('reads file: URLs and the registry.url setting (wired into AppCore)', async () => {
    const file = join(h.dataDir, 'my-registry.json');
    writeFileSync(file, dist);
    const core = new AppCore({ dataDir: h.dataDir + '-core', transport: 'browser', version: 'test' });
    try {
      const set = await core.router.invoke('settings.set', { key: 'registry.url', value: pathToFileURL(file).toString() });
      expect(set.ok).toBe(true);
      const r = await core.router.invoke('registry.list', {});
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      const value = r.value as { source: { url: string; error: string | null }; entries: unknown[] };
      expect(value.source.url).toBe(pathToFileURL(file).toString());
      expect(value.source.error).toBeNull();
      expect(value.entries).toHaveLength(11);

      // Other schemes are refused when set (the registry keeps reading the last good source).
      const bad = await core.router.invoke('settings.set', { key: 'registry.url', value: 'ftp://example.com/registry.json' });
      expect(!bad.ok && bad.error).toMatchObject({ code: 'invalid_params', message: expect.stringMatching(/must be http\(s\) or file:/) });
    } finally {
      await core.dispose();
      rmSync(h.dataDir + '-core', { recursive: true, force: true });
    }
  });

  it('serves icons sanitized, resolving relative icon paths against the registry URL, and keeps them offline', async () => {
    const doc = JSON.parse(offline) as { agents: Array<Record<string, unknown>> };
    doc.agents[0]!.icon = 'icons/claude.svg';
    server.serve('/registry.json', JSON.stringify(doc));
    server.serve(
      '/icons/claude.svg',
      '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" onload="alert(1)"><script>alert(1)</script><path d="M0 0h16v16z" fill="#f00"/></svg>',
      { type: 'image/svg+xml' },
    );
    const icon = await h.call('registry.icon', { registryId: 'claude-acp' });
    expect(icon).toEqual({
      svg: '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16" fill="currentColor"><path d="M0 0h16v16z" fill="currentColor"/></svg>',
      error: null,
    });
    const missing = await h.call('registry.icon', { registryId: 'gemini' });
    expect(missing.svg).toBeNull();
    expect(missing.error).toMatch(/could not be loaded/);
    // Offline, from the kept copy.
    await server.close();
    await h.restart();
    expect((await h.call('registry.icon', { registryId: 'claude-acp' })).svg).toBe(icon.svg);
    expect((await h.fail('registry.icon', { registryId: 'nope' })).code).toBe('not_found');
  });

  it('a local registry, its icon or an archive that is a FIFO is refused at once (a plain open would wait for a writer)', async () => {
    const dir = join(h.dataDir, 'fifo-registry');
    mkdirSync(dir);
    execFileSync('mkfifo', [join(dir, 'registry.json')]);
    const fifoHarness = await createHarness({ registryUrl: pathToFileURL(join(dir, 'registry.json')).toString() }, join(dir, 'data'));
    try {
      const list = await fifoHarness.call('registry.list', {});
      expect(list.source.error).toMatch(/named pipe, not a regular file/);
    } finally {
      await fifoHarness.close();
    }
    // A readable registry whose icon is a FIFO.
    const doc = JSON.parse(offline) as { agents: Array<Record<string, unknown>> };
    doc.agents[0]!.icon = 'icon.svg';
    writeFileSync(join(dir, 'ok.json'), JSON.stringify(doc));
    execFileSync('mkfifo', [join(dir, 'icon.svg')]);
    const iconHarness = await createHarness({ registryUrl: pathToFileURL(join(dir, 'ok.json')).toString() }, join(dir, 'data2'));
    try {
      const id = (await iconHarness.call('registry.list', {})).entries[0]!.id;
      const icons = await Promise.all([0, 1, 2, 3, 4].map(() => iconHarness.call('registry.icon', { registryId: id })));
      for (const icon of icons) expect(icon).toMatchObject({ svg: null, error: expect.stringMatching(/named pipe/) });
    } finally {
      await iconHarness.close();
    }
    // An archive given as a file: URL (allowed when the registry is a local file).
    execFileSync('mkfifo', [join(dir, 'agent.tar.gz')]);
    const downloads = [0, 1, 2, 3, 4].map((i) =>
      downloadTo(pathToFileURL(join(dir, 'agent.tar.gz')).toString(), join(dir, `out-${i}.tar.gz`), { allowFile: true, maxBytes: 1024 * 1024, idleTimeoutMs: 15_000 }),
    );
    // Each refusal is awaited from the start (a rejection left unwatched until its turn is an unhandled one).
    await Promise.all(downloads.map((d) => expect(d).rejects.toThrow(/named pipe, not a regular file/)));
  });
});
