import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ServerFrame } from '../../../src/shared/contract';
import { startAppServer, type AppServer } from '../../support/app-server';

let app: AppServer;
beforeAll(async () => {
  app = await startAppServer();
});
afterAll(() => app.stop());

function attempt(url: string, headers: Record<string, string>): Promise<{ status: number } | { open: WebSocket; frames: ServerFrame[] }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    // Kept from the start: the server may send frames in the same read as its upgrade answer.
    const frames: ServerFrame[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString()) as ServerFrame));
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    ws.on('open', () => resolve({ open: ws, frames }));
    ws.on('error', () => undefined);
  });
}

async function connected(query = ''): Promise<{ ws: WebSocket; frames: ServerFrame[]; call(frame: unknown): Promise<ServerFrame>; result(id: number): Promise<ServerFrame> }> {
  const r = await attempt(`ws://127.0.0.1:${app.port}/ws?token=${app.token}${query}`, { Origin: app.origin });
  if (!('open' in r)) throw new Error(`refused: ${r.status}`);
  const { open: ws, frames } = r;
  const waiters: Array<() => void> = [];
  ws.on('message', () => waiters.splice(0).forEach((w) => w()));
  const result = async (id: unknown): Promise<ServerFrame> => {
    for (;;) {
      const found = frames.find((f) => f.type === 'result' && f.id === id);
      if (found) return found;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return {
    ws,
    frames,
    result,
    async call(frame) {
      ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
      return result(typeof frame === 'object' && frame && 'id' in frame ? (frame as { id: unknown }).id : -1);
    },
  };
}

describe('browser-mode WebSocket', () => {
  it('listens on the loopback interface only', () => {
    expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  });

  it('refuses a connection without the token, or with a wrong one', async () => {
    expect(await attempt(`ws://127.0.0.1:${app.port}/ws`, { Origin: app.origin })).toEqual({ status: 401 });
    expect(await attempt(`ws://127.0.0.1:${app.port}/ws?token=${'0'.repeat(64)}`, { Origin: app.origin })).toEqual({ status: 401 });
  });

  it('refuses a foreign Origin, even with the right token', async () => {
    for (const origin of ['http://evil.example', `http://127.0.0.1:${app.port + 1}`, 'null']) {
      expect(await attempt(`ws://127.0.0.1:${app.port}/ws?token=${app.token}`, { Origin: origin })).toEqual({ status: 403 });
    }
    expect(await attempt(`ws://127.0.0.1:${app.port}/ws?token=${app.token}`, {})).toEqual({ status: 403 });
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    expect(await attempt(`ws://127.0.0.1:${app.port}/ws?token=${app.token}`, { Origin: app.origin, Host: `evil.example:${app.port}` })).toEqual({
      status: 421,
    });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: app.port, path: '/', headers: { Host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(421);
  });

  it('answers a malformed request with a typed validation error and executes nothing', async () => {
    const { ws, call } = await connected();
    const bad = await call({ type: 'invoke', id: 1, method: 'pty.createShell', params: { cols: -5, rows: 'x' } });
    expect(bad).toMatchObject({ type: 'result', id: 1, result: { ok: false, error: { code: 'invalid_params' } } });
    const unknown = await call({ type: 'invoke', id: 2, method: 'child_process.exec', params: { cmd: 'id' } });
    expect(unknown).toMatchObject({ result: { ok: false, error: { code: 'unknown_method' } } });
    const garbage = await call('{not json');
    expect(garbage).toMatchObject({ id: -1, result: { ok: false, error: { code: 'invalid_params' } } });
    const good = await call({ type: 'invoke', id: 3, method: 'app.info', params: {} });
    expect(good).toMatchObject({ result: { ok: true, value: { transport: 'browser', store: { ok: true } } } });
    ws.close();
  });

  it('answers the requests a page put in its socket address (ids 1…n) after hello, each checked as any request', async () => {
    const early = [{ method: 'app.info', params: {} }, { method: 'no.such.method', params: {} }, 'not a request', { method: 'history.list', params: { limit: 'x' } }];
    const { ws, frames, result, call } = await connected(`&early=${encodeURIComponent(JSON.stringify(early))}`);
    const answers = await Promise.all([1, 2, 3, 4].map(result));
    expect(frames[0]).toEqual({ type: 'hello', transport: 'browser' });
    const [info, unknown, notRequest, invalid] = answers.map((f) => (f.type === 'result' ? f.result : null));
    expect(info).toMatchObject({ ok: true, value: { transport: 'browser' } });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(notRequest).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    // The page's own requests follow, with ids after the early ones.
    expect(await call({ type: 'invoke', id: 5, method: 'app.info', params: {} })).toMatchObject({ type: 'result', id: 5, result: { ok: true } });
    ws.close();
  });

  it('ignores an early list that is not a JSON array of at most 16 requests, and serves the socket as usual', async () => {
    const tooMany = JSON.stringify(Array.from({ length: 17 }, () => ({ method: 'app.info', params: {} })));
    for (const raw of ['{', '{"method":"app.info"}', tooMany]) {
      const { ws, frames, call } = await connected(`&early=${encodeURIComponent(raw)}`);
      expect(await call({ type: 'invoke', id: 1, method: 'app.info', params: {} })).toMatchObject({ type: 'result', id: 1, result: { ok: true } });
      expect(frames.filter((f) => f.type === 'result')).toHaveLength(1);
      ws.close();
    }
  });

  it('serves the renderer with a strict Content-Security-Policy and nothing outside it', async () => {
    const res = await fetch(`${app.origin}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("object-src 'none'");
    expect((await fetch(`${app.origin}/..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${app.origin}/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
  });
});
