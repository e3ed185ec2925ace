import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface AppServer {
  url: string;
  origin: string;
  port: number;
  token: string;
  dataDir: string;
  proc: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function tempDir(prefix = 'sb-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Starts the built main-process core in browser mode (`out/main/server.js`), as `npm start` does; `port` and
 * `token` start it again where a page already is (a restart the page reconnects to). Returns once the core is
 * up (its store open); `until: 'listening'` returns as soon as the page can be fetched, as a user's browser
 * would (the start benches).
 */
export async function startAppServer(options: { dataDir?: string; env?: Record<string, string>; port?: number; token?: string; until?: 'listening' | 'ready' } = {}): Promise<AppServer> {
  const ownDir = !options.dataDir;
  const dataDir = options.dataDir ?? tempDir('sb-data-');
  const args = [join(repoRoot, 'out/main/server.js'), '--port', String(options.port ?? 0), '--data-dir', dataDir, ...(options.token ? ['--token', options.token] : [])];
  const proc = spawn(process.execPath, args, {
    cwd: repoRoot,
    // Shell tabs and the login environment use /bin/sh: the machine's own bash profile must not decide a test. Here
    // it runs pyenv's rehash, whose lock file a shell killed at the wrong moment leaves behind; every login
    // shell after that waits 60 s for it.
    env: { ...process.env, SHELL: '/bin/sh', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const until = options.until ?? 'ready';
  const listening = await new Promise<{ url: string; port: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 30_000);
    const onData = () => {
      const lines = out.split('\n');
      const line = lines.find((l) => l.startsWith('{"event":"listening"'));
      if (line && (until === 'listening' || lines.some((l) => l.startsWith('{"event":"ready"')))) {
        clearTimeout(timer);
        proc.stdout!.off('data', onData);
        resolve(JSON.parse(line) as { url: string; port: number });
      }
    };
    proc.stdout!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`server exited (${code}):\n${out}`)));
  });
  const token = /token=([0-9a-f]+)/.exec(listening.url)![1]!;
  return {
    url: listening.url,
    origin: `http://127.0.0.1:${listening.port}`,
    port: listening.port,
    token,
    dataDir,
    proc,
    output: () => out,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** What the server and its agents last said (for a failed test's report): the server's output, each agent log's tail. */
export function diagnostics(app: AppServer, bytes = 4000): string {
  const parts = [`── server output (last ${bytes} bytes)\n${app.output().slice(-bytes)}`];
  const logs = join(app.dataDir, 'logs', 'agents');
  if (existsSync(logs)) {
    for (const f of readdirSync(logs)) parts.push(`── ${f} (last ${bytes} bytes)\n${readFileSync(join(logs, f), 'utf8').slice(-bytes)}`);
  }
  return parts.join('\n');
}
