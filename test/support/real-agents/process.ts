// Runs an agent (see agents.ts) as a child process speaking ACP over stdio, in its own process group so the
// whole tree can be ended (some agents ignore stdin EOF; wrappers leave grandchildren holding the pipes).

import { type ChildProcess, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream, type Stream } from '@agentclientprotocol/sdk';
import type { AgentLaunch } from './agents.js';

export interface AgentProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** ACP stream over the child's stdin/stdout, for `client(...).connectWith(stream, …)`. */
  readonly stream: Stream;
  /** Everything the agent wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code/signal once the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM the process group, SIGKILL it after `graceMs`; resolves once the leader exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnAgentOptions {
  cwd: string;
  /** Called with each stderr chunk (e.g. to echo while debugging). */
  onStderr?: (text: string) => void;
  /** Cap on kept stderr, in characters (the tail is kept). Default 1 MB. */
  maxStderr?: number;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // group already gone
  }
}

export function spawnAgentProcess(launch: AgentLaunch, opts: SpawnAgentOptions): AgentProcess {
  const child = spawn(launch.command, launch.args, {
    cwd: opts.cwd,
    env: launch.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true, // own process group
  });
  if (child.pid === undefined) throw new Error(`could not spawn ${launch.command}`);
  const pid = child.pid;
  const max = opts.maxStderr ?? 1_000_000;
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    stderr = (stderr + text).slice(-max);
    opts.onStderr?.(text);
  });
  // A peer that closes its stdin early must not crash the test process with EPIPE.
  child.stdin!.on('error', () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin!) as unknown as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
  );
  return {
    child,
    pid,
    stream,
    stderr: () => stderr,
    exited,
    async stop(graceMs = 3_000) {
      killGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      // The leader is gone; make sure no grandchild of the group survives either.
      killGroup(pid, 'SIGKILL');
    },
  };
}
