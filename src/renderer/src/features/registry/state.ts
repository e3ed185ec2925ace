import { create } from 'zustand';
import type { IpcErrorCode } from '@shared/contract';
import { REGISTRY_URL_SETTING, type DistKind, type InstalledAgent, type RegistryList, type RegistryProgress, type RuntimeCheck } from '@shared/contract/registry';
import type { Api } from '../../ipc/client';

export type Operation = 'install' | 'update' | 'rollback' | 'uninstall' | 'overrides' | 'cancel';

export interface Failure {
  operation: Operation;
  code: IpcErrorCode;
  message: string;
  /** For a failed install or update of an npm/uv agent: what the machine lacks. */
  runtime: RuntimeCheck | null;
  /** The distribution the failed install used (for Retry). */
  kind?: DistKind;
}

interface RegistryState {
  list: RegistryList | null;
  /** A registry.list / registry.refresh call is running. */
  loading: boolean;
  refreshing: boolean;
  /** The list request itself failed (the core answered with an error). */
  loadError: string | null;
  /** Live progress of installs and updates, from registry.progress. */
  progress: Record<string, RegistryProgress>;
  /** An operation started from this window and not yet answered. */
  busy: Record<string, Operation>;
  failures: Record<string, Failure>;
  /** A short note after an operation ("cancelled: nothing was kept"). */
  notes: Record<string, string>;
}

export const useRegistry = create<RegistryState>(() => ({
  list: null,
  loading: false,
  refreshing: false,
  loadError: null,
  progress: {},
  busy: {},
  failures: {},
  notes: {},
}));

const set = useRegistry.setState;
const get = useRegistry.getState;

function patchRecord<K extends 'busy' | 'failures' | 'notes' | 'progress'>(key: K, id: string, value: RegistryState[K][string] | null): void {
  const next = { ...get()[key] } as Record<string, unknown>;
  if (value === null) delete next[id];
  else next[id] = value;
  set({ [key]: next } as Partial<RegistryState>);
}

/** Puts an installed agent (or its removal) into the list at once, before the core's re-list arrives. */
function applyInstalled(registryId: string, agent: InstalledAgent | null): void {
  const list = get().list;
  if (!list) return;
  set({
    list: {
      ...list,
      entries: list.entries.map((e) => (e.id === registryId ? { ...e, installed: agent, updateAvailable: agent?.updateAvailable ?? false } : e)),
      installed: agent
        ? [...list.installed.filter((i) => i.registryId !== registryId), agent]
        : list.installed.filter((i) => i.registryId !== registryId),
    },
  });
}

let listing: Promise<void> | null = null;
let listAgain = false;

/** registry.list (coalesced: calls during a running one lead to one more afterwards). */
export function loadList(api: Api): Promise<void> {
  if (listing) {
    listAgain = true;
    return listing;
  }
  set({ loading: true });
  listing = (async () => {
    do {
      listAgain = false;
      const r = await api.call('registry.list', {});
      if (r.ok) set({ list: r.value, loadError: null });
      else set({ loadError: r.error.message });
    } while (listAgain);
  })().finally(() => {
    listing = null;
    set({ loading: false });
  });
  return listing;
}

let refreshing: Promise<void> | null = null;
let refreshAgain = false;

/** Fetches the registry now (coalesced like loadList); a failure keeps the previous copy (reported in source.error). */
export function refreshList(api: Api): Promise<void> {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  set({ refreshing: true });
  refreshing = (async () => {
    // A list call can be fetching (the first one, with no copy at all): let it finish first.
    if (listing) await listing;
    do {
      refreshAgain = false;
      const r = await api.call('registry.refresh', {});
      if (r.ok) set({ list: r.value, loadError: null });
      else set({ loadError: r.error.message });
    } while (refreshAgain);
  })().finally(() => {
    refreshing = null;
    set({ refreshing: false });
  });
  return refreshing;
}

const synced = new WeakSet<Api>();

/**
 * Keeps the registry list in step with the core (once per connection). The first load also refreshes when the
 * list came from the copy on disk, so an open Registry tab shows what is current.
 */
export function syncRegistry(api: Api): void {
  if (synced.has(api)) return;
  synced.add(api);
  api.on('registry.progress', (p) => patchRecord('progress', p.registryId, p));
  api.on('registry.changed', () => void loadList(api));
  // Its source changed (here, in Settings, or in another window): the new registry is loaded.
  api.on('settings.changed', (e) => {
    if (e.key === REGISTRY_URL_SETTING) void refreshList(api);
  });
  void loadList(api).then(() => {
    if (get().list?.source.origin === 'cache') void refreshList(api);
  });
}

async function explainFailure(api: Api, registryId: string, failure: Failure): Promise<Failure> {
  const entry = get().list?.entries.find((e) => e.id === registryId);
  const kind = failure.kind ?? entry?.installKind;
  if (kind !== 'npx' && kind !== 'uvx') return failure;
  const check = await api.call('registry.runtimeCheck', { registryId });
  return check.ok && !check.value.ok ? { ...failure, runtime: check.value } : failure;
}

/** Installs (or updates) and records the outcome: the new install, "cancelled", or the failure with what to do. */
async function runInstall(api: Api, registryId: string, operation: 'install' | 'update', kind?: DistKind): Promise<void> {
  if (get().busy[registryId]) return;
  patchRecord('busy', registryId, operation);
  patchRecord('failures', registryId, null);
  patchRecord('notes', registryId, null);
  try {
    const r =
      operation === 'install'
        ? await api.call('registry.install', kind ? { registryId, kind } : { registryId })
        : await api.call('registry.update', { registryId });
    if (r.ok) {
      if (r.value.status === 'installed') {
        applyInstalled(registryId, r.value.agent);
        const warnings = r.value.agent.warnings.join(' ');
        if (warnings) patchRecord('notes', registryId, warnings);
      } else {
        patchRecord(
          'notes',
          registryId,
          operation === 'install' ? 'Installation cancelled: nothing was kept.' : 'Update cancelled: the installed version is unchanged.',
        );
      }
    } else {
      const failure: Failure = { operation, code: r.error.code, message: r.error.message, runtime: null, kind };
      patchRecord('failures', registryId, failure);
      const explained = await explainFailure(api, registryId, failure);
      if (explained !== failure && get().failures[registryId] === failure) patchRecord('failures', registryId, explained);
    }
  } finally {
    patchRecord('busy', registryId, null);
  }
}

export const install = (api: Api, registryId: string, kind?: DistKind): Promise<void> => runInstall(api, registryId, 'install', kind);
export const update = (api: Api, registryId: string): Promise<void> => runInstall(api, registryId, 'update');

/** Asks the core to stop a running install; the install call then answers "cancelled". */
export async function cancelInstall(api: Api, registryId: string): Promise<void> {
  const r = await api.call('registry.cancelInstall', { registryId });
  if (!r.ok) patchRecord('failures', registryId, { operation: 'cancel', code: r.error.code, message: r.error.message, runtime: null });
}

async function simple(api: Api, registryId: string, operation: Operation, call: () => Promise<{ ok: true; agent: InstalledAgent | null } | { ok: false; code: IpcErrorCode; message: string }>): Promise<boolean> {
  if (get().busy[registryId]) return false;
  patchRecord('busy', registryId, operation);
  patchRecord('failures', registryId, null);
  patchRecord('notes', registryId, null);
  try {
    const r = await call();
    if (!r.ok) {
      patchRecord('failures', registryId, { operation, code: r.code, message: r.message, runtime: null });
      return false;
    }
    applyInstalled(registryId, r.agent);
    return true;
  } finally {
    patchRecord('busy', registryId, null);
  }
}

export const rollback = (api: Api, registryId: string): Promise<boolean> =>
  simple(api, registryId, 'rollback', async () => {
    const r = await api.call('registry.rollback', { registryId });
    return r.ok ? { ok: true, agent: r.value.agent } : { ok: false, code: r.error.code, message: r.error.message };
  });

export const uninstall = (api: Api, registryId: string): Promise<boolean> =>
  simple(api, registryId, 'uninstall', async () => {
    const r = await api.call('registry.uninstall', { registryId });
    if (r.ok) patchRecord('notes', registryId, r.value.removed ? 'Uninstalled.' : 'It was not installed.');
    return r.ok ? { ok: true, agent: null } : { ok: false, code: r.error.code, message: r.error.message };
  });

export const setOverrides = (api: Api, registryId: string, args: string[] | null, env: Record<string, string>): Promise<boolean> =>
  simple(api, registryId, 'overrides', async () => {
    const r = await api.call('registry.setOverrides', { registryId, args, env });
    return r.ok ? { ok: true, agent: r.value.agent } : { ok: false, code: r.error.code, message: r.error.message };
  });

/** Runs the runtime check again (after the user installed what was missing). */
export async function recheckRuntime(api: Api, registryId: string): Promise<void> {
  const failure = get().failures[registryId];
  if (!failure) return;
  const r = await api.call('registry.runtimeCheck', { registryId });
  if (!r.ok) return;
  patchRecord('failures', registryId, { ...failure, runtime: r.value.ok ? null : r.value });
  if (r.value.ok) patchRecord('notes', registryId, 'Everything it needs is there now: try again.');
}

export const dismissFailure = (registryId: string): void => patchRecord('failures', registryId, null);
export const dismissNote = (registryId: string): void => patchRecord('notes', registryId, null);
