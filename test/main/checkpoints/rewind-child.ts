// A child process that rewinds a turn (test/main/checkpoints/crash.test.ts kills it mid-way). With a file
// to watch and its restored content, it stops itself (SIGSTOP) once it sees that file restored: the rewind is
// then held mid-way, whatever the machine's load, for the test to kill it there.
import { LocalHost } from '../../../src/main/core/host/local/local-host';
import { readFileSync, writeSync } from 'node:fs';
import { EventBus } from '../../../src/main/core/base/event-bus';
import { CheckpointService } from '../../../src/main/core/checkpoints/checkpoint-service';
import { StoreService } from '../../../src/main/core/store/store-service';

const [dataDir, turnId, watchFile, restored] = process.argv.slice(2) as [string, string, string?, string?];
const store = new StoreService(dataDir);
const svc = new CheckpointService(store, new EventBus(), dataDir, { autoPrune: false, host: new LocalHost() });
if (watchFile && restored) {
  // Between two files the rewind awaits git and the disk: this runs there.
  const check = setInterval(() => {
    let text = '';
    try {
      text = readFileSync(watchFile, 'utf8');
    } catch {
      return;
    }
    if (text !== restored) return;
    clearInterval(check);
    writeSync(1, 'stopped\n');
    process.kill(process.pid, 'SIGSTOP');
  }, 1);
}
process.stdout.write('ready\n');
const report = await svc.rewind(turnId);
process.stdout.write(`done ${report.applied.length}\n`);
await svc.dispose();
store.dispose();
