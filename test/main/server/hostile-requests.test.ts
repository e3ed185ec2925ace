import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ServerFrame } from '../../../src/shared/contract';
import { startAppServer, type AppServer } from '../../support/app-server';
import { connectContract } from '../../support/contract-client';

// Any web page can make the browser reach 127.0.0.1 (an <img>, a fetch, a WebSocket): no request, however
// malformed, may end the server. Raw TCP so that what goes out is exactly the malformed bytes.

let app: AppServer;
beforeAll(async () => {
  app = await startAppServer();
});
afterAll(() => app.stop());

interface Answer {
  status: number | null;
  head: string;
}

/** Sends raw bytes on a fresh connection and reads the status line of the answer (null: closed without one). */
function rawRequest(bytes: Buffer, timeoutMs = 10_000): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = connect(app.port, '127.0.0.1');
    let got = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(got);
      resolve({ status: m ? Number(m[1]) : null, head: got.slice(0, 200) });
    };
    const timer = setTimeout(finish, timeoutMs);
    // Written without a half-close: Node aborts a response (of a file, say) to a peer that closed its side.
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.includes('\r\n')) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
  });
}

const latin1 = (s: string) => Buffer.from(s, 'latin1');

/** A small seeded PRNG (mulberry32), so that a failing case can be replayed with SWITCHBOARD_FUZZ_SEED. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T,>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}

type Rng = ReturnType<typeof prng>;

const hex = (n: number) => n.toString(16).padStart(2, '0');
const rawByte = (r: Rng) => String.fromCharCode(r.int(256));

/** Pieces of request targets that have broken (or could break) a parser or a decoder. */
function targetPiece(r: Rng): string {
  switch (r.int(16)) {
    case 0:
      return `%${hex(r.int(256))}`; // any byte, often invalid UTF-8 alone
    case 1:
      return r.pick(['%', '%f', '%zz', '%%', '%g0', '%0']); // truncated or not hex
    case 2:
      return r.pick(['%c0%ae', '%c0%af', '%e0%80%af', '%f0%80%80%af', '%c1%9c', '%fc%80%80%80%80%af']); // overlong
    case 3:
      return r.pick(['%e2%82', '%f0%9f%98', '%ed%a0%80', '%ed%bf%bf', '%f4%90%80%80', '%fe', '%ff']); // truncated, surrogates, > U+10FFFF
    case 4:
      return r.pick(['..', '.', '%2e%2e', '%2e', '..%2f', '%2f', '%5c', '\\', '//', '%00', '%0a', '%0d']);
    case 5:
      return r.pick(['[', ']', '[::1', '@', ':', '#', '?', '??', '&', '=', '+', ';', '*', '~']);
    case 6:
      return rawByte(r); // raw bytes, high and control ones included
    case 7:
      return 'ws';
    case 8:
      return 'index.html';
    case 9:
      return `?token=${r.pick(['', '%', '%ff', app.token, '0'.repeat(64), '[', app.token + '%'])}`;
    case 10:
      return 'x'.repeat(r.pick([1, 10, 300, 5000]));
    case 11:
      return encodeURIComponent(String.fromCodePoint(r.next() < 0.5 ? r.int(0xd800) : 0xe000 + r.int(0x10ffff - 0xe000)));
    default:
      return r.pick(['/', 'a', 'assets/', 'b%20c', 'é']);
  }
}

function requestTarget(r: Rng): string {
  const kind = r.int(10);
  if (kind === 0) return r.pick(['http://[', 'http://[::1', 'http://', 'http:', 'https://[/ws', 'http://127.0.0.1/ws', 'file:///etc/passwd', '*', '', 'ws://[', 'http://x:99999/']);
  if (kind === 1) return r.pick(['//[', '//', '///', '//[::1', '//evil.example/ws', '//%ff', '//[/ws?token=']);
  let t = r.next() < 0.9 ? '/' : '';
  for (let i = 0, n = 1 + r.int(6); i < n; i++) t += targetPiece(r);
  return t;
}

function headerLines(r: Rng, upgrade: boolean): string[] {
  const goodHost = `127.0.0.1:${app.port}`;
  const lines: string[] = [];
  const host = r.int(8);
  if (host < 5) lines.push(`Host: ${goodHost}`);
  else if (host === 5) lines.push(`Host: ${r.pick(['evil.example', '[', '', '%ff', `localhost:${app.port}`, '127.0.0.1'])}`);
  else if (host === 6) lines.push(`Host: ${goodHost}`, `Host: ${goodHost}`);
  if (upgrade) {
    lines.push(r.next() < 0.9 ? 'Connection: Upgrade' : `Connection: ${r.pick(['upgrade, keep-alive', 'close', ''])}`);
    lines.push(`Upgrade: ${r.next() < 0.85 ? 'websocket' : r.pick(['', 'h2c', 'WebSocket', 'websocket, x', '\x01'])}`);
    if (r.next() < 0.8) lines.push(`Sec-WebSocket-Key: ${r.pick(['dGhlIHNhbXBsZSBub25jZQ==', '', 'x', '[', '%ff'])}`);
    if (r.next() < 0.8) lines.push(`Sec-WebSocket-Version: ${r.pick(['13', '8', '', 'x', '99999999999999999999'])}`);
    if (r.next() < 0.8) lines.push(`Origin: ${r.pick([app.origin, 'null', 'http://evil.example', '', '[', 'http://[', `http://localhost:${app.port}`])}`);
    if (r.next() < 0.2) lines.push(`Sec-WebSocket-Extensions: ${r.pick(['permessage-deflate', 'permessage-deflate; client_max_window_bits=99', '[', ';;;'])}`);
    if (r.next() < 0.2) lines.push(`Sec-WebSocket-Protocol: ${r.pick(['', ',', 'a,,b', '['])}`);
  }
  for (let i = 0, n = r.int(4); i < n; i++) {
    switch (r.int(9)) {
      case 0:
        lines.push(`X-${r.int(1000)}: ${rawByte(r)}${rawByte(r)}`); // control and high bytes in a value
        break;
      case 1:
        lines.push(`${rawByte(r)}bad name: v`);
        break;
      case 2:
        lines.push('no colon here');
        break;
      case 3:
        lines.push(' folded: continuation');
        break;
      case 4:
        lines.push(`Content-Length: ${r.pick(['-1', 'x', '0', '99999999999999999999', '1, 2'])}`);
        break;
      case 5:
        lines.push(`Transfer-Encoding: ${r.pick(['chunked', 'gzip', 'chunked, identity', 'x'])}`);
        break;
      case 6:
        lines.push(`X-Long: ${'y'.repeat(r.pick([100, 20_000, 70_000]))}`);
        break;
      case 7:
        lines.push(`Origin: ${r.pick(['[', 'http://[', '%ff'])}`);
        break;
      default:
        lines.push(`Cookie: ${r.pick(['a=%ff', 'a', ';;', '='])}`);
    }
  }
  return lines;
}

/** A proper authenticated upgrade followed by garbage where WebSocket frames belong. */
function upgradeThenGarbage(r: Rng): Buffer {
  const head = `GET /ws?token=${app.token} HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: ${app.origin}\r\n\r\n`;
  const frames = [
    Buffer.from([0x81, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f]), // unmasked
    Buffer.from([0x8f, 0x80, 0, 0, 0, 0]), // reserved opcode
    Buffer.from([0x81, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]), // 2^63-byte frame
    Buffer.from([0xf1, 0x80, 0, 0, 0, 0]), // RSV bits
    Buffer.from([0x81, 0x82, 0, 0, 0, 0, 0xc3, 0x28]), // invalid UTF-8 text
    Buffer.from([0x89, 0xfe, 0x01, 0x00, 0, 0, 0, 0]), // control frame longer than 125
    Buffer.from(Array.from({ length: 1 + r.int(64) }, () => r.int(256))),
  ];
  return Buffer.concat([latin1(head), r.pick(frames)]);
}

function generateRequest(r: Rng): Buffer {
  if (r.next() < 0.05) return upgradeThenGarbage(r);
  const upgrade = r.next() < 0.4;
  const method = r.next() < 0.85 ? 'GET' : r.pick(['HEAD', 'POST', 'PUT', 'OPTIONS', 'CONNECT', 'TRACE', 'get', 'G\x00T', 'BREW', '']);
  const version = r.next() < 0.9 ? 'HTTP/1.1' : r.pick(['HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1x', 'HTTPS/1.1', '']);
  const sep = r.next() < 0.95 ? ' ' : r.pick(['  ', '\t', '']);
  const eol = r.next() < 0.95 ? '\r\n' : '\n';
  const requestLine = [method, requestTarget(r), version].join(sep);
  const lines = [requestLine, ...headerLines(r, upgrade)];
  return latin1(lines.join(eol) + eol + eol);
}

/** Named attacks from the review, each of which ended the process. */
const knownAttacks: Array<[string, string]> = [
  ['malformed percent-encoding', 'GET /%ff HTTP/1.1'],
  ['truncated UTF-8 sequence', 'GET /%e2%82 HTTP/1.1'],
  ['overlong encoding', 'GET /%c0%af HTTP/1.1'],
  ['unparseable absolute form', 'GET http://[ HTTP/1.1'],
];

describe('browser-mode server under hostile requests', () => {
  it('answers each attack from the review, and keeps serving', async () => {
    const host = `Host: 127.0.0.1:${app.port}`;
    for (const [name, line] of knownAttacks) {
      const a = await rawRequest(latin1(`${line}\r\n${host}\r\n\r\n`));
      expect([400, 404], `${name}: ${a.head}`).toContain(a.status);
    }
    // The query is not decoded for a file: the page itself.
    expect((await rawRequest(latin1(`GET /?a=%ff HTTP/1.1\r\n${host}\r\n\r\n`))).status).toBe(200);
    for (const method of ['CONNECT', 'POST']) {
      expect((await rawRequest(latin1(`${method} /%ff HTTP/1.1\r\n${host}\r\n\r\n`))).status).toBe(405);
    }
    const upgrade = (target: string) =>
      latin1(`GET ${target} HTTP/1.1\r\n${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: ${app.origin}\r\n\r\n`);
    for (const target of ['//[', 'http://[', '/ws?token=%ff', '/%ff', '/ws%ff', '//[/ws']) {
      const a = await rawRequest(upgrade(target));
      expect([400, 401, 404], `upgrade to ${target}: ${a.head}`).toContain(a.status);
    }
    expect(app.proc.exitCode).toBeNull();
    expect((await fetch(`${app.origin}/`)).status).toBe(200);
  });

  it('answers thousands of generated malformed requests and upgrades, then still serves the app and its WebSocket', async () => {
    const seed = Number(process.env.SWITCHBOARD_FUZZ_SEED ?? 0x5b0a2d);
    const r = prng(seed);
    const total = Number(process.env.SWITCHBOARD_FUZZ_COUNT ?? 3000);
    const deadline = Date.now() + Math.max(60_000, total * 20);
    const unanswered: string[] = [];
    let sent = 0;
    const worker = async () => {
      while (sent < total && Date.now() < deadline && app.proc.exitCode === null) {
        const bytes = generateRequest(r);
        sent++;
        const a = await rawRequest(bytes);
        if (a.status === null && unanswered.length < 10) unanswered.push(JSON.stringify(bytes.toString('latin1').slice(0, 300)));
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const report = `seed ${seed}, ${sent} sent; unanswered:\n${unanswered.join('\n')}\n${app.output().slice(-3000)}`;
    expect(app.proc.exitCode, report).toBeNull();
    expect(unanswered, report).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(1000);

    const page = await fetch(`${app.origin}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root"');
    const client = await connectContract(app);
    try {
      expect(await client.call('app.info', {})).toMatchObject({ transport: 'browser', store: { ok: true } });
    } finally {
      client.close();
    }
  });
});

describe('browser-mode WebSocket limits', () => {
  async function open(): Promise<{ ws: WebSocket; next(id: number): Promise<ServerFrame> }> {
    const ws = new WebSocket(`ws://127.0.0.1:${app.port}/ws?token=${app.token}`, { headers: { Origin: app.origin } });
    const frames: ServerFrame[] = [];
    const waiters: Array<() => void> = [];
    ws.on('message', (d) => {
      frames.push(JSON.parse(d.toString()) as ServerFrame);
      waiters.splice(0).forEach((w) => w());
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return {
      ws,
      async next(id) {
        for (;;) {
          const f = frames.find((x) => x.type === 'result' && x.id === id);
          if (f) return f;
          await new Promise<void>((r) => waiters.push(r));
        }
      },
    };
  }

  it('answers a request nested 100,000 levels deep with a typed validation error', async () => {
    const { ws, next } = await open();
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    ws.send(`{"type":"invoke","id":1,"method":"settings.set","params":{"key":"agents.defaultAgent","value":${deep}}}`);
    expect(await next(1)).toMatchObject({ result: { ok: false, error: { code: 'invalid_params', message: expect.stringMatching(/nested more than 64/) } } });
    ws.send(`{"type":"invoke","id":2,"method":"history.list","params":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`);
    expect(await next(2)).toMatchObject({ result: { ok: false, error: { code: 'invalid_params' } } });
    ws.close();
  });

  it('refuses an oversized settings value with a typed error and keeps the old value', async () => {
    const { ws, next } = await open();
    ws.send(JSON.stringify({ type: 'invoke', id: 1, method: 'settings.set', params: { key: 'agents.defaultAgent', value: 'small' } }));
    expect(await next(1)).toMatchObject({ result: { ok: true } });
    ws.send(JSON.stringify({ type: 'invoke', id: 2, method: 'settings.set', params: { key: 'agents.defaultAgent', value: 'x'.repeat(2 * 1024 * 1024) } }));
    expect(await next(2)).toMatchObject({ result: { ok: false, error: { code: 'invalid_params' } } });
    ws.send(JSON.stringify({ type: 'invoke', id: 3, method: 'settings.get', params: { key: 'agents.defaultAgent' } }));
    expect(await next(3)).toMatchObject({ result: { ok: true, value: { entry: { value: 'small' } } } });
    ws.close();
  });

  it('closes a connection that sends a frame over 32 MiB, and serves the next one', async () => {
    const { ws } = await open();
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.on('error', () => undefined);
    ws.send('x'.repeat(40 * 1024 * 1024));
    expect(await closed).toBe(1009);
    const client = await connectContract(app);
    try {
      expect(await client.call('app.info', {})).toMatchObject({ transport: 'browser' });
    } finally {
      client.close();
    }
  });
});
