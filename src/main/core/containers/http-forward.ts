/**
 * Plain HTTP through the `api` network's proxy (api-proxy.ts): a request in absolute form
 * (`GET http://host:port/path HTTP/1.1`) is sent on to its host when the allow-list names it, as origin form,
 * one request per connection. What is sent is what was understood, never the client's bytes as they came:
 *   - the target's authority decides; a Host header naming anything else is refused (403), as is a target
 *     that is not on the list, an address the list does not name, or userinfo;
 *   - a body is framed by one Content-Length or by `Transfer-Encoding: chunked`, never both, never two
 *     lengths, never another coding (400, 501): the same bytes cannot be read as two requests here and there;
 *   - hop-by-hop headers (Connection and what it names, Keep-Alive, Proxy-*, TE, Trailer, Upgrade) are
 *     dropped both ways; `Connection: close` is sent both ways;
 *   - heads are bounded (request 8 KiB, 100 fields; response 64 KiB), as are chunk-size lines.
 */
import type { Socket } from 'node:net';
import { connectWithin, REFUSAL_LINGER_MS } from './proxy-limits';

export const MAX_REQUEST_HEAD = 8192;
const MAX_FIELDS = 100;
const MAX_RESPONSE_HEAD = 64 * 1024;
const MAX_CHUNK_LINE = 1024;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

export interface RequestHead {
  method: string;
  target: string;
  version: 'HTTP/1.0' | 'HTTP/1.1';
  /** In order, as sent (names as written). */
  fields: Array<[string, string]>;
}

/** Why a request is not sent on: the status and a sentence for the client. */
export class Refusal extends Error {
  constructor(
    readonly status: 400 | 403 | 431 | 501 | 502,
    message: string,
  ) {
    super(message);
  }
}

/** The request line and fields of a head (without its final CRLF CRLF), strictly: anything else is a 400. */
export function parseRequestHead(text: string): RequestHead {
  const lines = text.split('\r\n');
  if (lines.some((l) => l.includes('\r') || l.includes('\n') || l.includes('\0'))) throw new Refusal(400, 'a bare CR, LF or NUL in the request head');
  const parts = lines[0]!.split(' ');
  if (parts.length !== 3 || !TOKEN.test(parts[0]!) || !parts[1]) throw new Refusal(400, 'not an HTTP request line');
  const version = parts[2];
  if (version !== 'HTTP/1.1' && version !== 'HTTP/1.0') throw new Refusal(400, 'only HTTP/1.0 and HTTP/1.1 are spoken here');
  const fields: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    if (line === '') throw new Refusal(400, 'an empty line inside the request head');
    // Folded lines (obs-fold) and a space before the colon are ways to be read two ways: refused.
    if (line[0] === ' ' || line[0] === '\t') throw new Refusal(400, 'a folded header line');
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    if (!TOKEN.test(name)) throw new Refusal(400, 'a malformed header line');
    fields.push([name, line.slice(colon + 1).trim()]);
    if (fields.length > MAX_FIELDS) throw new Refusal(431, `more than ${MAX_FIELDS} header fields`);
  }
  return { method: parts[0]!, target: parts[1]!, version, fields };
}

/** host and port of an authority (`name`, `name:port`, `[v6]:port`); null when it is not one. */
export function parseAuthority(authority: string, defaultPort: number): { host: string; port: number } | null {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(authority);
  if (!m) return null;
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  if (!(port > 0 && port < 65536)) return null;
  return { host: m[1]!.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, ''), port };
}

export interface ForwardPlan {
  host: string;
  port: number;
  /** The head sent upstream, with its final CRLF CRLF. */
  head: string;
  /** How the body is framed: its length, chunked, or none. */
  body: { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'none' };
}

/** What to send for an absolute-form request, or a Refusal saying why not. */
export function planForward(req: RequestHead, allowed: (host: string, port: number) => boolean): ForwardPlan {
  const m = /^http:\/\/([^/?#\s]*)([/?][^#\s]*)?$/i.exec(req.target);
  if (!m) throw new Refusal(400, 'only absolute http:// targets (and CONNECT) are forwarded');
  if (m[1]!.includes('@')) throw new Refusal(403, 'a target with userinfo is refused');
  const target = parseAuthority(m[1]!, 80);
  if (!target) throw new Refusal(400, 'not a host in the target');
  if (!allowed(target.host, target.port)) throw new Refusal(403, `${target.host}:${target.port} is not on the allow-list`);
  const path = !m[2] ? '/' : m[2].startsWith('?') ? `/${m[2]}` : m[2];
  const named = (n: string) => req.fields.filter(([k]) => k.toLowerCase() === n);
  const hosts = named('host');
  if (hosts.length > 1) throw new Refusal(400, 'more than one Host header');
  if (hosts.length === 1) {
    const said = parseAuthority(hosts[0]![1], 80);
    if (!said || said.host !== target.host || said.port !== target.port) throw new Refusal(403, `the Host header names another host than the target (${target.host}:${target.port})`);
  }
  const lengths = named('content-length');
  const codings = named('transfer-encoding');
  if (lengths.length > 0 && codings.length > 0) throw new Refusal(400, 'both Content-Length and Transfer-Encoding');
  if (lengths.length > 1 || (lengths.length === 1 && !/^\d{1,15}$/.test(lengths[0]![1]))) throw new Refusal(400, 'a Content-Length that is not one number');
  if (codings.length > 1 || (codings.length === 1 && codings[0]![1].toLowerCase() !== 'chunked')) throw new Refusal(501, 'a Transfer-Encoding other than chunked');
  if (codings.length === 1 && req.version === 'HTTP/1.0') throw new Refusal(400, 'Transfer-Encoding in an HTTP/1.0 request');
  const body: ForwardPlan['body'] = codings.length === 1 ? { kind: 'chunked' } : lengths.length === 1 && Number(lengths[0]![1]) > 0 ? { kind: 'length', length: Number(lengths[0]![1]) } : { kind: 'none' };
  const dropped = hopByHop(req.fields);
  const fields = req.fields.filter(([k]) => !dropped.has(k.toLowerCase()) && k.toLowerCase() !== 'host');
  const authority = target.port === 80 ? hostText(target.host) : `${hostText(target.host)}:${target.port}`;
  const lines = [`${req.method} ${path} HTTP/1.1`, `Host: ${authority}`, ...fields.map(([k, v]) => `${k}: ${v}`), ...(body.kind === 'chunked' ? ['Transfer-Encoding: chunked'] : []), 'Connection: close'];
  return { host: target.host, port: target.port, head: `${lines.join('\r\n')}\r\n\r\n`, body };
}

/** The hop-by-hop fields of a head: the standard ones and those its Connection header names. */
function hopByHop(fields: ReadonlyArray<[string, string]>): Set<string> {
  const names = new Set(HOP_BY_HOP);
  for (const [k, v] of fields) if (k.toLowerCase() === 'connection') for (const n of v.split(',')) names.add(n.trim().toLowerCase());
  return names;
}

function hostText(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Answers a refusal and closes the connection (at once when the client closes its side, else after a linger). */
export function refuse(client: Socket, status: number, message: string): void {
  const reason = { 400: 'Bad Request', 403: 'Forbidden', 408: 'Request Timeout', 431: 'Request Header Fields Too Large', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' }[status] ?? 'Error';
  const body = `Switchboard's fence: ${message}\n`;
  client.setTimeout(REFUSAL_LINGER_MS, () => client.destroy());
  client.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * Sends one plain-HTTP request on (`rest`: what came after its head) and its answer back, then closes both.
 * Nothing of what the client sends after the request's body is read.
 */
export function forwardHttp(client: Socket, req: RequestHead, rest: Buffer, allowed: (host: string, port: number) => boolean, connectMs: number): void {
  let plan: ForwardPlan;
  try {
    plan = planForward(req, allowed);
  } catch (e) {
    if (e instanceof Refusal) return refuse(client, e.status, e.message);
    throw e;
  }
  client.pause();
  let answered = false;
  const onConnect = () => {
    upstream.write(plan.head);
    const body = bodyFramer(plan.body, (chunk) => upstream.write(chunk), () => client.pause(), (message) => {
      upstream.destroy();
      if (!answered) refuse(client, 400, message);
      else client.destroy();
    });
    const take = (chunk: Buffer) => {
      if (!body.take(chunk)) {
        client.off('data', take);
        client.pause();
      }
    };
    if (rest.length > 0) take(rest);
    if (!body.done) {
      client.on('data', take);
      client.resume();
    }
  };
  const upstream = connectWithin(plan.port, plan.host, connectMs, onConnect, () => refuse(client, 504, `${plan.host}:${plan.port} did not answer within ${connectMs / 1000} s`));
  upstream.on('drain', () => client.resume());
  const response = responseRelay(client, req.method, {
    started: () => (answered = true),
    finished: () => {
      upstream.destroy();
      client.end();
    },
    bad: (message) => {
      upstream.destroy();
      if (!answered) refuse(client, 502, message);
      else client.destroy();
    },
  });
  upstream.on('data', (chunk: Buffer) => response(chunk));
  upstream.on('end', () => (answered ? client.end() : refuse(client, 502, 'the upstream closed before it answered')));
  upstream.on('error', (e) => (answered ? client.destroy() : refuse(client, 502, e.message)));
  client.on('close', () => upstream.destroy());
}

interface Framer {
  /** Passes on what belongs to the body; false once it is complete (what follows is not read). */
  take(chunk: Buffer): boolean;
  readonly done: boolean;
}

/** Passes a request body on as framed, exactly, and stops at its end; `bad` when the chunked framing is broken. */
function bodyFramer(framing: ForwardPlan['body'], write: (chunk: Buffer) => boolean, full: () => void, bad: (message: string) => void): Framer {
  let left = framing.kind === 'length' ? framing.length : 0;
  let done = framing.kind === 'none';
  // Chunked: the state, the line read so far, and the data bytes still owed of the current chunk.
  let state: 'size' | 'data' | 'data-crlf' | 'trailer' = 'size';
  let line = '';
  let trailerBytes = 0;
  const send = (b: Buffer) => {
    if (b.length > 0 && !write(b)) full();
  };
  const chunked = (chunk: Buffer): boolean => {
    let i = 0;
    const start = i;
    while (i < chunk.length && !done) {
      if (state === 'data') {
        const n = Math.min(left, chunk.length - i);
        i += n;
        left -= n;
        if (left === 0) state = 'data-crlf';
        continue;
      }
      const c = chunk[i++]!;
      line += String.fromCharCode(c);
      if (line.length > MAX_CHUNK_LINE || (state === 'trailer' && ++trailerBytes > MAX_REQUEST_HEAD)) {
        bad('a chunk-size or trailer line too long');
        return false;
      }
      if (!line.endsWith('\r\n')) {
        if (c === 0x0a) {
          bad('a bare LF in the chunked body');
          return false;
        }
        continue;
      }
      const text = line.slice(0, -2);
      line = '';
      if (state === 'data-crlf') {
        if (text !== '') {
          bad('a chunk longer than its size');
          return false;
        }
        state = 'size';
      } else if (state === 'size') {
        const m = /^([0-9A-Fa-f]{1,12})(;[\t -~]*)?$/.exec(text);
        if (!m) {
          bad('a malformed chunk size');
          return false;
        }
        left = parseInt(m[1]!, 16);
        state = left === 0 ? 'trailer' : 'data';
      } else if (text === '') {
        done = true;
      } else if (text.includes('\r') || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/.test(text)) {
        bad('a malformed trailer');
        return false;
      }
    }
    send(chunk.subarray(start, i));
    return !done;
  };
  return {
    take(chunk) {
      if (done) return false;
      if (framing.kind === 'chunked') return chunked(chunk);
      const n = Math.min(left, chunk.length);
      send(chunk.subarray(0, n));
      left -= n;
      done = left === 0;
      return !done;
    },
    get done() {
      return done;
    },
  };
}

/**
 * The upstream's answer to the client: each head (1xx ones, then the final one) bounded, parsed and sent again
 * without hop-by-hop fields (Transfer-Encoding stays: the body goes as it came) and with `Connection: close`;
 * then the body, as framed (to its length, its last chunk, or the upstream's close), after which `finished`.
 * `started` once the final head went; `bad` when a head is too long or malformed.
 */
function responseRelay(client: Socket, method: string, on: { started: () => void; finished: () => void; bad: (message: string) => void }): (chunk: Buffer) => void {
  let head: Buffer | null = Buffer.alloc(0);
  let body: Framer | null = null;
  const pass = (chunk: Buffer) => {
    if (!body) return void client.write(chunk);
    if (!body.take(chunk) || body.done) on.finished();
  };
  return (chunk) => {
    if (head === null) return pass(chunk);
    head = Buffer.concat([head, chunk]);
    for (;;) {
      const end = head.indexOf('\r\n\r\n');
      if (end < 0 || end > MAX_RESPONSE_HEAD) {
        if (head.length > MAX_RESPONSE_HEAD) on.bad("the upstream's response head is too long");
        return;
      }
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0]!);
      if (!status) return on.bad('the upstream did not answer in HTTP/1.x');
      const fields = lines.slice(1).map((l): [string, string] => [l.slice(0, Math.max(0, l.indexOf(':'))), l.slice(l.indexOf(':') + 1).trim()]);
      const dropped = hopByHop(fields);
      dropped.delete('transfer-encoding');
      const kept = lines.slice(1).filter((_, i) => !dropped.has(fields[i]![0].toLowerCase()));
      const code = Number(status[1]);
      const interim = code >= 100 && code < 200 && code !== 101;
      client.write(`${[lines[0], ...kept, ...(interim ? [] : ['Connection: close'])].join('\r\n')}\r\n\r\n`, 'latin1');
      const rest = head.subarray(end + 4);
      if (interim) {
        head = rest;
        continue;
      }
      head = null;
      on.started();
      const value = (n: string) => fields.filter(([k]) => k.toLowerCase() === n).map(([, v]) => v);
      const codings = value('transfer-encoding').join(',').toLowerCase();
      const length = value('content-length');
      const framing: ForwardPlan['body'] | null =
        method === 'HEAD' || code === 204 || code === 304 ? { kind: 'none' }
        : codings ? (/(^|,)\s*chunked\s*$/.test(codings) ? { kind: 'chunked' } : null)
        : length.length === 1 && /^\d{1,15}$/.test(length[0]!) ? { kind: 'length', length: Number(length[0]) }
        : null;
      // Without a framing (a body to the upstream's close, or one not understood) it goes as it comes.
      if (framing) body = bodyFramer(framing, (b) => client.write(b), () => undefined, (message) => on.bad(message));
      if (body?.done) return on.finished();
      if (rest.length > 0) pass(rest);
      return;
    }
  };
}
