import { LocalHost } from '../../../../src/main/core/host/local/local-host';
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventName, ParamsOf, PayloadOf, RequestName, ResultOf } from '../../../../src/shared/contract';
import { EventBus } from '../../../../src/main/core/base/event-bus';
import { Router } from '../../../../src/main/core/base/router';
import { RegistryService, type RegistryServiceOptions } from '../../../../src/main/core/registry/service';
import { StoreService } from '../../../../src/main/core/store/store-service';
import { AgentRepository } from '../../../../src/main/core/agents/agent-repository';

export const processEnv = (): Record<string, string> => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
};

export interface Harness {
  dataDir: string;
  store: StoreService;
  router: Router;
  bus: EventBus;
  service: RegistryService;
  events: Array<{ name: EventName; payload: unknown }>;
  call<N extends RequestName>(name: N, params: ParamsOf<N>): Promise<ResultOf<N>>;
  fail<N extends RequestName>(name: N, params: ParamsOf<N>): Promise<{ code: string; message: string }>;
  progress(registryId?: string): Array<PayloadOf<'registry.progress'>>;
  agents(): AgentRepository;
  /** Everything under <dataDir>/agents (relative paths), staging included. */
  agentFiles(): string[];
  restart(extra?: Partial<RegistryServiceOptions>): Promise<void>;
  close(): Promise<void>;
}

export function listTree(dir: string, prefix = ''): string[] {
  let out: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const rel = prefix ? `${prefix}/${n}` : n;
    out.push(rel);
    const full = join(dir, n);
    if (lstatSync(full).isDirectory()) out = out.concat(listTree(full, rel));
  }
  return out;
}

/** A RegistryService on a fresh data dir and a real SQLite store, driven through the router like the renderer does. */
export async function createHarness(options: Partial<RegistryServiceOptions> = {}, dataDir?: string): Promise<Harness> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'sb-registry-'));
  let store = new StoreService(dir);
  let router = new Router();
  let bus = new EventBus();
  const events: Harness['events'] = [];
  const make = (extra: Partial<RegistryServiceOptions>) => {
    bus.connect((name, payload) => events.push({ name, payload }));
    return new RegistryService({
      dataDir: dir,
      store,
      router,
      bus,
      env: async () => processEnv(),
      host: new LocalHost(),
      fetchTimeoutMs: 15_000,
      downloadIdleTimeoutMs: 15_000,
      ...options,
      ...extra,
    });
  };
  let service = make({});
  await service.ready;
  const h: Harness = {
    dataDir: dir,
    get store() {
      return store;
    },
    get router() {
      return router;
    },
    get bus() {
      return bus;
    },
    get service() {
      return service;
    },
    events,
    async call(name, params) {
      const r = await router.invoke(name, params);
      if (!r.ok) throw new Error(`${name} failed: ${r.error.code}: ${r.error.message}`);
      return r.value as never;
    },
    async fail(name, params) {
      const r = await router.invoke(name, params);
      if (r.ok) throw new Error(`${name} was expected to fail but returned ${JSON.stringify(r.value).slice(0, 500)}`);
      return r.error;
    },
    progress(registryId) {
      return events
        .filter((e) => e.name === 'registry.progress')
        .map((e) => e.payload as PayloadOf<'registry.progress'>)
        .filter((p) => !registryId || p.registryId === registryId);
    },
    agents: () => new AgentRepository(store.db),
    agentFiles: () => listTree(join(dir, 'agents')),
    async restart(extra = {}) {
      await service.dispose();
      store.dispose();
      store = new StoreService(dir);
      router = new Router();
      bus = new EventBus();
      service = make(extra);
      await service.ready;
    },
    async close() {
      await service.dispose();
      store.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** A registry document with the given agents. */
export const registryDoc = (agents: unknown[]): string => JSON.stringify({ version: '1.0.0', agents, extensions: [] });
