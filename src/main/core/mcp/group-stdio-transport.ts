import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Host, HostProcess } from '../host/host';

const STDERR_TAIL = 4096;

/**
 * The MCP SDK's stdio framing (ReadBuffer, serializeMessage) on a process that leads its own process
 * group. The SDK's StdioClientTransport kills only its child, and only after seconds of grace: a server
 * started through a wrapper (npx, uvx, a shell script) would leave the real server running, and a check
 * must end at once when it times out.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: HostProcess | null = null;
  private readonly buffer = new ReadBuffer();
  private stderr = '';
  private closed = false;
  private killed = false;

  constructor(
    private readonly host: Host,
    private readonly launch: { command: string; args: string[]; env: Record<string, string>; cwd?: string | undefined },
  ) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The last few KiB the server wrote to stderr (for error messages). */
  stderrTail(): string {
    return this.stderr.trim();
  }

  async start(): Promise<void> {
    const child = this.host.spawn([this.launch.command, ...this.launch.args], { ...(this.launch.cwd ? { cwd: this.launch.cwd } : {}), env: this.launch.env });
    this.child = child;
    void child.closed.then(() => this.finish());
    child.stdin.on('error', (e) => this.onerror?.(e));
    child.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (e) {
          this.onerror?.(e as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => {
      this.stderr = (this.stderr + s).slice(-STDERR_TAIL);
    });
    try {
      await child.started;
    } catch (e) {
      this.onerror?.(e as Error);
      throw e;
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return Promise.reject(new Error('the MCP server is not running'));
    return new Promise((resolve) => {
      if (child.stdin.write(serializeMessage(message))) resolve();
      else child.stdin.once('drain', resolve);
    });
  }

  /** Ends the server and everything it started: SIGKILL to its process group. */
  close(): Promise<void> {
    // The group may outlive its leader (a wrapper that exited, leaving the server): killed either way.
    if (this.child && !this.killed) {
      this.killed = true;
      this.child.dispose();
    }
    this.finish();
    return Promise.resolve();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}
