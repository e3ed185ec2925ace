import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { MAX_CHANNEL_LINE, type ChannelResponse } from '../../../shared/delegation';
import type { Disposable } from '../base/lifecycle';
import type { Host, HostProcess } from '../host/host';

/** Answers a line of a delegation server (DelegationChannel.answer): null drops its connection. */
export type LineAnswerer = (line: string) => Promise<ChannelResponse> | null;

/** A session's relay, running on its host: what its agent starts the delegation server with. */
export interface RelayLink extends Disposable {
  /** The relay's socket, the delegation server's node and its file: paths on the host. */
  readonly socket: string;
  readonly node: string;
  readonly file: string;
  /** Settles when the relay ended (the connection to the host dropped for good, the container stopped…). */
  readonly ended: Promise<void>;
}

const hostPath = z
  .string()
  .min(2)
  .max(4096)
  .regex(/^\/[^\0\n\r]*$/, 'not an absolute path');
/** What a relay says, checked: it runs on a host, whose words are untrusted. */
const relayOutSchema = z.discriminatedUnion('t', [
  z.object({ t: z.literal('ready'), socket: hostPath.max(200), node: hostPath, file: hostPath }).strict(),
  z.object({ t: z.literal('line'), c: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER), line: z.string().max(MAX_CHANNEL_LINE + 1) }).strict(),
  z.object({ t: z.literal('end'), c: z.number().int().min(1) }).strict(),
]);

const READY_TIMEOUT_MS = 30_000;
/** How long checking or copying the server's file on the host may take. */
const PLACE_TIMEOUT_MS = 120_000;

/** Runs `argv` on the host to its end, `input` on its stdin; its exit code and the last of its output. */
function run(host: Host, argv: string[], input?: Buffer): Promise<{ code: number | null; out: string }> {
  const proc = host.spawn(argv, { env: {}, stdin: input ? 'pipe' : 'ignore' });
  let out = '';
  const keep = (b: Buffer) => void (out = (out + b.toString('utf8')).slice(-8192));
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);
  if (input) {
    proc.stdin.on('error', () => undefined);
    proc.stdin.end(input);
  }
  const timer = setTimeout(() => {
    out = `it took longer than ${PLACE_TIMEOUT_MS / 1000} s`;
    proc.dispose();
  }, PLACE_TIMEOUT_MS);
  return proc.closed.then((exit) => {
    clearTimeout(timer);
    return { code: exit.error ? null : exit.code, out: exit.error ?? out };
  });
}

/** The sh script that checks a bundle's file on the host against its hash (prints `SB:have <path>`), writing it from stdin when `write`. */
function placeScript(dir: string, hash: string, write: boolean): string {
  const check = `node -e "const f=process.argv[1];try{process.stdout.write(require('crypto').createHash('sha256').update(require('fs').readFileSync(f)).digest('hex').slice(0,16))}catch{}"`;
  return [
    'set -e',
    `D=${dir}; F="$D/delegation-server-${hash}.cjs"`,
    `if [ -f "$F" ] && [ "$(${check} "$F")" = ${hash} ]; then echo "SB:have $F"; exit 0; fi`,
    ...(write
      ? ['mkdir -p "$D"', 'chmod 700 "$D"', 'T="$F.$$"', 'cat > "$T"', `if [ "$(${check} "$T")" != ${hash} ]; then rm -f "$T"; echo "the copy on the host does not match what was sent" >&2; exit 3; fi`, 'mv -f "$T" "$F"', 'echo "SB:have $F"']
      : ['echo SB:need']),
  ].join('\n');
}

/**
 * The delegation server's file on the host (a copy of the one of this machine, `local`), in `dir` (a sh word: a
 * folder of this user's alone there), checked against its hash before it is used; copied when it is missing or differs.
 */
export async function placeServer(host: Host, local: string, dir: string): Promise<string> {
  const bytes = await readFile(local);
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  let r = await run(host, ['/bin/sh', '-c', placeScript(dir, hash, false)]);
  if (r.code === 0 && !r.out.includes('SB:have')) r = await run(host, ['/bin/sh', '-c', placeScript(dir, hash, true)], bytes);
  const at = /SB:have (\/[^\n]+)/.exec(r.out);
  if (r.code !== 0 || !at) throw new Error(`its copy could not be placed there (${r.out.trim().slice(-300) || `exit code ${r.code ?? 'none'}`})`);
  return at[1]!;
}

/**
 * Starts the session's relay on `host` (relay.ts): a process of the host, so that its stdio is a stream of the
 * host's own connection (the SSH helper's channel, the engine's exec). Each line the relay passes up goes to
 * `answer`, and its answer down to the connection it came from. Resolves once the relay listens.
 */
export function startRelay(host: Host, file: string, answer: LineAnswerer): Promise<RelayLink> {
  // Its own mark: a Switchboard started again never takes back a relay an earlier one left (an SSH host's
  // helper gives back a left process to a spawn of the same command), whose socket no session was given since.
  const proc: HostProcess = host.spawn(['node', file, 'relay'], { env: { SWITCHBOARD_DELEGATION_RELAY: randomBytes(8).toString('hex') } });
  proc.stdin.on('error', () => undefined);
  const send = (m: object) => void (proc.stdin.writable && proc.stdin.write(`${JSON.stringify(m)}\n`));
  const ended = proc.closed.then(() => undefined);
  let stderr = '';
  proc.stderr.on('data', (b: Buffer) => void (stderr = (stderr + b.toString('utf8')).slice(-2000)));
  return new Promise<RelayLink>((resolve, reject) => {
    let buffer = '';
    let ready = false;
    const fail = (why: string) => {
      proc.dispose();
      reject(new Error(why));
    };
    const timer = setTimeout(() => fail(`its relay did not start within ${READY_TIMEOUT_MS / 1000} s`), READY_TIMEOUT_MS);
    void proc.closed.then((exit) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`its relay ended before it listened (${exit.error ?? (stderr.trim().slice(-300) || `exit code ${exit.code ?? exit.signal}`)})`));
    });
    const onMessage = (m: z.infer<typeof relayOutSchema>) => {
      if (m.t === 'ready') {
        if (ready) return;
        ready = true;
        clearTimeout(timer);
        resolve({
          socket: m.socket,
          node: m.node,
          file,
          ended,
          dispose: () => {
            // Its stdin ending makes it remove its folder and exit; the kill is for a relay that does not.
            proc.stdin.end();
            proc.kill('SIGTERM');
          },
        });
        return;
      }
      if (!ready || m.t === 'end') return;
      const answered = answer(m.line);
      if (!answered) return send({ c: m.c, close: true });
      void answered.then((r) => send({ c: m.c, line: JSON.stringify(r) }));
    };
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const raw = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let parsed: ReturnType<typeof relayOutSchema.safeParse>;
        try {
          parsed = relayOutSchema.safeParse(JSON.parse(raw));
        } catch {
          continue;
        }
        if (parsed.success) onMessage(parsed.data);
      }
      // More than a line may hold, escaped (a control character takes 6): the relay is not one.
      if (buffer.length > MAX_CHANNEL_LINE * 6 + 1024) fail(`its relay sent a line longer than ${MAX_CHANNEL_LINE * 6} characters`);
    });
  });
}
