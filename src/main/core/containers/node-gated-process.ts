/**
 * An agent started behind the node gate (node-check.ts): the process as it is, but an exit of the gate's (its own
 * exit codes; the version it printed, when that came through) is told as the error naming what the image lacks ("this image has no node: …"),
 * so the start fails with that sentence, as a separate check before it used to say. Its stdout ends after
 * that exit is known.
 */
import { Transform, type Readable, type Writable } from 'node:stream';
import type { HostProcess, ProcessExit } from '../host/host';
import { isNodeGateExit, NODE_GATE_MARKER, nodeGateError } from './node-check';

/** The gate's line comes near the start (after whatever the engine printed first): only this much of stderr's head is kept to read it. */
const HEAD_BYTES = 4096;

export class NodeGatedProcess implements HostProcess {
  readonly stdout: Readable;
  readonly stdin: Writable;
  readonly stderr: Readable;
  readonly started: Promise<void>;
  readonly exited: Promise<ProcessExit>;
  readonly closed: Promise<ProcessExit>;

  constructor(private readonly inner: HostProcess) {
    // Its stdout ends once its exit (with the gate's error) is known: the agent's connection, closed by that
    // end, is then told why (ACP's "connection closed" alone would say nothing of the image).
    const out = new Transform({
      transform: (chunk: Buffer, _enc, done) => done(null, chunk),
      flush: (done) => void this.closed.then(() => done()),
    });
    inner.stdout.pipe(out);
    this.stdout = out;
    this.stdin = inner.stdin;
    this.started = inner.started;
    let head = '';
    let ended!: () => void;
    const stderrDone = new Promise<void>((resolve) => (ended = resolve));
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        if (head.length < HEAD_BYTES) head += chunk.toString('utf8', 0, Math.min(chunk.length, HEAD_BYTES - head.length));
        done(null, chunk);
      },
      flush(done) {
        ended();
        done();
      },
    });
    inner.stderr.on('end', ended).on('close', ended);
    inner.stderr.pipe(tap);
    this.stderr = tap;
    const told = async (exit: ProcessExit): Promise<ProcessExit> => {
      if (!isNodeGateExit(exit.code) || exit.error !== null) return exit;
      // The exit can be heard before stderr's bytes: for the version the gate printed, its end is waited for, not
      // long (the exit code alone already says what the image lacks).
      if (!head.includes(NODE_GATE_MARKER)) await Promise.race([stderrDone, new Promise<void>((resolve) => setTimeout(resolve, 2000).unref())]);
      return { ...exit, error: nodeGateError(exit.code, head) };
    };
    this.exited = inner.exited.then(told);
    this.closed = inner.closed.then(() => this.exited);
    if (inner.writeNowOrNever) this.writeNowOrNever = (data) => inner.writeNowOrNever!(data);
  }

  writeNowOrNever?: (data: string) => void;

  get pid(): number | null {
    return this.inner.pid;
  }

  kill(signal?: NodeJS.Signals): void {
    this.inner.kill(signal);
  }

  dispose(): void {
    this.inner.dispose();
  }
}
