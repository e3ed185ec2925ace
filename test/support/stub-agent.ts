import { PassThrough, Readable, Writable } from 'node:stream';
import { ndJsonStream, type AgentApp } from '@agentclientprotocol/sdk/unstable';
import type { HostProcess, ProcessExit, SpawnOptions } from '../../src/main/core/host/host';
import { Hosts } from '../../src/main/core/host/hosts';
import { LocalHost } from '../../src/main/core/host/local/local-host';

/**
 * An ACP agent in this process, on the wire seam (Zed's StubAgentConnection is the model): the SDK's agent
 * side over in-memory streams, handed to the runtime by a Host's `spawn` where a real agent's process would
 * be. The client side is the real one (wire tap, flood guard, read-ahead, session layer, store): only the
 * subprocess is gone, so session, restore, elicitation, fork and permission tests take milliseconds.
 */

/** The command line a stub agent is added with: `[STUB_COMMAND, name]`. */
export const STUB_COMMAND = 'switchboard-stub-agent';

/** The in-process stand-in for an agent's process. */
export class StubAgentProcess implements HostProcess {
  readonly pid = null;
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly started = Promise.resolve();
  readonly exited: Promise<ProcessExit>;
  readonly closed: Promise<ProcessExit>;
  private end!: (exit: ProcessExit) => void;
  private ended = false;

  constructor(
    app: AgentApp,
    /** What it was started with (the launch the runtime built: folder and environment). */
    readonly options: SpawnOptions,
  ) {
    this.exited = new Promise((resolve) => (this.end = resolve));
    this.closed = this.exited.then(async (exit) => {
      if (!this.stdout.closed) await new Promise((r) => this.stdout.once('close', r));
      return exit;
    });
    const connection = app.connect(
      ndJsonStream(Writable.toWeb(this.stdout) as WritableStream<Uint8Array>, Readable.toWeb(this.stdin) as ReadableStream<Uint8Array>),
    );
    // stdin's end (the client stopping it) ends the connection, and the agent "exits".
    void connection.closed.then(() => this.finish({ code: 0, signal: null, error: null }));
  }

  /** Like a real process: any signal ends it (a stub has nothing to clean up in a group). */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.finish({ code: null, signal, error: null });
  }

  dispose(): void {
    this.kill('SIGKILL');
  }

  /** The agent crashes: its output ends where it is, as a killed process's does. */
  crash(): void {
    this.kill('SIGKILL');
  }

  private finish(exit: ProcessExit): void {
    if (this.ended) return;
    this.ended = true;
    this.stdin.destroy();
    this.stdout.end();
    this.stderr.end();
    this.stdout.resume();
    this.end(exit);
  }
}

/**
 * This machine, except that `spawn` starts the stub agents it was told of (`[STUB_COMMAND, name]`) in this
 * process. `hosts` is what AppCore takes (CoreOptions.hosts).
 */
export class StubAgentHost extends LocalHost {
  private readonly apps = new Map<string, () => AgentApp>();
  /** Every stub process started, newest last. */
  readonly started: StubAgentProcess[] = [];
  readonly hosts = new Hosts(this);

  /** Registers an agent (a fresh app for each process) and returns the command line to add it with. */
  define(name: string, build: () => AgentApp): { command: string; args: string[] } {
    this.apps.set(name, build);
    return { command: STUB_COMMAND, args: [name] };
  }

  override spawn(argv: readonly string[], options: SpawnOptions): HostProcess {
    if (argv[0] !== STUB_COMMAND) return super.spawn(argv, options);
    const build = this.apps.get(argv[1] ?? '');
    if (!build) throw new Error(`no stub agent "${argv[1]}"`);
    const proc = new StubAgentProcess(build(), options);
    this.started.push(proc);
    return proc;
  }
}
