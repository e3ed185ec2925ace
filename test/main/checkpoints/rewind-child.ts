// A child process that rewinds a turn (test/main/checkpoints/crash.test.ts kills it mid-way).
import { EventBus } from '../../../src/main/core/base/event-bus';
import { CheckpointService } from '../../../src/main/core/checkpoints/checkpoint-service';
import { StoreService } from '../../../src/main/core/store/store-service';

const [dataDir, turnId] = process.argv.slice(2) as [string, string];
const store = new StoreService(dataDir);
const svc = new CheckpointService(store, new EventBus(), dataDir, { autoPrune: false });
process.stdout.write('ready\n');
const report = await svc.rewind(turnId);
process.stdout.write(`done ${report.applied.length}\n`);
await svc.dispose();
store.dispose();
