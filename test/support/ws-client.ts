import WebSocket from 'ws';
import type { ServerFrame } from '../../src/shared/contract';
import type { AppServer } from './app-server';

/** A bare contract client over the app server's WebSocket (for setup steps a UI test does not click through). */
export async function wsClient(app: Pick<AppServer, 'port' | 'token' | 'origin'>) {
  const ws = new WebSocket(`ws://127.0.0.1:${app.port}/ws?token=${app.token}`, { headers: { Origin: app.origin } });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const frames: ServerFrame[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(d.toString()) as ServerFrame));
  let id = 0;
  return {
    ws,
    async call(method: string, params: unknown): Promise<unknown> {
      const my = ++id;
      ws.send(JSON.stringify({ type: 'invoke', id: my, method, params }));
      for (;;) {
        const f = frames.find((x) => x.type === 'result' && x.id === my);
        if (f && f.type === 'result') {
          if (!f.result.ok) throw new Error(`${method}: ${f.result.error.message}`);
          return f.result.value;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => ws.close(),
  };
}

/** Sets one setting on a running app server. */
export async function setSetting(app: Pick<AppServer, 'port' | 'token' | 'origin'>, key: string, value: unknown): Promise<void> {
  const c = await wsClient(app);
  try {
    await c.call('settings.set', { key, value });
  } finally {
    c.close();
  }
}
