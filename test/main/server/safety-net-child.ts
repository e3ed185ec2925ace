// Child process for safety-net.test.ts: installs the net, then fails the ways a request callback can.
import { installSafetyNet } from '../../../src/main/server/safety-net';

installSafetyNet((message, error) => console.log(`logged: ${message} ${(error as Error).message}`));
setTimeout(() => {
  throw new Error('thrown from a callback');
}, 10);
setTimeout(() => void Promise.reject(new Error('rejected, never handled')), 20);
setTimeout(() => {
  console.log('still running');
  process.exit(0);
}, 100);
