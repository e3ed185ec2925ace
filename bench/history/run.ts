// node --import tsx bench/history/run.ts [--scale 0.02] [--dir DIR] [--keep] [--reuse] [--fresh] [--limit 20]
import { runHistoryBench } from './index';

const args = process.argv.slice(2);
const value = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const scale = value('--scale');
const dir = value('--dir');
const limit = value('--limit');
await runHistoryBench({
  ...(scale ? { scale: Number(scale) } : {}),
  ...(dir ? { dir } : {}),
  ...(limit ? { limit: Number(limit) } : {}),
  keep: args.includes('--keep'),
  reuse: args.includes('--reuse'),
  fresh: args.includes('--fresh'),
});
