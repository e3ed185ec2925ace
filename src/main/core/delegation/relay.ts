import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_CHANNEL_LINE } from '../../../shared/delegation';
import { onSocketLines } from './socket-lines';

/** What the relay says on its stdout, one JSON line each. */
export type RelayOut = { t: 'ready'; socket: string; node: string; file: string } | { t: 'line'; c: number; line: string } | { t: 'end'; c: number };
/** What the core sends on its stdin: an answer line for connection `c`, or that it is dropped (not a request). */
export type RelayIn = { c: number; line: string } | { c: number; close: true };

/**
 * The host's end of a session's delegation channel when its agent runs away from this machine (an SSH host, a
 * container): run there (`node delegation-server.cjs relay`) as a process of the session's Host, so its stdio is
 * a stream of the helper's connection (or of the engine's exec) to the core. It listens on a unix socket in a
 * folder of its own (mode 0700: no other user of the host can reach it, and nothing listens on a network port),
 * which the delegation MCP server the agent starts connects to, and passes each line up as it is, unread: the
 * core checks the secret and the request. It ends, removing its folder, when its stdin ends (the core let go).
 */
export function runRelay(): void {
  const dir = mkdtempSync(join(tmpdir(), 'sb-dlg-'));
  chmodSync(dir, 0o700);
  const path = join(dir, 's');
  const sockets = new Map<number, Socket>();
  let next = 1;
  const say = (m: RelayOut) => process.stdout.write(`${JSON.stringify(m)}\n`);
  const server = createServer((socket) => {
    const c = next++;
    sockets.set(c, socket);
    onSocketLines(socket, (line) => {
      say({ t: 'line', c, line });
      return true;
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      sockets.delete(c);
      say({ t: 'end', c });
    });
  });
  const end = () => {
    try {
      rmSync(dir, { recursive: true, force: true });
    } finally {
      process.exit(0);
    }
  };
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    input += chunk;
    for (let nl = input.indexOf('\n'); nl >= 0; nl = input.indexOf('\n')) {
      const raw = input.slice(0, nl);
      input = input.slice(nl + 1);
      try {
        const m = JSON.parse(raw) as RelayIn;
        const socket = sockets.get(m.c);
        if (!socket || socket.destroyed) continue;
        if ('close' in m) socket.destroy();
        else if (typeof m.line === 'string') socket.write(`${m.line}\n`);
      } catch {
        /* not an answer: dropped */
      }
    }
    if (input.length > MAX_CHANNEL_LINE * 2) input = '';
  });
  process.stdin.on('end', end);
  process.stdin.on('error', end);
  process.on('SIGTERM', end);
  process.on('SIGHUP', end);
  server.listen(path, () => say({ t: 'ready', socket: path, node: process.execPath, file: process.argv[1] ?? '' }));
}
