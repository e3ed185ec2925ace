import { beforeEach, describe, expect, it } from 'vitest';
import { err, ok, type Result } from '@shared/contract';
import type { InstalledAgent, RegistryEntry, RegistryList, RuntimeCheck } from '@shared/contract/registry';
import { install, loadList, syncRegistry, uninstall, useRegistry } from '../../../src/renderer/src/features/registry/state';
import { FakeApi, settle } from '../support/fake-api';

function entry(id: string, patch: Partial<RegistryEntry> = {}): RegistryEntry {
  return {
    id,
    name: id,
    version: '1.0.0',
    description: '',
    repository: null,
    authors: [],
    license: null,
    icon: null,
    distributions: ['npx'],
    installKind: 'npx',
    unavailableReason: null,
    installed: null,
    updateAvailable: false,
    progress: null,
    ...patch,
  };
}

function list(entries: RegistryEntry[], origin: RegistryList['source']['origin'] = 'network'): RegistryList {
  return {
    source: { url: 'https://registry.example/registry.json', dataUrl: null, origin, fetchedAt: 1, checkedAt: 1, notModified: false, error: null, warnings: [], registryVersion: null },
    platform: 'linux-x86_64',
    entries,
    invalid: [],
    installed: entries.flatMap((e) => (e.installed ? [e.installed] : [])),
  };
}

function installed(registryId: string): InstalledAgent {
  return {
    registryId,
    agentId: `registry:${registryId}`,
    name: registryId,
    version: '1.0.0',
    kind: 'npx',
    previousVersion: null,
    installedAt: 1,
    dir: `/data/agents/${registryId}/1.0.0`,
    command: 'npx',
    args: [],
    env: {},
    overrides: { args: null, env: {} },
    warnings: ['needs Node >=22, found 20.19.0'],
    problem: null,
    inRegistry: true,
    latestVersion: '1.0.0',
    updateAvailable: false,
  };
}

/** A request answered when the test says. */
function deferred<T>() {
  let resolve!: (r: Result<T>) => void;
  const promise = new Promise<Result<T>>((r) => (resolve = r));
  return { promise, resolve };
}

describe('registry state (features/registry/state)', () => {
  beforeEach(() => useRegistry.setState(useRegistry.getInitialState(), true));

  it('lists once for the calls made while a list is running, and once more after it', async () => {
    const answers = [deferred<RegistryList>(), deferred<RegistryList>()];
    let n = 0;
    const api = new FakeApi().handle('registry.list', () => answers[n++]!.promise);
    const first = loadList(api);
    const second = loadList(api);
    const third = loadList(api);
    expect(useRegistry.getState().loading).toBe(true);
    answers[0]!.resolve(ok(list([entry('old')])));
    await settle();
    answers[1]!.resolve(ok(list([entry('new')])));
    await Promise.all([first, second, third]);
    expect(api.callsOf('registry.list')).toHaveLength(2);
    expect(useRegistry.getState()).toMatchObject({ loading: false, loadError: null });
    expect(useRegistry.getState().list?.entries.map((e) => e.id)).toEqual(['new']);
  });

  it('refreshes at once when the first list came from the copy on disk', async () => {
    const api = new FakeApi()
      .handle('registry.list', () => ok(list([entry('cached')], 'cache')))
      .handle('registry.refresh', () => ok(list([entry('fresh')])));
    syncRegistry(api);
    await settle();
    expect(api.callsOf('registry.refresh')).toHaveLength(1);
    expect(useRegistry.getState().list?.entries.map((e) => e.id)).toEqual(['fresh']);
  });

  it('an install shows at once in the list, with its warnings as a note', async () => {
    const api = new FakeApi().handle('registry.list', () => ok(list([entry('alpha'), entry('beta')]))).handle('registry.install', ({ registryId }) => ok({ status: 'installed', agent: installed(registryId) }));
    await loadList(api);
    const running = install(api, 'alpha');
    expect(useRegistry.getState().busy).toEqual({ alpha: 'install' });
    await running;
    const s = useRegistry.getState();
    expect(s.busy).toEqual({});
    expect(s.list?.entries.find((e) => e.id === 'alpha')?.installed?.version).toBe('1.0.0');
    expect(s.list?.installed.map((i) => i.registryId)).toEqual(['alpha']);
    expect(s.notes.alpha).toBe('needs Node >=22, found 20.19.0');
  });

  it('a failed npx install says what the machine lacks', async () => {
    const check: RuntimeCheck = { ok: false, tools: [{ name: 'node', found: false, path: null, version: null } as RuntimeCheck['tools'][number]], problems: ['Node.js is not installed.'], warnings: [] };
    const api = new FakeApi()
      .handle('registry.list', () => ok(list([entry('alpha')])))
      .handle('registry.install', () => err('unavailable', 'npx was not found'))
      .handle('registry.runtimeCheck', () => ok(check));
    await loadList(api);
    await install(api, 'alpha');
    expect(useRegistry.getState().failures.alpha).toMatchObject({ operation: 'install', code: 'unavailable', message: 'npx was not found', runtime: { problems: ['Node.js is not installed.'] } });
  });

  it('a cancelled install keeps nothing and says so; an uninstall takes the agent out of the list', async () => {
    const api = new FakeApi()
      .handle('registry.list', () => ok(list([entry('alpha', { installed: installed('alpha') }), entry('beta')])))
      .handle('registry.install', () => ok({ status: 'cancelled' }))
      .handle('registry.uninstall', () => ok({ removed: true }));
    await loadList(api);
    await install(api, 'beta');
    expect(useRegistry.getState().notes.beta).toBe('Installation cancelled: nothing was kept.');
    expect(await uninstall(api, 'alpha')).toBe(true);
    expect(useRegistry.getState().list?.installed).toEqual([]);
    expect(useRegistry.getState().notes.alpha).toBe('Uninstalled.');
  });
});
