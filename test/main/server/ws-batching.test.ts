// Events emitted in one event-loop turn reach a browser window in one WebSocket frame, in order, and a
// request's result never overtakes the events emitted before it.
import { mkdirSync } from 'node:fs';
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

async function serve(): Promise<{ core: AppCore; server: RunningServer; frames: ServerFrame[]; next(): Promise<void>; ws: WebSocket }> {
  const dir = tempDir('sb-ws-batch-');
  const rendererDir = join(dir, 'renderer');
  mkdirSync(rendererDir, { recursive: true });
  const core = new AppCore({ dataDir: join(dir, 'data'), transport: 'browser', version: '0.0.0-test' });
  const server = await startWsServer(core, { rendererDir });
  cleanup.push(async () => {
    await server.dispose();
    await core.dispose();
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { headers: { Origin: origin } });
  const frames: ServerFrame[] = [];
  let wake: (() => void) | null = null;
  ws.on('message', (d) => {
    frames.push(JSON.parse(d.toString()) as ServerFrame);
    wake?.();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const next = () => new Promise<void>((r) => (wake = r));
  while (!frames.some((f) => f.type === 'hello')) await next();
  return { core, server, frames, next, ws };
}

describe('browser-mode event frames', () => {
  it('sends the events of one turn in one frame, in order, and events before a result', async () => {
    const { core, frames, next, ws } = await serve();
    const before = frames.length;
    core.bus.emit('app.notice', { level: 'info', message: 'one' });
    core.bus.emit('app.notice', { level: 'info', message: 'two' });
    core.bus.emit('app.notice', { level: 'warning', message: 'three' });
    while (frames.length === before) await next();
    expect(frames.slice(before)).toEqual([
      {
        type: 'events',
        events: [
          { name: 'app.notice', payload: { level: 'info', message: 'one' } },
          { name: 'app.notice', payload: { level: 'info', message: 'two' } },
          { name: 'app.notice', payload: { level: 'warning', message: 'three' } },
        ],
      },
    ]);

    // An event a request emits just before its answer reaches the client before the answer.
    const invoke = core.router.invoke.bind(core.router);
    core.router.invoke = async (method, params) => {
      const r = await invoke(method, params);
      core.bus.emit('app.notice', { level: 'info', message: 'caused by the request' });
      return r;
    };
    const mark = frames.length;
    ws.send(JSON.stringify({ type: 'invoke', id: 7, method: 'app.info', params: {} }));
    while (!frames.slice(mark).some((f) => f.type === 'result')) await next();
    expect(frames.slice(mark).map((f) => f.type)).toEqual(['events', 'result']);
    const first = frames[mark]!;
    expect(first.type === 'events' && first.events.map((e) => e.payload)).toEqual([{ level: 'info', message: 'caused by the request' }]);
  });
});
