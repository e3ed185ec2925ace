import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream, MemoryAcpCookieStore, type WebSocketConstructor, type WebSocketLike } from '@agentclientprotocol/sdk/experimental/ws-client';
import WebSocket from 'ws';
import { checkAgentUrl } from '../../../../shared/agent-url';
import type { AgentLog } from './agent-log';
import type { AgentLink, AgentLinkHandlers } from './agent-link';
import type { AgentExit, StdoutPause } from './agent-process';

export interface AgentSocketOptions {
  url: string;
  /** Sent as `Authorization: Bearer …`; null: none. */
  token: string | null;
  /** The largest message taken from the agent (bytes); a larger one closes the connection. */
  maxMessageBytes: number;
  /** How long opening the connection may take. */
  connectTimeoutMs: number;
  /** Affinity cookies kept across reconnects of one agent (the SDK's advice for v1 reconnects). */
  cookies?: MemoryAcpCookieStore;
}

const SOCKET_OPEN = 1;

/**
 * An agent reached over the network: ACP's draft WebSocket transport (`ws:`/`wss:`) or Streamable HTTP
 * (`http:`/`https:`), through the SDK's experimental clients. It stands where an agent's process stands:
 * the agent's messages come out as JSON lines, the client's go in as JSON lines, and the connection's end
 * is the "exit" (a sentence saying why: refused token, nothing listening, dropped). Reconnecting is the
 * supervisor's restart, which resumes or loads the sessions when the agent offers it.
 */
export class AgentSocket implements AgentLink {
  readonly pid = null;
  private exitInfo: AgentExit | null = null;
  private readonly exitWaiters: Array<(e: AgentExit) => void> = [];
  private readonly stream: Stream;
  private readonly writer: WritableStreamDefaultWriter<AnyMessage>;
  private readonly reader: ReadableStreamDefaultReader<AnyMessage>;
  private socket: WebSocket | null = null;
  private opened = false;
  private closeCode: number | null = null;
  private stopping = false;
  private readonly pauses = new Set<StdoutPause>();
  private readonly where: string;

  constructor(
    options: AgentSocketOptions,
    private readonly log: AgentLog,
    private readonly handlers: AgentLinkHandlers,
  ) {
    const check = checkAgentUrl(options.url);
    if (!check.ok) throw new Error(check.error);
    this.where = check.url.host;
    const headers: Record<string, string> = options.token ? { Authorization: `Bearer ${options.token}` } : {};
    const cookieStore = options.cookies ?? new MemoryAcpCookieStore();
    try {
      if (check.transport === 'websocket') {
        this.stream = createWebSocketStream(check.url.href, { headers, WebSocket: this.socketClass(options), cookieStore });
      } else {
        // A redirect would carry the token elsewhere: refused, as the WebSocket's are.
        const noRedirects: typeof fetch = (input, init) => fetch(input, { ...init, redirect: 'error' });
        this.stream = createHttpStream(check.url.href, { headers, cookieStore, fetch: noRedirects });
      }
    } catch (e) {
      // Refused before any connection (a header the socket will not send): reported as a failed connect.
      this.opened = false;
      this.stream = failedStream(e);
    }
    log.write('note', `connect ${check.url.origin}${check.url.pathname} (${check.transport}${options.token ? ', with a bearer token' : ''})`);
    this.writer = this.stream.writable.getWriter();
    this.reader = this.stream.readable.getReader();
    void this.read();
  }

  /** ws's WebSocket with this link's limits, remembered so that reading can be paused and the socket ended. */
  private socketClass(options: AgentSocketOptions): WebSocketConstructor {
    const created = (socket: WebSocket) => {
      this.socket = socket;
      socket.on('open', () => (this.opened = true));
      socket.on('close', (code) => (this.closeCode = code));
    };
    return class extends WebSocket {
      constructor(url: string, protocols?: string | string[], init?: { headers?: Record<string, string> }) {
        super(url, protocols, { headers: init?.headers, maxPayload: options.maxMessageBytes, handshakeTimeout: options.connectTimeoutMs, followRedirects: false });
        created(this);
      }
    } as unknown as WebSocketConstructor & (new (...a: never[]) => WebSocketLike);
  }

  get exit(): AgentExit | null {
    return this.exitInfo;
  }

  private async read(): Promise<void> {
    const reader = this.reader;
    let failure: unknown = null;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // Streamable HTTP has no handshake: the connection is open once the agent answered.
        this.opened = true;
        this.handlers.onStdout(Buffer.from(`${JSON.stringify(value)}\n`, 'utf8'));
      }
    } catch (e) {
      failure = e;
    }
    this.handlers.onStdoutEnd();
    this.finish(this.describeEnd(failure));
  }

  private describeEnd(failure: unknown): AgentExit {
    if (this.stopping) return { code: 0, signal: null, error: null };
    const e = failure as (Error & { code?: string; status?: unknown }) | null;
    const at = `the agent at ${this.where}`;
    // The WebSocket upgrade's status is in ws's message; Streamable HTTP's on the SDK's error.
    const status = typeof e?.status === 'number' ? String(e.status) : e ? /Unexpected server response: (\d+)/.exec(e.message)?.[1] : undefined;
    if (status === '401' || status === '403') {
      return { code: null, signal: null, error: `${at} refused the token (HTTP ${status}): check the token stored for this agent`, errorCode: 'ECONNECT' };
    }
    if (!this.opened) {
      let why: string;
      if (status) why = `${at} answered HTTP ${status} instead of opening the connection`;
      else if (e?.code === 'ECONNREFUSED') why = `nothing answers at ${this.where} (connection refused)`;
      else if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') why = `${this.where.replace(/:\d+$/, '')} could not be found`;
      else if (e && /handshake has timed out/i.test(e.message)) why = `${at} did not open the connection in time`;
      else if (e && /certificate|self.signed|CERT_/i.test(`${e.code ?? ''} ${e.message}`)) why = `the certificate of ${this.where} is not trusted (${e.message.slice(0, 200)})`;
      else why = `could not connect to ${at}${e ? `: ${e.message.slice(0, 300)}` : ''}`;
      return { code: null, signal: null, error: why, errorCode: 'ECONNECT' };
    }
    const code = this.closeCode !== null ? ` (close code ${this.closeCode})` : '';
    const detail = e ? `: ${e.message.slice(0, 300)}` : '';
    return { code: null, signal: null, error: `the connection to ${at} dropped${code}${detail}`, errorCode: 'EDROPPED' };
  }

  private finish(exit: AgentExit): void {
    if (this.exitInfo) return;
    this.exitInfo = exit;
    this.log.write('note', exit.error ?? 'disconnected');
    this.handlers.onExit(exit);
    for (const w of this.exitWaiters.splice(0)) w(exit);
  }

  write(data: string): Promise<void> {
    if (this.exitInfo) return Promise.reject(new Error('the connection to the agent is closed'));
    let last: Promise<void> = Promise.resolve();
    for (const line of data.split('\n')) {
      if (line.trim() === '') continue;
      last = this.writer.write(JSON.parse(line) as AnyMessage);
    }
    return last;
  }

  /** Sent now when the socket is open, else dropped (a `$/cancel_request` must not arrive late). */
  writeNowOrNever(data: string): void {
    if (this.exitInfo || (this.socket && this.socket.readyState !== SOCKET_OPEN)) return;
    this.write(data).catch(() => undefined);
  }

  pauseStdout(reason: StdoutPause): void {
    this.pauses.add(reason);
    this.socket?.pause();
  }

  resumeStdout(reason: StdoutPause): void {
    this.pauses.delete(reason);
    if (this.pauses.size === 0) this.socket?.resume();
  }

  waitForExit(): Promise<AgentExit> {
    if (this.exitInfo) return Promise.resolve(this.exitInfo);
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  /** Closes the connection; one that does not close within the grace period is cut. */
  async stop(graceMs = 2000): Promise<AgentExit> {
    if (this.exitInfo) return this.exitInfo;
    this.stopping = true;
    void this.writer.close().catch(() => undefined);
    const timer = setTimeout(() => {
      this.socket?.terminate();
      void this.reader.cancel().catch(() => undefined);
    }, graceMs);
    const exit = await this.waitForExit();
    clearTimeout(timer);
    return exit;
  }

  /** Cuts the connection as a network failure would (tests, and a socket left half-open). */
  cut(): void {
    this.socket?.terminate();
  }
}

/** A stream that fails at once with `error` (what a connection that could not even be attempted reads as). */
function failedStream(error: unknown): Stream {
  return {
    readable: new ReadableStream<AnyMessage>({ start: (c) => c.error(error) }),
    writable: new WritableStream<AnyMessage>({ write: () => Promise.reject(error instanceof Error ? error : new Error(String(error))) }),
  };
}
