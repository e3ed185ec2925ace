import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { acquireInstanceLock, InstanceLockedError, type InstanceLock } from '../core/platform/instance-lock';
import { defaultDataDir } from '../core/platform/paths';
import { installSafetyNet } from './safety-net';
import { startWsServer } from './ws-server';

/**
 * Browser mode: the main-process core under plain Node, serving the same renderer over a WebSocket.
 * Prints one JSON line `{"event":"listening",...}` for programs (tests, the start script) to read, then
 * `{"event":"ready",...}` once the core is up.
 */
async function main(): Promise<void> {
  installSafetyNet();
  const here = dirname(fileURLToPath(import.meta.url));
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.SWITCHBOARD_PORT ?? '0' },
      'data-dir': { type: 'string' },
      'renderer-dir': { type: 'string', default: join(here, '../renderer') },
      token: { type: 'string' },
    },
  });
  const pkg = JSON.parse(readFileSync(join(here, '../../package.json'), 'utf8')) as { version: string };
  const dataDir = resolve(values['data-dir'] ?? defaultDataDir());
  // One Switchboard per data folder: a second one is refused, naming the first, before it touches anything.
  let lock: InstanceLock;
  try {
    lock = acquireInstanceLock(dataDir, 'browser');
  } catch (e) {
    if (!(e instanceof InstanceLockedError)) throw e;
    console.log(JSON.stringify({ event: 'refused', reason: 'data_dir_in_use', holder: e.holder, lockPath: e.lockPath }));
    console.error(`Switchboard did not start: ${e.message}`);
    process.exit(2);
  }
  process.on('exit', () => lock.release());
  // SWITCHBOARD_STARTUP_BACKUP_DELAY_MS: benchmarks time the start-up backup itself.
  const backupDelay = Number(process.env.SWITCHBOARD_STARTUP_BACKUP_DELAY_MS ?? '');
  // The core's code is compiled and run once the page has been sent, in steps (preloadCore), each taken while
  // no page request is being answered; the core itself (the store opened, the services made) is started when
  // ws-server.ts decides.
  let preloaded: Promise<typeof import('../app-core')> | null = null;
  const startCore = async () => {
    const { AppCore } = await (preloaded ?? import('../app-core'));
    return new AppCore({ dataDir, transport: 'browser', version: pkg.version, ...(Number.isFinite(backupDelay) && process.env.SWITCHBOARD_STARTUP_BACKUP_DELAY_MS ? { startupBackupDelayMs: backupDelay } : {}) });
  };
  const server = await startWsServer(startCore, {
    rendererDir: values['renderer-dir']!,
    port: Number(values.port),
    ...(values.token ? { token: values.token } : {}),
  });
  lock.setPort(server.port);
  const wanted = Number(values.port);
  if (wanted && server.port !== wanted) console.error(`Switchboard: port ${wanted} is in use by another program; listening on ${server.port} instead.`);
  console.log(JSON.stringify({ event: 'listening', url: server.url, port: server.port, dataDir }));
  preloaded = preloadCore(() => server.whenIdle());
  // A failed load is reported by the core's start, which awaits the same promise.
  preloaded.catch(() => undefined);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`Switchboard: ${signal}, stopping agents and terminals…`);
    // A core not started yet never will be.
    await server.dispose();
    await server.core.then((c) => c.dispose(), () => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  const core = await server.core.catch((e: unknown) => {
    if (stopping) return null;
    throw e;
  });
  if (core) console.log(JSON.stringify({ event: 'ready', store: core.store.status }));
}

/**
 * Loads the core's modules a part at a time, the largest libraries first, each part a separate chunk of the
 * build: loading one holds this thread (compiling it and building its zod schemas) for tens of ms, so each
 * waits until no page request is being answered: the page's script is sent whole, and run by the browser
 * while the core loads.
 */
async function preloadCore(idle: () => Promise<void>): Promise<typeof import('../app-core')> {
  await idle();
  await import('@agentclientprotocol/sdk');
  await idle();
  await import('../../shared/contract');
  await idle();
  return import('../app-core');
}

main().catch((e: unknown) => {
  console.error('Switchboard failed to start:', e);
  process.exit(1);
});
