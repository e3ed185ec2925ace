/**
 * The proxy of the network "only the agent's API" for a container on an SSH host, run ON that host: beside the
 * container, its engine and the socket mounted into it, as a process of the host's helper. The standalone proxy
 * (src/main/api-proxy-server.ts, proxy-bundle.ts) is carried into ~/.switchboard-server/api-proxy/ (this user's
 * alone, 0700) as one file named by its hash, checked by the host's node against that hash before every start,
 * and given its allow-list on stdin (never on a command line). It listens on a socket in the session's 0700
 * folder in the host's scratch folder, which is mounted into the container as the local proxy's is.
 *
 * Why there and not a forward of this machine's proxy over SSH (`ssh -R sock:sock`): a process of the helper
 * outlives a dropped connection (the helper keeps it and its stdin and gives it back on reconnect), as the
 * container and its agent do, so the agent keeps its API through a drop; a forward would die with the
 * connection. The hosts are resolved and reached from the host, as everything else the container does.
 *
 *   const proxy = await HostApiProxy.start(sshHost, ['/usr/bin/node'], files, `${scratch}/${sessionId}.net`, allow);
 *   // mount proxy.dir, run proxy.relayScript in the container; later: await proxy.close()
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { hostLabel } from '../../../shared/contract/hosts';
import type { ConfinedFiles, Host, HostProcess } from '../host/host';
import { type ContainerProxy, RELAY_SOURCE } from './api-proxy';
import { apiProxyBundle } from './proxy-bundle';
import { lastLine, runOnHost } from './run';

const READY_TIMEOUT_MS = 30_000;
const CLOSE_TIMEOUT_MS = 5_000;
/** The proxy's file on the host, as a sh word (beside the helper's, in this user's own folder). */
const PROXY_DIR = '"$HOME/.switchboard-server/api-proxy"';
/** Node's hash of the file named in argv[1], as the name says it (first 16 hex digits of its sha256). */
const HASH_OF = `try{process.stdout.write(require('crypto').createHash('sha256').update(require('fs').readFileSync(process.argv[1])).digest('hex').slice(0,16))}catch{}`;

export class HostApiProxy implements ContainerProxy {
  private constructor(
    private readonly proc: HostProcess,
    readonly dir: string,
  ) {}

  /**
   * Starts the proxy on `host` (its node: `node`), listening in `dir` (a folder of the host's scratch folder:
   * `files` confined to it) with the relay's script beside it. Throws one sentence naming the host when it cannot.
   */
  static async start(host: Host, node: readonly string[], files: ConfinedFiles, dir: string, allow: readonly string[]): Promise<HostApiProxy> {
    const label = hostLabel(host.id);
    const file = await place(host, node, label);
    await files.writeFile(path.posix.join(dir, 'relay.cjs'), RELAY_SOURCE, { createParents: true });
    const hash = /-([0-9a-f]{16})\.cjs$/.exec(file)![1]!;
    const script = [
      'F=$1; H=$2; D=$3; shift 3',
      // The file run is the one checked, at every start: a copy changed since it was placed is not run.
      `[ "$("$@" -e ${shellQuote(HASH_OF)} "$F")" = "$H" ] || { echo "the API proxy's copy on the host does not match its hash" >&2; exit 3; }`,
      'exec "$@" "$F" "$D"',
    ].join('\n');
    // Its own mark: a spawn of the same command never takes back a proxy an earlier Switchboard left there.
    const proc = host.spawn(['/bin/sh', '-c', script, 'sh', file, hash, dir, ...node], { env: { SWITCHBOARD_API_PROXY: randomBytes(8).toString('hex') } });
    proc.stdin.on('error', () => undefined);
    proc.stdin.write(`${JSON.stringify({ allow })}\n`);
    try {
      await ready(proc, label);
    } catch (e) {
      proc.dispose();
      throw e;
    }
    return new HostApiProxy(proc, dir);
  }

  get relayScript(): string {
    return path.posix.join(this.dir, 'relay.cjs');
  }

  /** Stops the proxy (its stdin's end; a signal for one that does not end): the container reaches nothing until the next start. */
  async close(): Promise<void> {
    this.proc.stdin.end();
    this.proc.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.proc.closed, new Promise<void>((r) => (timer = setTimeout(r, CLOSE_TIMEOUT_MS)))]);
    clearTimeout(timer);
    this.proc.dispose();
  }
}

/** Resolves once the proxy says it listens; rejects with why it did not (its own words, bounded). */
function ready(proc: HostProcess, label: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let out = '';
    let err = '';
    let done = false;
    const settle = (e: Error | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      proc.stdout.off('data', onOut);
      if (e) reject(e);
      else resolve();
    };
    const timer = setTimeout(() => settle(new Error(`the API proxy on ${label} did not start within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
    const onOut = (b: Buffer) => {
      out = (out + b.toString('utf8')).slice(0, 4096);
      if (/^ready p-[0-9a-f]{12}\.sock\n/.test(out)) settle(null);
    };
    proc.stdout.on('data', onOut);
    proc.stderr.on('data', (b: Buffer) => void (err = (err + b.toString('utf8')).slice(-2000)));
    void proc.closed.then((exit) => settle(new Error(`the API proxy on ${label} ended before it listened: ${lastLine(err) || exit.error || `exit ${exit.code ?? exit.signal}`}`)));
  });
}

/**
 * The proxy's file on the host (copied there when it is missing or differs from this machine's bundle), checked
 * by the host's node against its hash. One run: the bytes go on its stdin, and are dropped when the copy is good.
 */
async function place(host: Host, node: readonly string[], label: string): Promise<string> {
  const bytes = await apiProxyBundle();
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const script = [
    'set -e',
    'H=$1; shift',
    `D=${PROXY_DIR}; F="$D/api-proxy-$H.cjs"`,
    `sum() { F1=$1; shift; "$@" -e ${shellQuote(HASH_OF)} "$F1"; }`,
    'if [ -f "$F" ] && [ "$(sum "$F" "$@")" = "$H" ]; then cat >/dev/null; touch "$F"; echo "SB:have $F"; exit 0; fi',
    'umask 077; mkdir -p "$D"; chmod 700 "$D"',
    'T="$F.$$.tmp"',
    'cat > "$T"',
    'if [ "$(sum "$T" "$@")" != "$H" ]; then rm -f "$T"; echo "the copy on the host does not match what was sent" >&2; exit 3; fi',
    'mv -f "$T" "$F"',
    // Versions of the proxy no Switchboard has started for a week go.
    `find "$D" -maxdepth 1 -type f -name 'api-proxy-*' ! -name "api-proxy-$H.cjs" -mtime +7 -exec rm -f {} + 2>/dev/null || true`,
    'echo "SB:have $F"',
  ].join('\n');
  const r = await runOnHost(host, ['/bin/sh', '-c', script, 'sh', hash, ...node], { env: {}, input: bytes.toString('utf8'), timeoutMs: 120_000, maxStdout: 64 * 1024 });
  const at = /^SB:have (\/[^\n\0]+)$/m.exec(r.stdout);
  if (r.code !== 0 || !at || !at[1]!.endsWith(`/api-proxy-${hash}.cjs`)) throw new Error(`the API proxy could not be placed on ${label}: ${lastLine(r.stderr) || r.error || `exit ${r.code ?? r.signal}`}`);
  return at[1]!;
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}
