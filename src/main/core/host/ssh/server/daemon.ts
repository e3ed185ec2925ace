import { appendFileSync, closeSync, fstatSync, openSync, readSync, unlinkSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { arch, homedir, platform, userInfo } from 'node:os';
import { FsRefusal } from '../../files';
import { ConfinedFs } from '../../local/confined-fs';
import { listLocalFiles } from '../../local/list-files';
import { runLocalGit } from '../../local/local-git';
import { decode, encode, FrameReader, PROTOCOL_VERSION, type ClientMessage, type LeftProc, type ServerMessage, type WireError } from '../protocol';
import { ClientConn } from './client-conn';
import { Proc } from './procs';
import { watchFolder } from './watch';

type FsMethod = 'resolve' | 'stat' | 'listDir' | 'readFile' | 'readFileIfExists' | 'writeFile' | 'removeFile' | 'placeFile' | 'placeSymlink' | 'removeEntry' | 'hasEntry' | 'removeTempFiles';
const FS_METHODS = new Set<string>(['resolve', 'stat', 'listDir', 'readFile', 'readFileIfExists', 'writeFile', 'removeFile', 'placeFile', 'placeSymlink', 'removeEntry', 'hasEntry', 'removeTempFiles']);

function hostEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

function wireError(e: unknown): WireError {
  if (e instanceof FsRefusal) return { name: 'FsRefusal', message: e.message, reason: e.reason };
  const err = e instanceof Error ? e : new Error(String(e));
  const code = (err as NodeJS.ErrnoException).code;
  return { name: err.name, message: err.message, ...(code ? { code } : {}) };
}

/**
 * A service a concern runs in the helper (Host.helperCall): one call in, its answer (plain data and Buffers)
 * out; `note` sends the caller word of the call under way (progress).
 */
export type HelperService = (args: unknown, note: (v: unknown) => void) => Promise<unknown>;

/**
 * How the previous daemon of this socket ended, from its log (it writes "listening" when it starts and
 * "exiting: <why>" when it stops on its own): in words for a client whose processes it took with it.
 */
export function howPreviousEnded(logPath: string): string | undefined {
  let text = '';
  try {
    const fd = openSync(logPath, 'r');
    try {
      const size = fstatSync(fd).size;
      const tail = Buffer.alloc(Math.min(size, 16 * 1024));
      readSync(fd, tail, 0, tail.length, size - tail.length);
      text = tail.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const lines = text.split('\n').filter((l) => / (listening|exiting: )/.test(l));
  const last = lines.at(-1);
  if (!last) return undefined;
  if (/ listening/.test(last)) return "the helper on the host was killed or crashed (or the host restarted) before it could stop its processes";
  const why = last.slice(last.indexOf('exiting: ') + 'exiting: '.length);
  const grace = /^no client for (\d+) ms/.exec(why);
  if (grace) return `the connection was down longer than the helper's grace period (${Math.round(Number(grace[1]) / 1000)} s), so it stopped its processes`;
  if (why === 'SIGTERM') return 'the helper on the host was stopped (SIGTERM) and its processes with it';
  if (why === 'asked to shut down') return 'the helper on the host was shut down (Switchboard quit) and its processes with it';
  return `the helper on the host stopped (${why.slice(0, 200)})`;
}

/**
 * The daemon: one client connection at a time (a new one replaces the old, which may not know yet that
 * its network is gone). With no client for `graceMs` it stops every process it owns and exits.
 */
export function runDaemon(socketPath: string, graceMs: number, services: Readonly<Record<string, HelperService>> = {}): void {
  const log = (line: string): void => {
    try {
      appendFileSync(`${socketPath}.log`, `${new Date().toISOString()} ${line}\n`);
    } catch {
      /* nowhere to say it */
    }
  };
  const previousEnd = howPreviousEnded(`${socketPath}.log`);
  const procs = new Map<string, Proc>();
  const fsByRoots = new Map<string, Promise<ConfinedFs>>();
  let client: ClientConn | null = null;
  let graceTimer: NodeJS.Timeout | null = null;

  // Process events go to whichever client is connected: processes outlive a connection, and their events
  // are numbered per process (replayed on a reconnect). Answers and watches belong to one connection (ClientConn).
  const send = (msg: ServerMessage): void => client?.send(msg);
  const deliver = (p: string, s: number, ev: object): void => {
    const proc = procs.get(p);
    if (proc?.forgotten && proc.closed) procs.delete(p);
    send({ t: 'ev', p, s, ...ev } as ServerMessage);
  };

  const stopAll = async (): Promise<void> => {
    client?.end();
    const running = [...procs.values()].filter((p) => !p.closed);
    for (const p of running) p.kill(p.spec.kind === 'pty' ? 'SIGHUP' : 'SIGTERM');
    const deadline = Date.now() + 2000;
    while (Date.now() < deadline && running.some((p) => !p.closed)) await new Promise((r) => setTimeout(r, 25));
    for (const p of running) p.kill('SIGKILL');
  };
  const exit = async (why: string): Promise<void> => {
    log(`exiting: ${why}`);
    await stopAll();
    try {
      unlinkSync(socketPath);
    } catch {
      /* gone */
    }
    process.exit(0);
  };
  const armGrace = (): void => {
    if (graceTimer) clearTimeout(graceTimer);
    graceTimer = setTimeout(() => void exit(`no client for ${graceMs} ms`), graceMs);
  };

  const request = async (conn: ClientConn, op: string, a: Record<string, unknown>, note: (v: unknown) => void): Promise<unknown> => {
    switch (op) {
      case 'info': {
        const u = userInfo();
        return { home: homedir(), user: u.username, platform: platform(), arch: arch(), node: process.version, pid: process.pid, shell: process.env.SHELL ?? u.shell ?? '/bin/sh' };
      }
      case 'fs': {
        const roots = a.roots as string[];
        const method = String(a.m);
        if (!FS_METHODS.has(method)) throw new Error(`unknown file operation ${method}`);
        const key = JSON.stringify(roots);
        let fs = fsByRoots.get(key);
        if (!fs) {
          fs = ConfinedFs.open(roots);
          fsByRoots.set(key, fs);
          fs.catch(() => fsByRoots.delete(key));
        }
        const files = await fs;
        const fn = files[method as FsMethod] as (...args: unknown[]) => Promise<unknown>;
        return await fn.apply(files, a.args as unknown[]);
      }
      case 'fsOpen': {
        const roots = a.roots as string[];
        const fs = await ConfinedFs.open(roots);
        fsByRoots.set(JSON.stringify(fs.roots), Promise.resolve(fs));
        return fs.roots;
      }
      case 'git': {
        // A caller's environment goes over the host's own (git and its helpers need the host's PATH, HOME…).
        const options = (a.options ?? {}) as NonNullable<Parameters<typeof runLocalGit>[1]>;
        const env = options.env ? { ...hostEnv(), GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', ...options.env } : undefined;
        return await runLocalGit(a.args as string[], { ...options, ...(env ? { env } : {}) });
      }
      case 'list': {
        const o = a.options as { skipDirs?: string[]; maxFiles: number; maxDepth: number };
        return await listLocalFiles(a.root as string, { maxFiles: o.maxFiles, maxDepth: o.maxDepth, ...(o.skipDirs ? { skipDirs: new Set(o.skipDirs) } : {}) });
      }
      case 'watch': {
        const ignore = (a.ignore as string[] | undefined) ?? [];
        await conn.watch(a.w as number, (onEvent) => watchFolder(a.root as string, onEvent, ignore));
        return null;
      }
      case 'unwatch': {
        conn.unwatch(a.w as number);
        return null;
      }
      case 'shutdown':
        setImmediate(() => void exit('asked to shut down'));
        return null;
      default: {
        const service = Object.hasOwn(services, op) ? services[op] : undefined;
        if (!service) throw new Error(`unknown request ${op}`);
        return await service(a, note);
      }
    }
  };

  const onMessage = (conn: ClientConn, msg: ClientMessage): void => {
    switch (msg.t) {
      case 'hello': {
        const left: LeftProc[] = [];
        if (msg.fresh) {
          // A new client (Switchboard started again): what the previous one left waits to be claimed, for the
          // grace period, with what it wrote meanwhile.
          for (const [p, proc] of procs) {
            if (msg.procs[p] || proc.forgotten) continue;
            proc.leftTimer ??= setTimeout(() => {
              proc.leftTimer = null;
              proc.kill('SIGKILL');
              proc.forgotten = true;
              if (proc.closed) procs.delete(p);
            }, graceMs);
            left.push({ p, spec: proc.spec, pid: proc.pid, in: proc.inApplied, alive: !proc.closed });
          }
        }
        const known: Record<string, { in: number; alive: boolean }> = {};
        for (const [p, proc] of procs) if (!proc.forgotten && !proc.leftTimer) known[p] = { in: proc.inApplied, alive: !proc.closed };
        conn.send({ t: 'welcome', v: PROTOCOL_VERSION, procs: known, ...(left.length > 0 ? { left } : {}), ...(previousEnd ? { previousEnd } : {}) });
        for (const [p, { out }] of Object.entries(msg.procs)) procs.get(p)?.replay(out);
        return;
      }
      case 'req':
        // Its answer goes to the connection that asked, or nowhere: ids mean nothing on another one.
        request(conn, msg.op, (decode(msg.a) ?? {}) as Record<string, unknown>, (v) => conn.answer({ t: 'note', id: msg.id, v: encode(v) })).then(
          (v) => conn.answer({ t: 'res', id: msg.id, ok: true, v: encode(v) }),
          (e: unknown) => conn.answer({ t: 'res', id: msg.id, ok: false, err: wireError(e) }),
        );
        return;
      case 'start':
        if (!procs.has(msg.p)) procs.set(msg.p, new Proc(msg.p, msg.spec, deliver));
        return;
      case 'claim': {
        const proc = procs.get(msg.p);
        if (proc?.leftTimer && !proc.forgotten) proc.claim();
        return;
      }
      case 'in':
        procs.get(msg.p)?.input(msg.s, msg.eof ? null : (msg.d ?? Buffer.alloc(0)));
        conn.send({ t: 'ina', p: msg.p, s: msg.s });
        return;
      case 'kill':
        procs.get(msg.p)?.kill(msg.sig);
        return;
      case 'resize':
        procs.get(msg.p)?.resize(msg.cols, msg.rows);
        return;
      case 'ack':
        procs.get(msg.p)?.ack(msg.s);
        return;
      case 'forget': {
        const proc = procs.get(msg.p);
        if (!proc) return;
        proc.forgotten = true;
        if (proc.closed) procs.delete(msg.p);
        return;
      }
    }
  };

  const server = createServer((sock) => {
    const previous = client;
    const conn = new ClientConn(sock, (c) => client === c, log);
    client = conn;
    previous?.end();
    previous?.destroy();
    if (graceTimer) clearTimeout(graceTimer);
    graceTimer = null;
    const reader = new FrameReader((msg) => {
      if (client === conn) onMessage(conn, msg as unknown as ClientMessage);
    });
    sock.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch (e) {
        log(`bad message: ${e instanceof Error ? e.message : String(e)}`);
        sock.destroy();
      }
    });
    sock.on('error', () => undefined);
    sock.on('close', () => {
      conn.end();
      if (client !== conn) return;
      client = null;
      armGrace();
    });
  });

  const listen = (retry: boolean): void => {
    process.umask(0o077);
    server.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EADDRINUSE' || !retry) {
        log(`cannot listen on ${socketPath}: ${e.message}`);
        process.exit(1);
      }
      // A live daemon keeps it; a stale socket file (a daemon that died) is replaced.
      const probe = connect(socketPath);
      probe.once('connect', () => process.exit(0));
      probe.once('error', () => {
        try {
          unlinkSync(socketPath);
        } catch {
          /* raced */
        }
        listen(false);
      });
    });
    server.listen(socketPath, () => {
      log(`listening (pid ${process.pid})`);
      armGrace();
    });
  };
  process.on('SIGHUP', () => undefined);
  process.on('SIGTERM', () => void exit('SIGTERM'));
  listen(true);
}
