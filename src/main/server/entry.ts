import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AppCore } from '../app-core';
import { defaultDataDir } from '../core/platform/paths';
import { installSafetyNet } from './safety-net';
import { startWsServer } from './ws-server';

/**
 * Browser mode: the main-process core under plain Node, serving the same renderer over a WebSocket.
 * Prints one JSON line `{"event":"listening",...}` for programs (tests, the start script) to read.
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
  const core = new AppCore({ dataDir, transport: 'browser', version: pkg.version });
  const server = await startWsServer(core, {
    rendererDir: values['renderer-dir']!,
    port: Number(values.port),
    ...(values.token ? { token: values.token } : {}),
  });
  console.log(JSON.stringify({ event: 'listening', url: server.url, port: server.port, dataDir, store: core.store.status }));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`Switchboard: ${signal}, stopping agents and terminals…`);
    await server.dispose();
    await core.dispose();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((e: unknown) => {
  console.error('Switchboard failed to start:', e);
  process.exit(1);
});
