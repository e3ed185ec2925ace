import { spawn } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { FRAMES_START } from '../protocol';

/** Longest Unix socket path that works everywhere (sun_path is 104 bytes on macOS, 108 on Linux). */
const MAX_SOCKET_PATH = 100;

/**
 * The daemon's socket: beside this script (the versioned folder), or, when that path is too long for a Unix
 * socket, in a private folder under the temp folder.
 */
export function socketPath(instance: string): string {
  const script = process.argv[1]!;
  const beside = join(dirname(script), `${instance}.sock`);
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH) return beside;
  const uid = process.getuid?.() ?? 0;
  const dir = join(tmpdir(), `switchboard-${uid}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const info = statSync(dir);
  if (info.uid !== uid || (info.mode & 0o077) !== 0) throw new Error(`${dir} is not private to this user`);
  return join(dir, `${basename(dirname(script))}-${instance}.sock`);
}

function tryConnect(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const sock = connect(path);
    sock.once('connect', () => {
      sock.off('error', reject);
      resolve(sock);
    });
    sock.once('error', reject);
  });
}

async function connectOrStart(path: string, graceMs: number): Promise<Socket> {
  try {
    return await tryConnect(path);
  } catch {
    /* not running: start it */
  }
  const daemon = spawn(process.execPath, [process.argv[1]!, 'serve', path, String(graceMs)], { detached: true, stdio: 'ignore', cwd: dirname(process.argv[1]!) });
  daemon.unref();
  let last: unknown;
  for (let i = 0; i < 200; i++) {
    await new Promise((r) => setTimeout(r, 25));
    try {
      return await tryConnect(path);
    } catch (e) {
      last = e;
    }
  }
  throw new Error(`the helper's daemon did not start (${last instanceof Error ? last.message : String(last)})`);
}

/** Joins this process's stdio (the ssh session) to the daemon's socket until either side ends. */
export function runProxy(instance: string, graceMs: number): void {
  let path: string;
  try {
    path = socketPath(instance);
  } catch (e) {
    process.stderr.write(`switchboard helper: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
  connectOrStart(path, graceMs).then(
    (sock) => {
      process.stdin.pipe(sock);
      process.stdout.write(FRAMES_START);
      sock.pipe(process.stdout);
      process.stdin.on('end', () => process.exit(0));
      process.stdin.on('error', () => process.exit(0));
      process.stdout.on('error', () => process.exit(0));
      sock.on('close', () => process.exit(0));
      sock.on('error', () => process.exit(1));
    },
    (e: unknown) => {
      process.stderr.write(`switchboard helper: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
