import { runAppIngest } from './support/ingest';
const a = await runAppIngest({ chunks: 20000, chunkBytes: 100, runs: 5 });
console.log(`app ${a.seconds.toFixed(3)} cpu ${a.cpuMs.toFixed(0)}`);
process.exit(0);
