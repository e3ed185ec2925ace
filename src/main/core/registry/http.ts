import { createWriteStream } from 'node:fs';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { FileRefusal, openRegularFile } from '../platform/regular-file';
import { CancelledError, NetworkError, RegistryError } from './errors';

export interface HttpGetOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Fails when nothing arrives for this long: connecting, waiting for the answer, or between chunks. */
  idleTimeoutMs: number;
  maxRedirects?: number;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
  /** After redirects. */
  url: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Short words for what went wrong on the wire, for messages the user reads. */
export function describeNetworkFailure(e: unknown): string {
  const err = e as NodeJS.ErrnoException & { cause?: unknown };
  switch (err?.code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'the connection was reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host was not found (offline?)';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return 'the connection closed before the end';
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return `the server's certificate was not accepted (${err.code})`;
    default:
      return err?.message || String(e);
  }
}

const redact = (url: string): string => {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url.slice(0, 300);
  }
};

/**
 * GET over http(s) with redirects (to http(s) only), an idle timeout and cancellation. Resolves with
 * the response of any status; the caller reads or discards the body.
 */
export function httpGet(url: string, options: HttpGetOptions, redirectsLeft = options.maxRedirects ?? 5): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      reject(new RegistryError('invalid_params', `not a URL: ${url.slice(0, 300)}`));
      return;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      reject(new RegistryError('forbidden', `only http(s) URLs can be downloaded, not ${parsed.protocol} (${redact(url)})`));
      return;
    }
    const { signal } = options;
    if (signal?.aborted) {
      reject(new CancelledError());
      return;
    }
    const lib = parsed.protocol === 'https:' ? https : http;
    const req = lib.request(parsed, {
      method: 'GET',
      headers: { 'user-agent': 'Switchboard', 'accept-encoding': 'identity', ...options.headers },
    });
    let settled = false;
    const onAbort = () => req.destroy(new CancelledError());
    signal?.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => signal?.removeEventListener('abort', onAbort);
    req.setTimeout(options.idleTimeoutMs, () => {
      req.destroy(
        Object.assign(new Error(`no answer for ${Math.round(options.idleTimeoutMs / 1000)} s`), { code: 'SWITCHBOARD_TIMEOUT' }),
      );
    });
    req.on('error', (e) => {
      cleanup();
      if (settled) return;
      settled = true;
      if (e instanceof CancelledError) reject(e);
      else if ((e as NodeJS.ErrnoException).code === 'SWITCHBOARD_TIMEOUT') reject(new NetworkError(`${redact(url)} timed out: ${e.message}`));
      else reject(new NetworkError(`could not reach ${redact(url)}: ${describeNetworkFailure(e)}`));
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status) && res.headers.location) {
        res.resume();
        settled = true;
        cleanup();
        if (redirectsLeft <= 0) {
          reject(new NetworkError(`too many redirects from ${redact(url)}`, status));
          return;
        }
        const next = new URL(res.headers.location, parsed).toString();
        httpGet(next, options, redirectsLeft - 1).then(resolve, reject);
        return;
      }
      settled = true;
      // Errors on the body (reset, timeout, cancel) now surface on the body stream.
      res.on('close', cleanup);
      req.on('error', (e) => res.destroy(e));
      resolve({ status, statusText: res.statusMessage ?? '', headers: res.headers, body: res, url });
    });
    req.end();
  });
}

/** Maps a body-stream error to a readable one. */
export function bodyError(e: unknown, url: string): Error {
  if (e instanceof CancelledError || e instanceof RegistryError) return e;
  if ((e as NodeJS.ErrnoException).code === 'SWITCHBOARD_TIMEOUT') return new NetworkError(`${redact(url)} timed out: ${(e as Error).message}`);
  const msg = (e as Error)?.message === 'aborted' ? 'the connection was reset' : describeNetworkFailure(e);
  return new NetworkError(`the download of ${redact(url)} broke off: ${msg}`);
}

export const statusError = (res: { status: number; statusText: string; url: string }): NetworkError =>
  new NetworkError(`${redact(res.url)} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, res.status);

/** Reads a whole body, refusing more than maxBytes. */
export async function readBody(body: Readable, url: string, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        body.destroy();
        throw new RegistryError('agent_error', `${redact(url)} is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    throw bodyError(e, url);
  }
  return Buffer.concat(chunks);
}

export interface DownloadOptions {
  signal?: AbortSignal;
  idleTimeoutMs: number;
  maxBytes: number;
  /** May a file: URL be read? Only when the registry itself came from a file. */
  allowFile: boolean;
  onProgress?: (done: number, total: number | null) => void;
}

/** Downloads url into file (created/overwritten), with progress and a size cap. */
export async function downloadTo(url: string, file: string, options: DownloadOptions): Promise<{ bytes: number }> {
  let source: Readable;
  let total: number | null = null;
  if (url.startsWith('file:')) {
    if (!options.allowFile) throw new RegistryError('forbidden', `a file: URL is only allowed when the registry itself is a local file (${redact(url)})`);
    const path = fileURLToPath(url);
    try {
      const { fh, info } = await openRegularFile(path);
      total = info.size;
      source = fh.createReadStream();
    } catch (e) {
      throw new NetworkError(`cannot read ${path}: ${e instanceof FileRefusal ? e.message : describeNetworkFailure(e)}`);
    }
  } else {
    const res = await httpGet(url, { signal: options.signal, idleTimeoutMs: options.idleTimeoutMs });
    if (res.status !== 200) {
      res.body.resume();
      throw statusError(res);
    }
    const length = Number(res.headers['content-length']);
    total = Number.isFinite(length) && length >= 0 ? length : null;
    source = res.body;
  }
  if (total !== null && total > options.maxBytes) {
    source.destroy();
    throw new RegistryError('agent_error', `the archive is ${total} bytes, more than the limit of ${options.maxBytes}`);
  }
  let done = 0;
  options.onProgress?.(0, total);
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      done += chunk.length;
      if (done > options.maxBytes) {
        cb(new RegistryError('agent_error', `the archive is larger than the limit of ${options.maxBytes} bytes`));
        return;
      }
      options.onProgress?.(done, total);
      cb(null, chunk);
    },
  });
  const onAbort = () => source.destroy(new CancelledError());
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (options.signal?.aborted) throw new CancelledError();
    await pipeline(source, counter, createWriteStream(file));
  } catch (e) {
    throw bodyError(e, url);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  if (total !== null && done !== total) throw new NetworkError(`the download of ${redact(url)} broke off (${done} of ${total} bytes)`);
  return { bytes: done };
}
