import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentLog } from '../../../src/main/core/acp/connection/agent-log';
import { AgentProcess } from '../../../src/main/core/acp/connection/agent-process';
import type { HostProcess, ProcessExit } from '../../../src/main/core/host/host';
import { LocalHost } from '../../../src/main/core/host/local/local-host';

const dir = mkdtempSync(join(tmpdir(), 'sb-in-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A process with no process behind it: what the agent "writes" is produced in this process. The Host port
 * asks no more of a process than this, so an in-process stand-in agent plugs in at the spawn seam.
 */
class EchoProcess implements HostProcess {
  readonly pid = null;
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly started = Promise.resolve();
  readonly exited: Promise<ProcessExit>;
  readonly closed: Promise<ProcessExit>;
  private end!: (exit: ProcessExit) => void;

  constructor() {
    this.exited = new Promise((resolve) => (this.end = resolve));
    this.closed = this.exited;
    this.stdin.on('data', (line: Buffer) => this.stdout.write(`echo ${line.toString()}`));
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.stdout.end();
    this.stderr.end();
    this.end({ code: null, signal, error: null });
  }

  dispose(): void {
    this.kill('SIGKILL');
  }
}

/** This machine, except that spawning gives an in-process echo. */
class EchoHost extends LocalHost {
  override spawn(): HostProcess {
    return new EchoProcess();
  }
}

describe('an in-process process behind the Host port', () => {
  it('drives an AgentProcess like a real one: stdin, stdout, stop and exit', async () => {
    const out: string[] = [];
    let exitSeen: ProcessExit | null = null;
    const log = new AgentLog(join(dir, 'agent.log'));
    const proc = new AgentProcess(new EchoHost(), { command: 'in-process', args: [], env: {}, cwd: dir }, log, {
      onStdout: (chunk) => out.push(chunk.toString()),
      onStdoutEnd: () => undefined,
      onExit: (exit) => (exitSeen = exit),
    });
    expect(proc.pid).toBeNull();
    await proc.write('hello\n');
    await new Promise((r) => setImmediate(r));
    expect(out.join('')).toBe('echo hello\n');
    const exit = await proc.stop(1000);
    expect(exit).toEqual({ code: null, signal: 'SIGTERM', error: null });
    expect(exitSeen).toEqual(exit);
    await expect(proc.write('late\n')).rejects.toThrow(/not running/);
    log.dispose();
  });
});
