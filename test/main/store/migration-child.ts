// Child process of compaction.test.ts: opens a store the way the app does and runs its migration, printing
// every progress event as a JSON line, until it is done (or killed).
import { EventBus } from '../../../src/main/core/base/event-bus';
import { HistoryService } from '../../../src/main/core/history/history-service';
import { StoreService } from '../../../src/main/core/store/store-service';

const [dataDir] = process.argv.slice(2) as [string];
const bus = new EventBus();
bus.connect((name, payload) => {
  if (name === 'app.storeMigration') process.stdout.write(`${JSON.stringify(payload)}\n`);
});
const store = new StoreService(dataDir);
const history = new HistoryService(store, bus);
history.start();
await history.whenMigrated();
history.dispose();
store.dispose();
process.stdout.write('finished\n');
