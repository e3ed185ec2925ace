// Child process of sigkill.test.ts: appends messages as fast as it can and prints the sequence number
// of each one whose append has resolved (= committed), until it is killed.
import { connect } from '../../../src/main/core/store/connection';
import { MessageLog } from '../../../src/main/core/store/message-log';

const [path, sessionId] = process.argv.slice(2) as [string, string];
const log = new MessageLog(connect(path));
const filler = 'x'.repeat(400);
let n = 0;
async function burst(): Promise<void> {
  for (;;) {
    const batch = [];
    for (let i = 0; i < 200; i++) {
      n++;
      batch.push(log.append({ sessionId, direction: 'a2c', method: 'session/update', body: JSON.stringify({ n, filler }) }));
    }
    const done = await Promise.all(batch);
    process.stdout.write(`${done.at(-1)!.seq}\n`);
  }
}
void burst();
