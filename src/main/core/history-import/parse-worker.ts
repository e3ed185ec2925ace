import { parentPort, workerData } from 'node:worker_threads';
import { readNewLines } from './line-reader';
import { parseFile, type ParseJob } from './parse-file';

/**
 * A parsing thread of a large import (see parse-pool.ts): reads, parses and compresses the files it is sent, one at a time
 * in the order sent, and posts each one's messages back. It writes nothing; `workerData.stop` (an Int32Array on
 * shared memory) set to 1 stops a file's read part way (a cancel).
 */

const stop = (workerData as { stop: Int32Array }).stop;

parentPort?.on('message', (job: ParseJob & { id: number }) => {
  const parsed = parseFile(job, readNewLines, () => Atomics.load(stop, 0) === 1);
  const b = parsed.blocks;
  const arrays = [parsed.wire.ts, parsed.wire.kinds, ...(b ? [b.data, b.ends, b.n, b.ts, b.kinds] : [])];
  parentPort!.postMessage({ id: job.id, parsed }, arrays.map((a) => a.buffer as ArrayBuffer));
});
