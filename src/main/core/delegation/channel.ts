import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { channelRequestSchema, MAX_CHANNEL_LINE, type ChannelResponse } from '../../../shared/delegation';
import type { Disposable } from '../base/lifecycle';
import { onSocketLines } from './socket-lines';

/** Answers one tool call of session `sessionId` (the text, or throws the sentence saying why not). */
export type ChannelHandler = (sessionId: string, tool: string, args: unknown) => Promise<string>;

/** A refusal whose message is said to the agent as it is. */
export class DelegationRefusal extends Error {}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * The per-session channel between the delegation MCP server processes and the main process: a unix socket in a
 * folder only this user can enter (a named pipe on Windows). Each line is a request carrying its session's
 * secret; the secret, not anything the agent says, names the session. A line too long, not JSON or not of the
 * request's shape closes the connection.
 */
export class DelegationChannel implements Disposable {
  readonly path: string;
  private readonly dir: string | null;
  private readonly server: Server;
  private readonly secrets = new Map<string, { digest: Buffer; sessionId: string }>();
  private readonly sockets = new Set<Socket>();
  private listening: Promise<void>;

  constructor(private readonly handle: ChannelHandler) {
    if (process.platform === 'win32') {
      this.dir = null;
      this.path = `\\\\.\\pipe\\switchboard-delegation-${randomBytes(12).toString('hex')}`;
    } else {
      // A short path (a socket's path holds ~100 bytes), in a folder of this user's alone.
      this.dir = mkdtempSync(join(tmpdir(), 'sb-dlg-'));
      chmodSync(this.dir, 0o700);
      this.path = join(this.dir, 's');
    }
    this.server = createServer((socket) => this.accept(socket));
    this.listening = new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.path, () => resolve());
    });
    this.listening.catch(() => {});
  }

  ready(): Promise<void> {
    return this.listening;
  }

  /** A new secret for the session (its earlier one stops working). */
  issue(sessionId: string): string {
    this.revoke(sessionId);
    const secret = randomBytes(32).toString('base64url');
    this.secrets.set(secret.slice(0, 8), { digest: digest(secret), sessionId });
    return secret;
  }

  revoke(sessionId: string): void {
    for (const [k, v] of this.secrets) if (v.sessionId === sessionId) this.secrets.delete(k);
  }

  private sessionOf(secret: string): string | null {
    const known = this.secrets.get(secret.slice(0, 8));
    return known && timingSafeEqual(known.digest, digest(secret)) ? known.sessionId : null;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    onSocketLines(socket, (line) => this.line(socket, line));
  }

  /** false: the line is not a request; the connection is dropped. */
  private line(socket: Socket, line: string): boolean {
    const answered = this.answer(line);
    if (!answered) return false;
    void answered.then((r) => void (socket.destroyed || socket.write(`${JSON.stringify(r)}\n`)));
    return true;
  }

  /**
   * The answer to one line of a delegation server, wherever it came from (this machine's socket, or a relay on an
   * SSH host or in a container: relay-link.ts); null when the line is not a request (its connection is dropped).
   */
  answer(line: string): Promise<ChannelResponse> | null {
    if (line.length > MAX_CHANNEL_LINE) return null;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return null;
    }
    const parsed = channelRequestSchema.safeParse(raw);
    if (!parsed.success) return null;
    const { id, secret, tool, args } = parsed.data;
    const sessionId = this.sessionOf(secret);
    if (!sessionId) return Promise.resolve({ id, ok: false, text: 'Refused: this delegation server is no longer valid (its session ended).' });
    return this.handle(sessionId, tool, args).then(
      (text): ChannelResponse => ({ id, ok: true, text }),
      (e: unknown): ChannelResponse => ({ id, ok: false, text: e instanceof DelegationRefusal ? e.message : `Failed: ${e instanceof Error ? e.message : String(e)}` }),
    );
  }

  async dispose(): Promise<void> {
    this.secrets.clear();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}
