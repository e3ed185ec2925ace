/**
 * The standalone proxy carried to an SSH host (src/main/api-proxy-server.ts, bundled as the host receives it),
 * run as a real process: its allow-list comes on stdin and is never on its command line; it listens in a
 * private folder, names its socket in `socket-name`, and answers as the in-process proxy does (a listed host
 * reached, another refused). It stops when its stdin ends, and when another proxy takes its folder over (one an
 * earlier Switchboard could not stop); a configuration that is not an allow-list is refused in a sentence.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiProxyBundle } from '../../../src/main/core/containers/proxy-bundle';

interface Started {
  proc: ChildProcess;
  socket: string;
  exited: Promise<number | null>;
}

/** Sends raw bytes to the proxy's socket and collects the answer until it closes. */
function ask(socket: string, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const c = connect(socket, () => c.write(bytes));
    c.on('data', (d: Buffer) => (got += d.toString('latin1')));
    c.on('close', () => resolve(got));
    c.on('error', reject);
  });
}

describe('the API proxy carried to an SSH host, as a process', { timeout: 30_000 }, () => {
  let root: string;
  let file: string;
  let api: HttpServer;
  let apiPort: number;
  let other: Server;
  let otherPort: number;
  const procs: ChildProcess[] = [];

  const start = (dir: string, config: string): Started => {
    const proc = spawn(process.execPath, [file, dir], { stdio: ['pipe', 'pipe', 'pipe'] });
    procs.push(proc);
    proc.stdin!.write(config);
    const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
    return { proc, socket: '', exited };
  };
  const ready = async (s: Started, dir: string): Promise<Started> => {
    const said = await new Promise<string>((resolve) => {
      let out = '';
      s.proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString('utf8');
        if (out.includes('\n')) resolve(out);
      });
    });
    const name = /^ready (p-[0-9a-f]{12}\.sock)\n$/.exec(said)?.[1];
    expect(name).toBeTruthy();
    return { ...s, socket: join(dir, name!) };
  };

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-hproxy-')));
    file = join(root, 'api-proxy.cjs');
    writeFileSync(file, await apiProxyBundle());
    api = createHttpServer((req, res) => res.end(`the API answers ${req.url}\n`));
    other = createServer((c) => c.end('not the API\n'));
    await Promise.all([new Promise<void>((r) => api.listen(0, '127.0.0.1', r)), new Promise<void>((r) => other.listen(0, '127.0.0.1', r))]);
    apiPort = (api.address() as AddressInfo).port;
    otherPort = (other.address() as AddressInfo).port;
  });

  afterAll(() => {
    for (const p of procs) p.kill('SIGKILL');
    api?.close();
    other?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('takes its allow-list on stdin, listens in a private folder, reaches a listed host and refuses another; stops when its stdin ends', async () => {
    const dir = join(root, 'one.net');
    const p = await ready(start(dir, `${JSON.stringify({ allow: [`127.0.0.1:${apiPort}`] })}\n`), dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(dir, 'socket-name'), 'utf8').trim()).toBe(p.socket.slice(dir.length + 1));
    // Its command line is the file and the folder: nothing of the list.
    expect(readFileSync(`/proc/${p.proc.pid}/cmdline`, 'utf8')).not.toContain(String(apiPort));

    const listed = await ask(p.socket, `GET http://127.0.0.1:${apiPort}/v1/messages HTTP/1.1\r\nHost: 127.0.0.1:${apiPort}\r\n\r\n`);
    expect(listed).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(listed).toContain('the API answers /v1/messages');
    const refused = await ask(p.socket, `CONNECT 127.0.0.1:${otherPort} HTTP/1.1\r\n\r\n`);
    expect(refused).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(refused).not.toContain('not the API');

    p.proc.stdin!.end();
    expect(await p.exited).toBe(0);
    expect(existsSync(p.socket)).toBe(false);
  });

  it('goes when another proxy takes its folder over (the relay follows `socket-name`)', async () => {
    const dir = join(root, 'two.net');
    const config = `${JSON.stringify({ allow: [`127.0.0.1:${apiPort}`] })}\n`;
    const first = await ready(start(dir, config), dir);
    const second = await ready(start(dir, config), dir);
    expect(readFileSync(join(dir, 'socket-name'), 'utf8').trim()).toBe(second.socket.slice(dir.length + 1));
    expect(await first.exited).toBe(0);
    expect(existsSync(first.socket)).toBe(false);
    expect(await ask(second.socket, `CONNECT 127.0.0.1:${otherPort} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403 /);
    second.proc.stdin!.end();
    expect(await second.exited).toBe(0);
  });

  it('refuses a configuration that is not an allow-list, in a sentence, and listens nowhere', async () => {
    for (const config of ['not json\n', `${JSON.stringify({ allow: [] })}\n`, `${JSON.stringify({ allow: ['a b; rm -rf /'] })}\n`]) {
      const dir = join(root, `bad-${procs.length}.net`);
      const s = start(dir, config);
      let err = '';
      s.proc.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
      expect(await s.exited).toBe(2);
      expect(err).toMatch(/^the (configuration is not JSON|allow-list is not a list of host names)\n$/);
      expect(existsSync(dir)).toBe(false);
    }
  });
});
