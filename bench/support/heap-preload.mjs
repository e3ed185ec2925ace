// Loaded into the server with NODE_OPTIONS=--import (benchmarks only): on SIGUSR1 the server collects its
// garbage and writes process.memoryUsage() as JSON to SWITCHBOARD_HEAP_FILE (what it holds, not what the
// allocator kept from what it freed). This replaces Node's own SIGUSR1 (open the inspector) in that process.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env.SWITCHBOARD_HEAP_FILE;
if (file && !process.argv.some((a) => a.includes('scenario-agent'))) {
  const session = new Session();
  session.connect();
  process.on('SIGUSR1', () => {
    session.post('HeapProfiler.collectGarbage', () => writeFileSync(file, JSON.stringify(process.memoryUsage())));
  });
}
