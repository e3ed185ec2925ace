/**
 * The bounds of the `api` network's proxy (proxy-connection.ts), against what a container's programs can do to
 * it: they are untrusted, and without these a client that never finishes its request head, a tunnel left open,
 * or an upstream that never answers would hold a socket for as long as the session lives.
 */
import { connect, type Socket } from 'node:net';

export interface ProxyLimits {
  /** A complete request head must have come within this from the connection's start (slow-loris), else 408. */
  headMs: number;
  /** A connection (tunnel, forwarded request, refusal) with no byte either way for this long is closed. */
  idleMs: number;
  /** The upstream must accept the connection within this (resolution included), else 504. */
  connectMs: number;
  /** Client connections served at once by one proxy; beyond, a new one is answered 503 and closed. */
  maxConnections: number;
}

export const HEAD_TIMEOUT_MS = 30_000;
/**
 * Ten minutes without one byte either way. An agent's streamed reply sends its tokens, and an SSE stream with
 * nothing to say sends keep-alives (Anthropic's `ping` events, comment lines) every few seconds: each resets
 * this. A non-streamed reply that thinks longer than this is past what the providers' own SDKs wait (their
 * default timeout is ten minutes), so the proxy never cuts what the client would still have waited for.
 */
export const IDLE_TIMEOUT_MS = 10 * 60_000;
export const CONNECT_TIMEOUT_MS = 30_000;
/** An agent and its tools open a few dozen connections at most; a container opening hundreds is not an agent. */
export const MAX_CLIENT_CONNECTIONS = 256;
/** How long a refused connection stays open for its client to read the answer and close its side. */
export const REFUSAL_LINGER_MS = 5_000;

export const PROXY_LIMITS: Readonly<ProxyLimits> = { headMs: HEAD_TIMEOUT_MS, idleMs: IDLE_TIMEOUT_MS, connectMs: CONNECT_TIMEOUT_MS, maxConnections: MAX_CLIENT_CONNECTIONS };

/** The limits with `overrides` (tests) taken over, each a positive whole number. */
export function proxyLimits(overrides: Partial<ProxyLimits> = {}): ProxyLimits {
  const limits = { ...PROXY_LIMITS, ...overrides };
  for (const [k, v] of Object.entries(limits)) if (!Number.isSafeInteger(v) || v <= 0) throw new Error(`the proxy's ${k} must be a positive whole number`);
  return limits;
}

/**
 * Connects to the upstream; `timedOut` (once the attempt is given up and the socket destroyed) when it has
 * not connected within `ms`.
 */
export function connectWithin(port: number, host: string, ms: number, connected: () => void, timedOut: () => void): Socket {
  const upstream = connect(port, host, () => {
    clearTimeout(timer);
    connected();
  });
  const timer = setTimeout(() => {
    upstream.destroy();
    timedOut();
  }, ms);
  upstream.on('close', () => clearTimeout(timer));
  return upstream;
}
