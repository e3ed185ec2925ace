// Browser mode serves the page before its core is loaded: the core is started once the page has its script,
// when a socket asks for it, or when nobody asks for anything a moment after listening; a socket is answered
// once the core is up, and a server stopped first never starts it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AppCore } from '../../../src/main/app-core';
import { startWsServer, type RunningServer } from '../../../src/main/server/ws-server';
import type { ServerFrame } from '../../../src/shared/contract';
import { tempDir } from '../../support/app-server';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A server whose core is made only when `release` has been called after the server asked for it. */
async function serve(): Promise<{ server: RunningServer; rendererDir: string; asked: () => number; release(): void }> {
  const dir = tempDir('sb-core-start-');
  const rendererDir = join(dir, 'renderer');
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><script type="module" src="./assets/index.js"></script>');
  writeFileSync(join(rendererDir, 'assets/index.js'), `console.log(${JSON.stringify('x'.repeat(200_000))});`);
  let asked = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let core: AppCore | null = null;
  const server = await startWsServer(
    async () => {
      asked++;
      await released;
      core = new AppCore({ dataDir: join(dir, 'data'), transport: 'browser', version: '0.0.0-test' });
      return core;
    },
    { rendererDir },
  );
  cleanup.push(async () => {
    release();
    await server.dispose();
    await core?.dispose();
  });
  return { server, rendererDir, asked: () => asked, release };
}

const get = async (server: RunningServer, path: string): Promise<string> => {
  const r = await fetch(`http://127.0.0.1:${server.port}${path}`);
  expect(r.status).toBe(200);
  return r.text();
};

function connect(server: RunningServer): { ws: WebSocket; hello: Promise<ServerFrame> } {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { headers: { Origin: `http://127.0.0.1:${server.port}` } });
  const hello = new Promise<ServerFrame>((resolve, reject) => {
    ws.once('message', (d) => resolve(JSON.parse(d.toString()) as ServerFrame));
    ws.once('error', reject);
  });
  return { ws, hello };
}

describe('browser mode: the core starts after the page is served', () => {
  it('serves the page while the core is not started, starts it once the script is sent, and answers the socket once it is up', async () => {
    const { server, asked, release } = await serve();
    expect(await get(server, '/')).toContain('index.js');
    expect(asked()).toBe(0);
    expect((await get(server, '/assets/index.js')).length).toBeGreaterThan(200_000);
    await expect.poll(asked, { timeout: 5_000 }).toBe(1);

    const { ws, hello } = connect(server);
    let answered = false;
    void hello.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toBe(false);
    release();
    expect(await hello).toEqual({ type: 'hello', transport: 'browser' });
    ws.close();
    expect(asked()).toBe(1);
    await expect(server.core).resolves.toBeInstanceOf(AppCore);
  });

  it('starts the core when a socket asks for it, or when nothing is asked of it', async () => {
    const a = await serve();
    const { ws, hello } = connect(a.server);
    await expect.poll(a.asked, { timeout: 5_000 }).toBe(1);
    a.release();
    expect((await hello).type).toBe('hello');
    ws.close();

    const b = await serve();
    await expect.poll(b.asked, { timeout: 5_000 }).toBe(1);
  });

  it('never starts the core of a server stopped before it did', async () => {
    const { server, asked } = await serve();
    const core = server.core.then(
      () => 'started',
      (e: Error) => e.message,
    );
    await server.dispose();
    expect(await core).toMatch(/stopped before its core started/);
    await new Promise((r) => setTimeout(r, 400));
    expect(asked()).toBe(0);
  });
});

describe('browser mode: the page is answered before the core loads more of its code', () => {
  it('whenIdle waits until no page request is being answered', async () => {
    const { server, rendererDir } = await serve();
    // Idle: answered on a later turn.
    await server.whenIdle();

    // A file larger than the socket buffers, read by a client that stops reading: its answer stays in flight.
    const big = 'x'.repeat(40 * 1024 * 1024);
    writeFileSync(join(rendererDir, 'assets/big.js'), big);
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpGet({ host: '127.0.0.1', port: server.port, path: '/assets/big.js' }, resolve);
      req.on('error', reject);
    });
    res.pause();
    let idle = false;
    const whenIdle = server.whenIdle().then(() => (idle = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(idle).toBe(false);

    let received = 0;
    res.on('data', (c: Buffer) => (received += c.length));
    const ended = new Promise((r) => res.once('end', r));
    res.resume();
    await Promise.all([whenIdle, ended]);
    expect(received).toBe(big.length);
  });
});
