// `npm run bench -- history [--quick]`: search latency vs grep over the same transcripts as JSONL,
// store size per million events and the speed of migrating an old store to the compact format, and opening a 10,000-event session to first paint in Chromium.
import { runHistoryBench } from './history/index';
import { runRestoreBench } from './restore-first-paint';

const quick = process.argv.includes('--quick');
await runHistoryBench(quick ? { scale: 0.05 } : {});
await runRestoreBench();

// A folder watch holds the event loop (the process keeps one watch of its own: core/host/local/local-watch.ts): the bench ends here.
process.exit(0);
