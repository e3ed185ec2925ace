// Loaded into the server with NODE_OPTIONS=--import (benchmarks only): the first SIGUSR2 starts the V8
// CPU profiler, the second stops it and writes SWITCHBOARD_CPU_PROF_FILE (.cpuprofile, for DevTools).
// SWITCHBOARD_CPU_PROF_AT_START=1: the profiler starts at once (start-up), and the first SIGUSR2 stops it.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env.SWITCHBOARD_CPU_PROF_FILE;
if (file && !process.argv.some((a) => a.includes('scenario-agent'))) {
  const session = new Session();
  session.connect();
  let running = false;
  const start = () => {
    running = true;
    session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.start')));
  };
  if (process.env.SWITCHBOARD_CPU_PROF_AT_START === '1') start();
  process.on('SIGUSR2', () => {
    if (!running) {
      start();
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, res) => {
      if (!err) writeFileSync(file, JSON.stringify(res.profile));
      else process.stderr.write(`cpu profile: ${String(err)}\n`);
    });
  });
}
